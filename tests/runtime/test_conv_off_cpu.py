"""The correlation npxla uses off the CPU for operands XLA's GPU convolution refuses
(bool, integer, complex: `lowering/conv.py`), run here on the CPU with the platform
check turned off, against NumPy bit for bit: every mode of np.convolve and
np.correlate, wrapping integer sums, kernels longer than the signal, and the refusal
of kernels longer than `MAX_TAPS`."""
import numpy as np
import pytest
from differential import check

from npxla import jit
from npxla.runtime.lowering import conv
from npxla.transpiler.base.errors import UnsupportedFunctionError

RNG = np.random.default_rng(29)


@pytest.fixture(autouse=True)
def off_cpu(monkeypatch):
    monkeypatch.setattr(conv, "_native_everywhere", lambda: False)


def all_modes(a, v):
    return tuple(f(a, v, mode=m) for f in (np.convolve, np.correlate)
                 for m in ("full", "same", "valid"))


def _data(dtype, n):
    if dtype == np.bool_:
        return RNG.random(n) > 0.5
    if np.dtype(dtype).kind == "c":
        return (RNG.standard_normal(n) + 1j * RNG.standard_normal(n)).astype(dtype)
    info = np.iinfo(dtype)
    return RNG.integers(info.min, info.max, n, endpoint=True).astype(dtype)


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint16, np.int32, np.int64,
                                   np.complex64, np.complex128])
@pytest.mark.parametrize("n, m", [(9, 3), (4, 7), (50, 50), (1, 1)])
def test_taps_match_numpy(dtype, n, m):
    kind = np.dtype(dtype).kind
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == np.complex64 else \
        dict(rtol=1e-12, atol=1e-12) if kind == "c" else dict(rtol=0, atol=0)
    check(all_modes, _data(dtype, n), _data(dtype, m), **tol)


def test_long_integer_kernels_are_refused_with_what_to_write():
    def long_kernel(a, v):
        return np.convolve(a, v)
    a = np.arange(2 * conv.MAX_TAPS)          # (np.convolve puts the longer first)
    v = np.ones(conv.MAX_TAPS + 1, dtype=np.int64)
    with pytest.raises(UnsupportedFunctionError, match="astype"):
        jit(long_kernel)(a, v)
