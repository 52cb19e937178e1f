"""What the linter knows about NumPy, jax.numpy and Python builtins: which calls give
Python values, masks, views, reductions, and which arguments are shapes.

The NumPy facts are generated from the runtime's registry and NumPy itself
(`numpy_facts`); the Python ones (builtins, container methods, side effects) are kept
here. Names are short names inside `numpy.` / `jax.numpy.` (`"zeros"`,
`"linalg.norm"`).
"""
from __future__ import annotations

from npxla.transpiler.lint import numpy_facts as F

# The NumPy facts come from the runtime's registry and NumPy itself, generated into
# `numpy_facts` (`python -m npxla.runtime.numpy.lint_facts --write`). The sets below
# also hold each dotted name's last part (`"norm"` for `"linalg.norm"`), which is how the
# analysis looks calls up.


def _with_short(names):
    return frozenset(names) | {n.rsplit(".", 1)[-1] for n in names}


STATIC_RESULT = _with_short(F.STATIC_RESULT)        # a Python value, never traced
BOOL_RESULT = _with_short(F.BOOL_RESULT)            # elementwise masks
REDUCTIONS = _with_short(F.REDUCTIONS | F.BOOL_REDUCTIONS)   # a scalar without `axis`
BOOL_REDUCTIONS = _with_short(F.BOOL_REDUCTIONS)
CREATION = _with_short(F.CREATION)                  # values from no traced argument
FILL_ARGS = dict(F.FILL_ARGS)
VIEW_FUNCTIONS = _with_short(F.VIEW_FUNCTIONS)      # views of their first argument
VIEW_METHODS = F.VIEW_METHODS
NDARRAY_METHODS = F.NDARRAY_METHODS                 # calling one shows it is an array
SHARED_METHODS = F.SHARED_METHODS                   # ... that Python objects have too
NDARRAY_ALL = F.NDARRAY_ALL
NDARRAY_ATTRS = F.NDARRAY_ATTRS
STATIC_ATTRS = F.STATIC_ATTRS
# Names that usually hold a module or an array namespace, not an array.
NAMESPACE_NAMES = frozenset({"xp", "np", "numpy", "jnp", "math", "cmath", "lib", "backend",
                             "module", "ops", "nx", "_nx", "xpx", "array_api"})

# Data-dependent output shapes: the catalogue's table (`transpiler.base.catalogue.
# DATA_DEPENDENT_SHAPES`), with whether each jit flavour refuses them.

# Arguments that are shapes, sizes, counts or axes: (positions, keyword names); the
# method of the same name takes them one position earlier, and `"*"` (every positional
# argument from the next one on) where it also takes a shape as separate arguments.
SHAPE_PARAMS = dict(F.SHAPE_PARAMS)
SHAPE_METHOD_PARAMS = {}
for _name, (_positions, _keywords) in F.SHAPE_PARAMS.items():
    if _name in NDARRAY_METHODS:
        _shifted = tuple(p - 1 for p in _positions if p > 0)
        if _name in F.VARARG_METHODS:
            _shifted += ("*",)
        SHAPE_METHOD_PARAMS[_name] = (_shifted, _keywords)

# NumPy functions whose leading positional arguments are arrays: name -> how many. A
# parameter passed there is an array or a sequence (`transpiler.lint.evidence`).
ARRAY_ARGUMENTS = dict(F.ARRAY_ARGUMENTS)

# NumPy random: constructors of generator objects (others use the global state), and
# what @jit cannot make inside a program (it calls the rest of np.random at run time).
RANDOM_GENERATORS = F.RANDOM_GENERATORS
BIT_GENERATORS = F.BIT_GENERATORS

# Builtins.
BUILTIN_STATIC = frozenset("""
isinstance issubclass type callable hasattr id repr str format hash vars dir locals
globals super object ascii chr ord bin hex oct len getattr
""".split())
BUILTIN_CONVERSIONS = frozenset({"float", "int", "bool", "complex"})

# Python-container methods that change the container.
LIST_MUTATORS = frozenset("append extend insert pop remove clear sort reverse".split())
DICT_MUTATORS = frozenset("update pop popitem clear setdefault".split())
SET_MUTATORS = frozenset("""add update discard remove pop clear difference_update
intersection_update symmetric_difference_update""".split())
ANY_MUTATORS = LIST_MUTATORS | DICT_MUTATORS | SET_MUTATORS
LIST_ONLY_MUTATORS = frozenset({"append", "extend", "insert"})   # no ndarray has them

# Calls with effects outside the function (they run once, while compiling).
SIDE_EFFECT_CALLS = frozenset({
    "builtins.open", "builtins.input", "builtins.breakpoint", "builtins.exec",
    "builtins.eval",
    "sys.stdout.write", "sys.stderr.write", "sys.exit",
    "time.sleep", "pdb.set_trace",
    "numpy.save", "numpy.savez", "numpy.savetxt", "numpy.load", "numpy.loadtxt",
    "numpy.genfromtxt", "numpy.fromfile",
    "pickle.dump", "pickle.load", "json.dump", "json.load",
    "os.remove", "os.unlink", "os.mkdir", "os.makedirs", "os.rename", "os.system",
    "logging.debug", "logging.info", "logging.warning", "logging.error",
    "logging.critical", "logging.exception", "logging.log",
})
SIDE_EFFECT_MODULES = ("random.", "subprocess.", "shutil.")

# `math` functions of real numbers: a parameter passed to one is a real number.
MATH_REAL_FUNCTIONS = frozenset("""
sin cos tan asin acos atan atan2 sinh cosh tanh asinh acosh atanh exp expm1 log log1p
log2 log10 sqrt degrees radians hypot erf erfc gamma lgamma
""".split())
