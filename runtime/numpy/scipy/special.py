"""`scipy.special` functions on traced arrays, with SciPy's values and dtypes.

SciPy is optional: the functions are registered by name (`registry.implements_lazy`)
and found once the user's code imports `scipy.special`; nothing here imports SciPy.
These are SciPy's ufuncs (compiled code in SciPy); `logsumexp`, Python code in SciPy,
is with the distributions in `stats`. The Gamma family (gamma, gammaln,
betaln, digamma/psi) is in `special_gamma`, on the loops and helpers defined here.

XLA's own erf/erfc/erf_inv/lgamma/digamma differ from SciPy's by up to 10**6 ulp and
more (erfc of negative arguments, lgamma near its zeros, digamma near its roots). The
kernels here are the algorithms SciPy runs (its `xsf` library: Cephes erf/erfc/ndtr/
Gamma/lgam/rgamma/lbeta, Cephes psi with Boost's rational approximation on [1, 2],
Boost's erf_inv), written with NumPy calls on traced arrays, operation for operation,
so they round as SciPy does: most results are SciPy's to the bit, the rest within an ulp
or two of it (tests/runtime/test_scipy_special.py measures it). Near digamma's negative
root -0.504 SciPy sums a Hurwitz-zeta series; here psi(x) = psi(x + 2) - 1/x - 1/(x + 1)
with the poles taken out exactly and a 24-term Taylor series of psi(x + 2) (2 ulp from
the true value where SciPy's is up to 9).

XLA's simplifier would round differently from SciPy where it folds `(x - c1) - c2` into
`x - (c1 + c2)` and `(a / b) / c` into `a / (b * c)`: such chains pass through an
opaque value (`_opaque`) or a select. Cephes's data-dependent loops (Gamma's recurrences)
become `stablehlo.while` loops of four masked steps a trip, as many trips as the array's
extreme element needs, and branches few elements take (Stirling's formula, reflections)
a `stablehlo.if` that runs only when some element takes it; everything else computes
every branch and selects. SciPy's float loops compute in float64 and round (expit/logit
in the loop's dtype, as SciPy's templates do); so do these.
"""
from __future__ import annotations

import math

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from npxla.transpiler.base.errors import UnsupportedFunctionError
from npxla.runtime.lowering.elementwise import elementwise
from npxla.runtime.lowering.rounding import rounded
from npxla.runtime.staging.abstract import AbstractArray, as_abstract
from npxla.runtime.staging.regions import trace_body
from npxla.runtime.staging.types import dtype_of, tensor_type
from npxla.runtime.numpy.core.convert import cast_to
from npxla.runtime.numpy.core.registry import dispatch, implements_lazy
from npxla.runtime.numpy.ufuncs.math_ufuncs import math_function


_INF, _NAN = np.inf, np.nan
W = np.where


def _c(text):
    return tuple(float(v) for v in text.split())


# --- SciPy's ufunc loops --------------------------------------------------------------

_TYPE_ERROR = ("ufunc '{}' not supported for the input types, and the inputs could not be "
               "safely coerced to any supported types according to the casting rule "
               "''safe''")


def _as_array(x, dtype=None):
    return dispatch(np.asarray, (x,), {} if dtype is None else {"dtype": dtype})


def loop_dtype(ufunc, loops, arrays):
    """The loop NumPy picks for SciPy ufunc `ufunc` (`loops`: its `types`, a letter a
    loop): an exact match of the input dtypes, else the first loop every input casts to
    safely. Python scalars count as float64/int64/bool, as for SciPy's ufuncs."""
    dtypes = [a.dtype for a in arrays]
    codes = [np.dtype(c) for c in loops]
    found = next((d for d in codes if all(t == d for t in dtypes)), None) or next(
        (d for d in codes if all(np.can_cast(t, d, "safe") for t in dtypes)), None)
    if found is None:
        raise TypeError(_TYPE_ERROR.format(ufunc))
    if found.kind != "f" or found.itemsize > 8:
        raise UnsupportedFunctionError(
            f"scipy.special.{ufunc} of {dtypes[0]} input is not supported on traced "
            "arrays yet (npxla computes its float32/float64 loops)")
    return found


def _broadcast(arrays, message=None):
    shapes = [a.shape for a in arrays]
    try:
        shape = np.broadcast_shapes(*shapes)
    except ValueError:
        raise ValueError(message or "operands could not be broadcast together with "
                         "shapes " + "".join(f"{s} " for s in shapes)) from None
    return [a if a.shape == shape else dispatch(np.broadcast_to, (a, shape), {})
            for a in arrays]


def _ufunc(names, ufunc, loops, kernel, native=False, notes=""):
    """Register SciPy ufunc `names` computed by `kernel` on float64 operands (`native`:
    on operands in the loop's own dtype) and returned in the loop's dtype."""
    nin = kernel.__code__.co_argcount
    names = (names,) if isinstance(names, str) else names

    def impl(*args, **kwargs):
        if kwargs or len(args) > nin:
            raise UnsupportedFunctionError(f"{names[0]}(..., {', '.join(kwargs) or 'out'}"
                                           "=) is not supported on traced arrays yet")
        if len(args) < nin:
            raise TypeError(f"{ufunc}() takes from {nin} to {nin + 1} positional "
                            f"arguments but {len(args)} were given")
        arrays = [_as_array(a) for a in args]
        dtype = loop_dtype(ufunc, loops, arrays)
        arrays = _broadcast([_as_array(a, dtype if native else np.float64) for a in arrays])
        out = _as_array(kernel(*arrays), dtype)
        out.weak = False
        return out
    impl.__name__ = ufunc
    return implements_lazy(*names, family="scipy", notes=notes)(impl)


# --- staging helpers (each also runs on NumPy arrays, as plain Python) ---------------

_barrier = elementwise("opaque", lambda v: rounded(v, dtype_of(v.type)))


def _opaque(v):
    """`v`, in a form XLA's simplifier cannot fold into a following constant sum."""
    return _barrier(v) if isinstance(v, AbstractArray) else v


def _staged(values):
    return any(type(v) is AbstractArray and v.const is None for v in values)


def _close(body, like, region):
    body.emit(lambda: body.finish([cast_to(as_abstract(v), x.dtype)
                                   for v, x in zip(body.leaves, like)]))
    body.move_to(region)


def _results(op, like):
    deps = frozenset().union(*[x.deps for x in like])
    return [AbstractArray(x.shape, x.dtype, ir=r, deps=deps) for x, r in zip(like, op.results)]


def _while(cond, body, init, reads):
    """`while cond(*v): v = body(*v)` as one stablehlo.while; the body may read arrays
    (`reads` and others) from outside."""
    if not _staged(list(init) + [reads]):
        while bool(cond(*init)):
            init = body(*init)
        return list(init)
    init = [as_abstract(v) for v in init]
    traced = trace_body(lambda *v: list(body(*v)), [(v.shape, v.dtype, False, frozenset())
                                                    for v in init])
    types = [tensor_type(v.shape, v.dtype) for v in init]
    op = hlo.WhileOp(types, [v.ir for v in init])
    block = op.cond.blocks.append(*types)
    with ir.InsertionPoint(block):
        hlo.ReturnOp([cond(*[AbstractArray(v.shape, v.dtype, ir=a)
                             for v, a in zip(init, block.arguments)]).ir])
    _close(traced, init, op.body)
    return _results(op, init)


def _if_any(flag, fn, like):
    """`fn()` (arrays shaped as `like`) when some element of `flag` holds, else `like`."""
    if not _staged([flag]):
        flag = flag.const if type(flag) is AbstractArray else flag
        return fn() if np.any(flag) else like
    pred = dispatch(np.any, (flag,), {})
    bodies = [trace_body(lambda: list(fn())), trace_body(lambda: list(like))]
    op = hlo.IfOp([tensor_type(v.shape, v.dtype) for v in like], pred.ir)
    for traced, region in zip(bodies, (op.true_branch, op.false_branch)):
        _close(traced, like, region)
    return _results(op, like)


def _step(mask, *pairs):
    return [W(mask, new, old) for old, new in pairs]


def _product_loop(x):
    """Cephes's `while (w >= 3) {w -= 1; z *= w;}` from w = x, z = 1: step k multiplies by
    x - k (exact for x >= 3) where that is at least 2, else by 1."""
    z = np.ones_like(x)
    if x.size == 0:
        return z
    top = np.max(x) - 2.0

    def body(k, z):
        for j in range(4):
            u = x - (k + float(j))
            z = z * W(u >= 2.0, u, 1.0)
        return k + 4.0, z
    return _while(lambda k, z: k <= top, body, [np.float64(1.0), z], x)[1]


def _rising_loop(x, z, stop, strict):
    """Cephes's `while (w < stop) {z /= w; w += 1;}` (`<=` unless `strict`) from w = x:
    step k divides by fl(x + k), which is the w Cephes has there. Returns z and the
    number of steps each element took."""
    n = np.zeros_like(x)
    if x.size == 0:
        return z, n
    low = np.min(x)

    def more(u):
        return u < stop if strict else u <= stop

    def body(k, z, n):
        for j in range(4):
            u = x + (k + float(j))
            down = more(u)
            z = W(down, z / u, z)         # not z / W(...): XLA folds (a / b) / c
            n = W(down, k + float(j + 1), n)
        return k + 4.0, z, n
    return _while(lambda k, z, n: more(low + k), body, [np.float64(0.0), z, n], x)[1:]


# --- polynomials (Cephes's polevl / p1evl / chbevl) ------------------------------------

def _poly(x, c):
    y = c[0] * x + c[1]
    for k in c[2:]:
        y = y * x + k
    return y


def _poly1(x, c):
    """x**n + c[0] x**(n-1) + ... (a leading 1 left out)."""
    y = x + c[0]
    for k in c[1:]:
        y = y * x + k
    return y


def _ratio(x, p, q):
    """Boost's P(x) / Q(x), coefficients in ascending powers."""
    return _poly(x, p[::-1]) / _poly(x, q[::-1])


def _chbevl(x, c):
    b0, b1, b2 = c[0], 0.0, 0.0
    for k in c[1:]:
        b2, b1 = b1, b0
        b0 = _opaque(x * b1 - b2) + k
    return 0.5 * (b0 - b2)


# --- erf, erfc, ndtr (Cephes ndtr.c) ------------------------------------------------------

_ERF_T = _c("""
    9.604973739870516 90.02601972038427 2232.005345946843 7003.325141128051
    55592.30130103949""")
_ERF_U = _c("""
    33.56171416475031 521.3579497801527 4594.323829709801 22629.000061389095
    49267.39426086359""")
_ERFC_P = _c("""
    2.461969814735305e-10 0.5641895648310689 7.463210564422699 48.63719709856814
    196.5208329560771 526.4451949954773 934.5285271719576 1027.5518868951572
    557.5353353693994""")
_ERFC_Q = _c("""
    13.228195115474499 86.70721408859897 354.9377788878199 975.7085017432055
    1823.9091668790973 2246.3376081871097 1656.6630919416134 557.5353408177277""")
_ERFC_R = _c("""
    0.5641895835477551 1.275366707599781 5.019050422511805 6.160210979930536
    7.4097426995044895 2.9788666537210022""")
_ERFC_S = _c("""
    2.2605286322011726 9.396035249380015 12.048953980809666 17.08144507475659
    9.608968090632859 3.369076451000815""")
_MAXLOG = 7.097827128933839730962063185871E2
_SQRT1_2 = 0.70710678118654752440


def _erf_small(x):
    """erf for |x| <= 1."""
    z = x * x
    return x * _poly(z, _ERF_T) / _poly1(z, _ERF_U)


def _erfc_large(a):
    """erfc for |a| >= 1: exp(-a*a) times a rational function of |a|."""
    x = np.abs(a)
    z = -a * a
    near = x < 8.0
    p = W(near, _poly(x, _ERFC_P), _poly(x, _ERFC_R))
    q = W(near, _poly1(x, _ERFC_Q), _poly1(x, _ERFC_S))
    y = np.exp(z) * p / q
    y = W(a < 0, 2.0 - y, y)
    return W(z < -_MAXLOG, W(a < 0, 2.0, 0.0), y)


def erf_kernel(x):
    small = np.abs(x) <= 1.0
    big = 1.0 - _erfc_large(W(small, 1.0, np.abs(x)))
    return W(small, _erf_small(W(small, x, 0.0)), W(x < 0, -big, big))


def erfc_kernel(a):
    small = np.abs(a) < 1.0
    return W(small, 1.0 - _erf_small(W(small, a, 0.0)), _erfc_large(W(small, 1.0, a)))


def ndtr_kernel(a):
    x = a * _SQRT1_2
    small = np.abs(x) < 1.0
    y = 0.5 * _erfc_large(W(small, 1.0, np.abs(x)))
    return W(small, 0.5 + 0.5 * _erf_small(W(small, x, 0.0)), W(x > 0, 1.0 - y, y))


# --- erfinv (Boost's erf_inv, its 64-bit tables: SciPy's erfinv) -----------------------

_EI_CENTER_P = _c("""
    -0.0005087819496582806 -0.008368748197417368 0.03348066254097446 -0.012692614766297404
    -0.03656379714117627 0.02198786811111689 0.008226878746769157 -0.005387729650712429""")
_EI_CENTER_Q = _c("""
    1.0 -0.9700050433032906 -1.5657455823417585 1.5622155839842302 0.662328840472003
    -0.7122890234154284 -0.05273963823400997 0.07952836873415717 -0.0023339375937419
    0.0008862163904564247""")
_EI_MID_P = _c("""
    -0.20243350835593876 0.10526468069939171 8.3705032834312 17.644729840837403
    -18.851064805871424 -44.6382324441787 17.445385985570866 21.12946554483405
    -3.6719225470772936""")
_EI_MID_Q = _c("""
    1.0 6.242641248542475 3.971343795334387 -28.66081804998 -20.14326346804852
    48.560921310873994 10.826866735546016 -22.643693341313973 1.7211476576120028""")
_T0P = _c("""
    -0.1311027816799519 -0.16379404719331705 0.11703015634199525 0.38707973897260434
    0.3377855389120359 0.14286953440815717 0.029015791000532906 0.0021455899538880526
    -6.794655751811263e-07 2.8522533178221704e-08 -6.81149956853777e-10""")
_T0Q = _c("""
    1.0 3.4662540724256723 5.381683457070069 4.778465929458438 2.5930192162362027
    0.848854343457902 0.15226433829533179 0.011059242293464892""")
_T1P = _c("""
    -0.0350353787183178 -0.0022242652921344794 0.018557330651423107 0.009508047013259196
    0.0018712349281955923 0.00015754461742496055 4.60469890584318e-06 -2.304047769118826e-10
    2.6633922742578204e-12""")
_T1Q = _c("""
    1.0 1.3653349817554064 0.7620591645536234 0.22009110576413124 0.03415891436709477
    0.00263861676657016 7.646752923027944e-05""")
_T2P = _c("""
    -0.016743100507663373 -0.0011295143874558028 0.001056288621524929 0.00020938631748758808
    1.4962478375834237e-05 4.4969678992770644e-07 4.625961635228786e-09
    -2.811287356288318e-14 9.905570997331033e-17""")
_T2Q = _c("""
    1.0 0.5914293448864175 0.1381518657490833 0.016074608709367652 0.0009640118070051656
    2.7533547476472603e-05 2.82243172016108e-07""")
# sqrt(-log q) below 3, 6, 18 (all q >= 2**-53 that float64 has): (B, Y, P, Q)
_EI_TAILS = ((1.125, 0.807220458984375, _T0P, _T0Q), (3.0, 0.93995571136474609375, _T1P, _T1Q),
             (6.0, 0.98362827301025390625, _T2P, _T2Q))


def erfinv_kernel(z):
    p = np.abs(z)
    q = 1.0 - p
    c = W(p <= 0.5, p, 0.25)
    g = c * (c + 10.0)
    out = g * 0.0891314744949340820313 + g * _ratio(c, _EI_CENTER_P, _EI_CENTER_Q)
    m = W((p > 0.5) & (q >= 0.25), q, 0.375)
    out = W(p <= 0.5, out, np.sqrt(-2.0 * np.log(m)) / (
        2.249481201171875 + _ratio(m - 0.25, _EI_MID_P, _EI_MID_Q)))
    x = np.sqrt(-np.log(W((q < 0.25) & (q > 0), q, 0.125)))
    tail = 0.0
    for bound, (b, y, pp, qq) in zip((_INF, 6.0, 3.0), _EI_TAILS[::-1]):
        r = _ratio(x - b, pp, qq)
        tail = W(x < bound, y * x + r * x, tail)
    out = W(q < 0.25, tail, out)
    out = W(p == 1.0, _INF, W(np.isnan(p) | (p > 1.0), _NAN, out))
    return W(z < 0, -out, W(z == 0, 0.0, out))        # +0 for -0, as Boost's


# --- logistic, xlogy ---------------------------------------------------------------------

def expit_kernel(x):
    return 1 / (1 + np.exp(-x))


def logit_kernel(x):
    mid = (x >= 0.3) & (x <= 0.65)
    s = 2 * (W(mid, x, 0.5) - 0.5)
    return W(mid, np.log1p(s) - np.log1p(-s), np.log(x / (1 - x)))


def xlogy_kernel(x, y):
    return W((x == 0) & ~np.isnan(y), 0.0, x * np.log(y))


_REAL = "real input (complex refused); "
math_function(math.erf, erf_kernel, notes="Cephes' erf, as SciPy's: within an ulp of libm's")
math_function(math.erfc, erfc_kernel, notes="Cephes' erfc, as SciPy's: within an ulp of libm's")
_ufunc("scipy.special.erf", "erf", "dfDF", erf_kernel, notes=_REAL + "Cephes, as SciPy")
_ufunc("scipy.special.erfc", "erfc", "dfDF", erfc_kernel, notes=_REAL + "Cephes, as SciPy")
_ufunc("scipy.special.erfinv", "erfinv", "fd", erfinv_kernel,
       notes="Boost's erf_inv, as SciPy (float32: computed in float64, SciPy's in float32)")
_ufunc("scipy.special.ndtr", "ndtr", "dfDF", ndtr_kernel, notes=_REAL + "Cephes, as SciPy")
_ufunc("scipy.special.xlogy", "xlogy", "dfDF", xlogy_kernel)
expit = _ufunc("scipy.special.expit", "expit", "dfg", expit_kernel, native=True)
_ufunc("scipy.special.logit", "logit", "dfg", logit_kernel, native=True)
