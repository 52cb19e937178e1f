"""What the linter knows about NumPy, jax.numpy and Python builtins: which calls give
Python values, masks, views, reductions, and which arguments are shapes.

Names are short names inside `numpy.` / `jax.numpy.` (`"zeros"`, `"linalg.norm"`).
"""
from __future__ import annotations

# Calls whose result is a Python value (never traced), whatever the arguments.
STATIC_RESULT = frozenset("""
shape ndim size result_type promote_types dtype iscomplexobj isrealobj isscalar can_cast
finfo iinfo issubdtype min_scalar_type broadcast_shapes errstate get_printoptions isdtype
printoptions set_printoptions seterr geterr ndindex typename mintypecode issubsctype
""".split())

# Elementwise predicates and comparisons: boolean results (masks).
BOOL_RESULT = frozenset("""
isnan isinf isfinite isneginf isposinf isnat signbit iscomplex isreal isclose less
less_equal greater greater_equal equal not_equal logical_and logical_or logical_not
logical_xor isin in1d
""".split())

# Reductions: a scalar without `axis`.
REDUCTIONS = frozenset("""
sum prod mean std var max min amax amin argmax argmin any all count_nonzero ptp median
average nansum nanprod nanmean nanstd nanvar nanmax nanmin nanargmax nanargmin
nanmedian trace vdot
""".split())
BOOL_REDUCTIONS = frozenset({"any", "all", "array_equal", "allclose", "array_equiv"})

# Creation functions: the values do not depend on traced data (only the fill value).
CREATION = frozenset("""
zeros ones empty full eye identity arange linspace logspace geomspace tri zeros_like
ones_like empty_like full_like indices
""".split())
FILL_ARGS = {"full": (1, "fill_value"), "full_like": (1, "fill_value")}

# Results that are views of (the same memory as) their first argument.
VIEW_FUNCTIONS = frozenset("""
asarray asanyarray reshape ravel transpose squeeze expand_dims swapaxes moveaxis
atleast_1d atleast_2d atleast_3d broadcast_to real imag diagonal
""".split())
VIEW_METHODS = frozenset("reshape ravel transpose squeeze swapaxes view diagonal".split())

# Methods only NumPy arrays have (calling one on a value shows it is an array).
NDARRAY_METHODS = frozenset("""
sum prod mean std var max min argmax argmin cumsum cumprod any all ptp dot reshape ravel
flatten astype squeeze transpose swapaxes clip round item tolist nonzero repeat take put
fill trace diagonal searchsorted argsort argpartition view tobytes conj copy compress
choose partition sort resize byteswap getfield setfield itemset tofile dump dumps
""".split())
# ... of which Python lists, dicts or numbers have methods of the same name too
SHARED_METHODS = frozenset({"copy", "sort", "conjugate"})
# Every public attribute of numpy.ndarray (NumPy 2).
NDARRAY_ALL = frozenset("""
T all any argmax argmin argpartition argsort astype base byteswap choose clip compress conj
conjugate copy ctypes cumprod cumsum data device diagonal dot dtype dump dumps fill flags
flat flatten getfield imag item itemsize mT max mean min nbytes ndim nonzero partition prod
put ravel real repeat reshape resize round searchsorted setfield setflags shape size sort
squeeze std strides sum swapaxes take to_device tobytes tofile tolist trace transpose var
view at
""".split())
# Names that usually hold a module or an array namespace, not an array.
NAMESPACE_NAMES = frozenset({"xp", "np", "numpy", "jnp", "math", "cmath", "lib", "backend",
                             "module", "ops", "nx", "_nx", "xpx", "array_api"})
NDARRAY_ATTRS = frozenset("shape ndim size dtype T mT flat strides nbytes itemsize flags base".split())
STATIC_ATTRS = frozenset("shape ndim size dtype strides nbytes itemsize flags".split())

# Data-dependent output shapes: the catalogue's table (`transpiler.base.catalogue.
# DATA_DEPENDENT_SHAPES`), with whether each jit flavour refuses them.

# Arguments that are shapes, sizes, counts or axes: (positions, keyword names).
# `"*"` in positions: every positional argument from the next one on.
SHAPE_PARAMS = {
    "zeros": ((0,), ("shape",)), "ones": ((0,), ("shape",)), "empty": ((0,), ("shape",)),
    "full": ((0,), ("shape",)),
    "zeros_like": ((), ("shape",)), "ones_like": ((), ("shape",)),
    "empty_like": ((), ("shape",)), "full_like": ((), ("shape",)),
    "arange": ((0, 1, 2), ("start", "stop", "step")),
    "linspace": ((2,), ("num",)), "logspace": ((2,), ("num",)),
    "geomspace": ((2,), ("num",)),
    "eye": ((0, 1), ("N", "M")), "identity": ((0,), ("n",)), "tri": ((0, 1), ("N", "M")),
    "reshape": ((1, "*"), ("newshape", "shape")), "resize": ((1,), ("new_shape",)),
    "broadcast_to": ((1,), ("shape",)), "tile": ((1,), ("reps",)),
    "repeat": ((1,), ("repeats",)),
    "split": ((1,), ("indices_or_sections",)), "array_split": ((1,), ("indices_or_sections",)),
    "expand_dims": ((1,), ("axis",)), "squeeze": ((1,), ("axis",)),
    "moveaxis": ((1, 2), ("source", "destination")), "swapaxes": ((1, 2), ("axis1", "axis2")),
    "transpose": ((1,), ("axes",)), "pad": ((1,), ("pad_width",)),
    "concatenate": ((1,), ("axis",)), "stack": ((1,), ("axis",)),
    "take": ((), ("axis",)), "flip": ((1,), ("axis",)), "sort": ((1,), ("axis",)),
    "argsort": ((1,), ("axis",)),
}
for _r in REDUCTIONS | {"cumsum", "cumprod"}:
    SHAPE_PARAMS.setdefault(_r, ((1,) if _r not in ("average", "vdot", "trace") else (),
                                 ("axis",)))
SHAPE_METHOD_PARAMS = {
    "reshape": ((0, "*"), ("shape", "newshape")), "resize": ((0, "*"), ("new_shape",)),
    "repeat": ((0,), ("repeats",)), "transpose": ((0, "*"), ("axes",)),
    "swapaxes": ((0, 1), ("axis1", "axis2")), "squeeze": ((0,), ("axis",)),
    "take": ((), ("axis",)),
}
for _r in REDUCTIONS | {"cumsum", "cumprod", "sort", "argsort"}:
    SHAPE_METHOD_PARAMS.setdefault(_r, ((0,), ("axis",)))

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

# NumPy random: constructors of generator objects (others use the global state).
RANDOM_GENERATORS = frozenset({"default_rng", "RandomState", "Generator", "PCG64",
                               "MT19937", "Philox", "SFC64", "SeedSequence", "BitGenerator"})
# what @jit cannot make inside a program (it calls the rest of np.random at run time)
BIT_GENERATORS = frozenset({"PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64",
                            "SeedSequence", "BitGenerator"})

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

# NumPy functions whose leading positional arguments are arrays: name -> how many. A
# parameter passed there is an array or a sequence (`transpiler.lint.evidence`).
ARRAY_ARGUMENTS = {name: 1 for name in """
asarray asanyarray array ascontiguousarray asfortranarray atleast_1d atleast_2d atleast_3d
linalg.norm linalg.inv linalg.det linalg.eig linalg.eigh linalg.svd linalg.qr linalg.pinv
linalg.cholesky linalg.matrix_rank linalg.eigvals linalg.eigvalsh diag diagonal trace
ravel reshape transpose cumsum cumprod diff sort argsort
""".split()}
ARRAY_ARGUMENTS.update({name: 2 for name in """
dot vdot inner outer cross matmul tensordot kron linalg.solve linalg.lstsq
""".split()})
# `math` functions of real numbers: a parameter passed to one is a real number.
MATH_REAL_FUNCTIONS = frozenset("""
sin cos tan asin acos atan atan2 sinh cosh tanh asinh acosh atanh exp expm1 log log1p
log2 log10 sqrt degrees radians hypot erf erfc gamma lgamma
""".split())
