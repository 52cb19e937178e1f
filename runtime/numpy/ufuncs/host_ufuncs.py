"""Large float transcendental ufuncs on the CPU through NumPy's own loops, called back.

On an x86-64 host with AVX-512 (Skylake-X and later, AMD Zen 4), NumPy computes exp,
log, tanh and most other transcendental functions of float32 and float64 with its
vectorised loops (SVML's, as NumPy's Linux wheels build them). npxla's own kernels
for them (`accurate_math`, `accurate_log`: within 1 ulp of NumPy, built from exactly
rounded operations because XLA's are up to 129 ulp off) are slower by 2-5x for
float64 and by up to 30x for float32 (XLA's float32 kernels are a few ulp off, and
the accurate ones run in float64), medians here over 262,144 elements:

    float64: exp 0.21 against 0.68 ms, tanh 0.47 against 1.14, arccos 0.39 against
    1.97 (and 2 ulp apart); float32: arccos 0.11 against 3.34, log10 0.05 against 0.71

Binary ones too: `arctan2` (float64 0.57 against 2.44 ms, float32 0.16 against 3.02)
and `power` of two arrays (0.59 against 1.47; `hypot` and `logaddexp` are faster in
XLA than NumPy's scalar loops and stay there).

So on such a host a large float array's function is NumPy's loop, run on XLA's
buffers (`emit_library_callback`: no copies), and the result is NumPy's bit for bit,
which XLA's never was (XLA's threads flush subnormals; the callback runs under the C
library's default floating-point environment: `ieee_env`). Left in XLA: small arrays
(a call with the callback costs about 17 µs), complex and float16 operands, programs
split over devices or compiled for an accelerator (`trace.host_library`), hosts
without AVX-512 (NumPy's scalar loops there are not faster), and float64 sin and cos,
which NumPy computes with the C library's scalar routines (2.2 against npxla's 1.2 ms,
bit-identical).

Elementwise loops give the same bits in any order, so a loop over 2 MB or more runs in
pieces on every host thread (`host_pool`), as XLA's kernel would have.

The loops run with NumPy's floating-point warnings off, as npxla's own kernels raise
none: a warning printed from XLA's thread would name no line of the user's code.
"""
from __future__ import annotations

import numpy as np

from npxla.runtime.lowering.callbacks import emit_library_callback, library
from npxla.runtime.lowering.host_pool import HOST_POOL, HOST_THREADS
from npxla.runtime.staging.trace import current_trace

# elements from which NumPy's loop and the callback (about 17 µs) beat XLA's kernel,
# which from about 1,000 elements of exp, log or tanh is split over threads (medians
# here, float64: 1,024 elements exp 20 against 76 µs, log 20 against 30; 256: 18
# against 11-15)
MIN_ELEMENTS = 1024
# result bytes from which the loop runs in pieces on every host thread: XLA's fused
# kernel of a long expression runs on both cores, NumPy's loop on one. Waking a thread
# costs ~40 µs here (medians: 1M float64 exp 0.98 -> 0.62 ms, 262,144 0.28 -> 0.26;
# 262,144 float32 0.17 -> 0.20 in pieces, 1M 0.55 -> 0.37)
PARALLEL_MIN_BYTES = 1 << 21

_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_BOTH = frozenset({_F32, _F64})

# the functions NumPy vectorises with AVX-512 (SVML) and the dtypes where that beats
# npxla's kernels here; float64 sin/cos are scalar in NumPy
TABLE = {
    np.exp: _BOTH, np.exp2: _BOTH, np.expm1: _BOTH,
    np.log: _BOTH, np.log2: _BOTH, np.log10: _BOTH, np.log1p: _BOTH,
    np.sin: frozenset({_F32}), np.cos: frozenset({_F32}), np.tan: _BOTH,
    np.arcsin: _BOTH, np.arccos: _BOTH, np.arctan: _BOTH,
    np.sinh: _BOTH, np.cosh: _BOTH, np.tanh: _BOTH,
    np.arcsinh: _BOTH, np.arccosh: _BOTH, np.arctanh: _BOTH,
    np.cbrt: _BOTH,
    np.arctan2: _BOTH, np.power: _BOTH,     # array operands (constants stay in XLA)
}


# NumPy's names for the AVX-512 (Skylake-X) target: NumPy 1.x and 2.0-2.3 call it
# AVX512_SKX, NumPy 2.4 the x86-64-v4 level
_AVX512_TARGETS = ("AVX512_SKX", "X86_V4")


def _numpy_has_avx512() -> bool:
    """Whether this NumPy was built with its AVX-512 loops and this CPU runs them."""
    try:
        from numpy._core import _multiarray_umath as umath
    except ImportError:  # pragma: no cover - NumPy 1.x layout
        from numpy.core import _multiarray_umath as umath
    features = getattr(umath, "__cpu_features__", {})
    built = set(getattr(umath, "__cpu_dispatch__", ())) | \
        set(getattr(umath, "__cpu_baseline__", ()))
    return bool(features.get("AVX512_SKX")) and any(t in built for t in _AVX512_TARGETS)


# read at each staging (tests of npxla's own kernels turn it off)
ENABLED = _numpy_has_avx512()


def host_lowering(ufunc, lower):
    """`lower` (a float lowering), or NumPy's `ufunc` run on the host for the operands
    `TABLE` lists, when the program may call back. Constant operands stay in XLA
    (`x ** 2.0` is a product there, as in NumPy's own fast path)."""
    dtypes = TABLE.get(ufunc)
    if dtypes is None:
        return lower
    recipe = ("ufunc", ufunc.__name__)

    def lowered(*xs):
        trace = current_trace()
        if not ENABLED or trace is None or not trace.host_library or \
                any(x.dtype not in dtypes or x.const is not None for x in xs):
            return lower(*xs)
        shape = np.broadcast_shapes(*(x.shape for x in xs))
        if int(np.prod(shape, dtype=np.int64)) < MIN_ELEMENTS or \
                len({x.dtype for x in xs}) != 1:
            return lower(*xs)
        (out,) = emit_library_callback(trace, recipe, list(xs), [(shape, xs[0].dtype)])
        return out
    return lowered


_BY_NAME = {u.__name__: u for u in TABLE}


@library("ufunc")
def _loop(name):
    """The callback that runs NumPy's ufunc `name` (one of `TABLE`) into the result."""
    ufunc = _BY_NAME[name]

    def call(outs, *xs):
        out = outs[0]
        if out.nbytes < PARALLEL_MIN_BYTES or HOST_THREADS == 1 or \
                any(x.shape != out.shape for x in xs):
            with np.errstate(all="ignore"):
                ufunc(*xs, out=out)
            return
        xs, out = [x.reshape(-1) for x in xs], out.reshape(-1)
        step = -(-out.size // HOST_THREADS)

        def piece(start):
            with np.errstate(all="ignore"):
                ufunc(*[x[start:start + step] for x in xs], out=out[start:start + step])
        HOST_POOL.run(piece, range(0, out.size, step))
    return call
