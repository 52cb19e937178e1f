"""NPX15x: functions and methods `@jit` does not compile. npxla compiles the NumPy API
its registry implements (listed, without JAX, in `transpiler.base.supported`) and the
user's own Python; everything else is called as plain Python while compiling, which
works on constants but not on traced arrays.

What `@jit` does with a call it has no implementation for:

* a NumPy function, ufunc or ufunc method: NumPy computes it when every argument is a
  known constant (literals, shapes, arrays made from them); given a traced array it
  raises `UnsupportedFunctionError` (NPX002, as `LibraryCallError`);
* an ndarray method or property it does not implement (`.view`, `.resize`, `.strides`):
  `UnsupportedFunctionError` on every array it traces or creates, constant or not;
* another library (SciPy, pandas, any installed package) or a `math` function without a
  lowering: a plain call that fails on traced values with `LibraryCallError` (NPX002).

A traced Python `int` argument is specialised instead (the function is recompiled for
its value, as for any `ConcretizationError`), a `float` is not; the linter cannot tell
them apart, so a traced argument of unknown type counts, except for functions of counts
and sizes (`INT_ARGUMENTS`), where only array data does.
"""
from __future__ import annotations

import ast
import os

from npxla.transpiler.base import supported as S
from npxla.transpiler.base.instead import (MATH_INSTEAD, NDARRAY_INSTEAD, NUMPY_INSTEAD,
                                           use_instead as _instead)
from npxla.transpiler.base.libraries import (PACKAGE_PARTS, is_converted_file,
                                             is_installed_file)
from npxla.transpiler.lint.modules import installed_file, package_name
from npxla.transpiler.lint import knowledge as K
from npxla.transpiler.lint.values import (ARRAY, BOOL, CONTAINERS, DATA, MAYBE, METHOD,
                                          PYTHON_ONLY, REF, traced_argument)
from npxla.transpiler.lint.rules._watch import get, watch, watched
from npxla.transpiler.base import catalogue as C
from npxla.transpiler.lint.rules.base import NPXLA, Rule, register

_NPXLA = frozenset({NPXLA})

# Libraries npxla calls as plain Python that cannot take traced arrays (compiled code,
# their own array types), reported whether or not they are installed where the linter
# runs. Any other module installed as a package (site-packages) is a library too (see
# `library_module`); the standard library's other modules are not reported (functools,
# itertools, operator, copy, ... work on traced arrays or are routed by @jit).
PLAIN_LIBRARIES = frozenset("""
scipy sklearn pandas statsmodels skimage cv2 numba torch tensorflow numexpr sympy
networkx astropy xarray dask PIL matplotlib pywt bottleneck cupy h5py statistics cmath
decimal fractions
""".split())
NOT_LIBRARIES = frozenset({"numpy", "npxla", "jax", "jaxlib", "math", "builtins",
                           "random"})     # NumPy/math: the tables; random: NPX141/NPX303


# Functions whose arguments are counts and sizes (Python ints, which @jit specialises:
# it recompiles for their value when a call needs it as a Python value), not data.
INT_ARGUMENTS = frozenset("""
numpy.hanning numpy.hamming numpy.blackman numpy.bartlett numpy.kaiser numpy.tril_indices
numpy.triu_indices numpy.diag_indices numpy.mask_indices numpy.binary_repr
numpy.base_repr numpy.ndindex numpy.unravel_index math.factorial math.comb math.perm
math.gcd math.lcm math.isqrt
""".split())


def _any_traced(args, kwargs, ints=False, call=None):
    nodes = [None] * len(args) + [None] * len(kwargs)
    if call is not None and len(call.args) == len(args) and \
            len([k for k in call.keywords if k.arg]) == len(kwargs):
        nodes = list(call.args) + [k.value for k in call.keywords if k.arg]
    for v, node in zip(list(args) + list(kwargs.values()), nodes):
        if _not_an_array_attribute(node):
            continue
        if traced_argument(v, ints):
            return True
    return False


def _not_an_array_attribute(node):
    """`s.type`, `x.units`: an attribute arrays do not have. Read from a traced value it
    raises AttributeError before the call is made (code written for several types
    tries it inside `try`), and on a Python object it is not traced at all."""
    return isinstance(node, ast.Attribute) and node.attr not in K.NDARRAY_ALL


def _display(node, default):
    try:
        return ast.unparse(node)
    except Exception:
        return default


def numpy_status(qual):
    """"supported", "refused", "unsupported" or None (not a NumPy callable this table
    knows) for a qualified name such as `numpy.linalg.norm` or `numpy.add.outer`."""
    if qual in S.NUMPY_SUPPORTED or qual in S.UFUNC_METHODS_SUPPORTED:
        return "supported"
    if qual in S.NUMPY_REFUSED:
        return "refused"
    if qual in S.NUMPY_UNSUPPORTED:
        return "unsupported"
    owner, _, method = qual.rpartition(".")
    if owner in S.NUMPY_UFUNCS and method in S.UFUNC_METHOD_NAMES:
        return "unsupported"
    return None


@register
class UnsupportedNumpyFunction(Rule):
    refusal = C.UNSUPPORTED_FUNCTION
    plain = True
    defaults = {"fn": "np.i0", "why": "@jit computes it only from constant arguments",
                "instead": ""}
    targets = _NPXLA
    explain = """
        @jit compiles the NumPy functions its registry implements (the list is in
        docs/numpy-support.md). Any other NumPy function, ufunc or ufunc method is
        computed by NumPy itself while compiling when all its arguments are constants
        (literals, shapes, arrays made from them), but given a traced value (an array
        argument or one computed from the inputs, or a Python `float` argument) it
        raises UnsupportedFunctionError. Python `int` arguments are fine: @jit
        recompiles for their value. Write it with supported functions, compute it
        outside the jitted function and pass the result in, or make its argument static
        (`static_argnums`). `np.linalg.eig`, `np.linalg.eigvals` and `np.roots` of real
        input return real or complex results depending on the data: @jit assumes real
        ones and checks them when the program runs, which it cannot do inside a
        data-dependent branch or loop: there, pass `a.astype(complex)`, or use
        `np.linalg.eigh` for a symmetric matrix."""
    bad = """
        import numpy as np
        from npxla import jit

        @jit
        def kaiser_weights(x):
            return np.i0(x) / np.i0(x).sum()
        """
    good = """
        import numpy as np
        from npxla import jit

        @jit
        def smooth(x):
            w = np.hanning(5)             # constant arguments: computed while compiling
            return np.convolve(x, w / w.sum(), mode="same")
        """
    example_args = "(np.array([0.5, 1.0, 2.0]),)"
    example_good_args = "(np.arange(8.0),)"

    def on_call(self, ctx, node, callee, args, kwargs):
        if isinstance(node.func, ast.Call):          # np.vectorize(f)(x)
            qual = ctx.qualify(node.func.func)
            if qual in ("numpy.vectorize", "numpy.frompyfunc") and \
                    _any_traced(args, kwargs, call=node):
                self.report(ctx, node, fn=_display(node.func, qual),
                            instead=_instead(NUMPY_INSTEAD[qual[6:]]))
            return
        if callee.kind != REF or not callee.qual or not callee.qual.startswith("numpy."):
            return
        qual = callee.qual
        self._complex_only(ctx, node, qual, args, kwargs)
        # questions about types and shapes (`np.isdtype(dt, ...)`, `np.finfo(t)`) take
        # dtypes and Python objects: only array data given to them counts
        scalars = qual in INT_ARGUMENTS or qual.rsplit(".", 1)[-1] in K.STATIC_RESULT
        if numpy_status(qual) != "unsupported" or \
                not _any_traced(args, kwargs, scalars, node):
            return
        short = qual[len("numpy."):]
        instead = NUMPY_INSTEAD.get(short)
        self.report(ctx, node, fn=_display(node.func, "np." + short),
                    instead=_instead(instead))

    def _complex_only(self, ctx, node, qual, args, kwargs):
        """np.linalg.eig of a real matrix inside data-dependent flow: NumPy's result
        dtype depends on the data, which @jit assumes and checks only outside it."""
        if qual not in S.NUMPY_REAL_ASSUMED or not node.args or not args or \
                not traced_argument(args[0]) or not ctx.staged_frames(MAYBE):
            return
        if _complex_expression(node.args[0], ctx, node):
            return
        fn = _display(node.func, "np." + qual[6:])
        self.report(ctx, node, fn=fn, why="inside data-dependent flow @jit compiles it "
                    "for complex input only (for real input NumPy's result dtype "
                    "depends on the data)",
                    instead=f"; use {fn}(a.astype(complex)), or np.linalg.eigh for a "
                    "symmetric matrix")


@register
class UnsupportedNdarrayAttribute(Rule):
    refusal = C.UNSUPPORTED_ATTRIBUTE
    plain = True
    defaults = {"attr": "resize", "instead": ""}
    targets = _NPXLA
    explain = """
        Inside a jitted function the arrays are npxla's staged arrays, which implement
        the ndarray methods and properties listed in docs/numpy-support.md. The others
        (memory-layout attributes such as `.strides`, `.flags`, `.base`, `.ctypes`,
        and `.view()`, `.mT`, `.resize()`, `.tobytes()`, ...) raise
        UnsupportedFunctionError on every array the function receives, creates or
        reads from its module (those become constants of the program). Use the NumPy
        spelling that builds a new array (`np.resize(x, n)` for `.resize(n)`,
        `np.swapaxes(x, -1, -2)` for `.mT`)."""
    bad = """
        import numpy as np
        from npxla import jit

        @jit
        def first_two(x):
            y = x.copy()
            y.resize((2,))
            return y
        """
    good = """
        import numpy as np
        from npxla import jit

        @jit
        def first_two(x):
            y = x.copy()
            return y[:2]
        """
    example_args = "(np.array([1.0, 2.0]),)"

    def _check(self, ctx, node, attr, recv):
        if attr not in S.NDARRAY_UNSUPPORTED or not _staged_array(recv):
            return
        self.report(ctx, node, attr=attr, instead=_instead(NDARRAY_INSTEAD.get(attr)))

    # attribute reads can be anywhere (`a, b = M.flat`): watched as they are evaluated
    def _hook(self, ctx):
        if not watched(ctx, ast.Attribute, self.code):
            watch(ctx, ast.Attribute, self.code, self._on_attribute)

    def _on_attribute(self, ctx, node, value):
        if node.attr in S.NDARRAY_UNSUPPORTED and isinstance(node.ctx, ast.Load):
            recv = get(ctx, node.value)
            if recv is not None:
                self._check(ctx, node, node.attr, recv)

    def on_function(self, ctx, fn):
        self._hook(ctx)

    def on_call(self, ctx, node, callee, args, kwargs):
        func = node.func
        if callee.kind == METHOD and callee.items and isinstance(func, ast.Attribute):
            self._check(ctx, node, callee.qual, callee.items[0])
            func = func.value
        self._hook(ctx)
        if not watched(ctx, ast.Attribute, self.code):
            self._scan(ctx, [func] + list(node.args) + [k.value for k in node.keywords])

    def on_subscript(self, ctx, node, base, index, mode, value):
        self._hook(ctx)
        if not watched(ctx, ast.Attribute, self.code):
            self._scan(ctx, [node.value, node.slice])

    def on_control(self, ctx, node, kind, cond):
        self._hook(ctx)
        part = getattr(node, "test", None) or getattr(node, "iter", None)
        if part is not None and not watched(ctx, ast.Attribute, self.code):
            self._scan(ctx, [part])

    def _scan(self, ctx, nodes):
        """Fallback where attribute reads cannot be watched: the unsupported attributes
        read in the expressions the analysis' events carry."""
        for top in nodes:
            for n in _attribute_reads(top):
                self._check(ctx, n, n.attr, ctx.value(n.value))


def _attribute_reads(node):
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
                          ast.GeneratorExp)):
            continue
        if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load) and \
                n.attr in S.NDARRAY_UNSUPPORTED:
            yield n
        stack.extend(ast.iter_child_nodes(n))


_COMPLEX = ("complex", "complex64", "complex128", "complex256", "cdouble", "csingle",
            "clongdouble", "c8", "c16", "F", "D")


def _complex_expression(expr, ctx, at, depth=0):
    """Whether `expr` (evaluated at node `at` of `ctx.fn`) is complex under @jit:
    `.astype(complex)`, `dtype=complex`, `* 1j`, or a local name that an assignment
    reaching it (reaching definitions) gives one of those: where another path leaves a
    real array in it, a data-dependent branch joins the two as complex."""
    if isinstance(expr, ast.Constant):
        return isinstance(expr.value, complex)
    if isinstance(expr, ast.BinOp):
        return _complex_expression(expr.left, ctx, at, depth) or \
            _complex_expression(expr.right, ctx, at, depth)
    if isinstance(expr, ast.Call):
        dtypes = [k.value for k in expr.keywords if k.arg == "dtype"]
        if isinstance(expr.func, ast.Attribute) and expr.func.attr == "astype":
            dtypes += expr.args[:1]
        for d in dtypes:
            name = d.value if isinstance(d, ast.Constant) else getattr(
                d, "attr", getattr(d, "id", None))
            if isinstance(name, str) and name in _COMPLEX:
                return True
        return False
    if isinstance(expr, ast.Name) and depth < 3 and isinstance(
            ctx.fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return any(isinstance(d, ast.Assign) and
                   _complex_expression(d.value, ctx, d, depth + 1)
                   for d in ctx.facts.reaching(ctx.fn, expr.id, at))
    return False


def _staged_array(v):
    """A value @jit holds as a staged array: any array the function sees (arguments,
    what it creates, module-level arrays it reads, which it takes in as constants), or
    a value computed from array data. A traced argument of unknown type is left out:
    it may be a Python object with an attribute of the same name."""
    if v is None or v.kind in CONTAINERS or v.kind in PYTHON_ONLY:
        return False
    return v.kind in (ARRAY, BOOL) or v.level >= DATA


# --- whose code a module is: what @jit decides from where its file lives ------------------
# (`transpiler.base.libraries`, which the runtime's provenance reads too): the standard
# library, compiled extensions and the installed packages @jit does not convert
# (`NOT_CONVERTED`: NumPy, SciPy, JAX, pandas, ...) are libraries, called as plain
# Python; every other file, installed or not, is converted like the jitted function.
_ORIGINS: dict = {}


def library_module(top) -> bool:
    """Whether the top-level module `top` is a library for @jit: a known compiled
    library, or a package installed where the linter runs. Found with
    `importlib.util.find_spec` on the top-level name, which imports nothing."""
    if top in NOT_LIBRARIES or not top.isidentifier():
        return False
    if top in PLAIN_LIBRARIES:
        return True
    hit = _ORIGINS.get(top)
    if hit is None:
        import importlib.util
        try:
            spec = importlib.util.find_spec(top)
        except (ImportError, ValueError, AttributeError):
            spec = None
        origin = None
        if spec is not None:
            origin = spec.origin if spec.origin not in (None, "namespace") else \
                next(iter(spec.submodule_search_locations or ()), None)
        if origin in ("built-in", "frozen"):
            hit = False           # sys, itertools, ...: the standard library's own
        else:
            hit = bool(origin) and is_installed_file(origin) and \
                not _standard_library(origin) and not is_converted_file(origin)
        _ORIGINS[top] = hit
    return hit


def _standard_library(path):
    import sysconfig
    real = os.path.realpath(path)
    std = [os.path.realpath(sysconfig.get_paths()[k]) + os.sep
           for k in ("stdlib", "platstdlib")]
    return real.startswith(tuple(std)) and not any(
        part in PACKAGE_PARTS for part in real.split(os.sep))


def library_callee(qual, path):
    """The library a call to `qual` (a qualified name from the file at `path`) goes
    into, or None when @jit converts it or handles it itself."""
    if qual.startswith("?") or any(part.startswith("_") for part in qual.split(".")):
        return None             # private helpers: often only read shapes and dtypes
    if qual.startswith("."):              # a relative import: the file's own package
        return package_name(path) if installed_file(path) else None
    top = qual.split(".")[0]
    return top if library_module(top) else None


@register
class LibraryCallOnTracedArray(Rule):
    refusal = C.LIBRARY_CALL
    plain = True
    defaults = {"fn": "scipy.special.zeta", "lib": "scipy", "instead": ""}
    targets = _NPXLA
    explain = """
        npxla compiles NumPy and your own Python code. A function of another library
        (SciPy, pandas, scikit-learn, `statistics`, any package installed in
        site-packages) or a `math` function npxla has no lowering for (`math.gamma`,
        `math.erf`, ...) is called as plain Python while compiling: it works on
        constants and on Python `int`, `bool` and `float` arguments (@jit recompiles for
        their values), but given array data @jit raises LibraryCallError. Compute it
        outside the jitted function and pass the result in, or write it with NumPy
        functions. Modules of your own project are compiled like the jitted function
        and are not reported, nor are a library's private helpers (`_name`), which
        mostly read only shapes and dtypes. Installed pure-Python packages other than
        the ones npxla provides or that are not NumPy code (NumPy, SciPy, JAX, torch,
        pandas, scikit-learn, ...: see docs/conversion.md) are legacy code too and are
        converted like your own modules."""
    bad = """
        import numpy as np
        import scipy.special
        from npxla import jit

        @jit
        def zeta_sum(x):
            return scipy.special.zeta(x + 2.0, 1.0).sum()
        """
    good = """
        import numpy as np
        from npxla import jit

        @jit
        def zeta_sum(x, zetas):       # zetas = scipy.special.zeta(x + 2.0, 1.0), outside
            return zetas.sum()
        """
    example_args = "(np.array([-1.0, 0.0, 2.0]),)"
    example_good_args = "(np.array([-1.0, 0.0, 2.0]), np.array([1.64, 2.3, 1.08]))"

    def on_call(self, ctx, node, callee, args, kwargs):
        if callee.kind != REF or not callee.qual or callee.qual in S.HANDLED_CALLS or \
                callee.qual in S.SCIPY_SUPPORTED:
            return
        qual = callee.qual
        top = qual.split(".")[0]
        if top == "math":
            if qual not in S.MATH_UNSUPPORTED:
                return
            lib, instead = "math", MATH_INSTEAD.get(qual)
        else:
            lib, instead = library_callee(qual, ctx.info.path), None
            if lib is None or (ctx.calls_plainly and
                               ctx.analysis.foreign_function(qual) is not None):
                return          # the package's own function: read (`on_plain_call`)
        # math's functions take Python numbers: a Python scalar argument (which @jit
        # specialises) is fine there, only array data fails
        if _any_traced(args, kwargs, qual in INT_ARGUMENTS or lib == "math", node):
            self.report(ctx, node, fn=_display(node.func, qual), lib=lib,
                        instead=_instead(instead))

    def on_plain_call(self, ctx, node, name, lib, failure):
        """A function of the installed package being linted, called as plain Python,
        fails on its traced arguments (`transpiler.lint.plain`): `failure` says where."""
        what, path, line = failure
        self.report(ctx, node, fn=_display(node.func, name), lib=lib,
                    instead=f" ({what}, {os.path.basename(path)}:{line})")
