"""Differential testing against NumPy: same values, dtypes and shapes."""
from __future__ import annotations

import contextlib
import os

import numpy as np

from npxla.runtime.lowering import scalar_ifs
from npxla.runtime.operators import conditionals
from npxla import jit


# The device `check` compiles for: NPXLA_TEST_DEVICE (e.g. `gpu`, `cuda:1`) when set,
# else the CPU (tests/conftest.py pins the same choice for every other jit call, so the
# default run is the same on a machine with a GPU). A test may still pass its own
# `device` in `jit_kwargs`.
DEVICE = os.environ.get("NPXLA_TEST_DEVICE", "").strip() or "cpu"


@contextlib.contextmanager
def branches_as_if():
    """Stage every data-dependent branch as `stablehlo.if`, small ones included (they
    are otherwise computed both and selected), and keep them so in loops (where small
    `if`s of scalars are otherwise flattened after staging, `lowering/scalar_ifs`)."""
    saved = conditionals.SELECT_MAX_ELEMENTS, scalar_ifs.MAX_OPS
    conditionals.SELECT_MAX_ELEMENTS, scalar_ifs.MAX_OPS = 0, -1
    try:
        yield
    finally:
        conditionals.SELECT_MAX_ELEMENTS, scalar_ifs.MAX_OPS = saved


def _compare(expected, actual, rtol, atol, path="result"):
    if isinstance(expected, (tuple, list)):
        assert type(actual) is type(expected), f"{path}: {type(actual)} != {type(expected)}"
        assert len(actual) == len(expected), f"{path}: length differs"
        for i, (e, a) in enumerate(zip(expected, actual)):
            _compare(e, a, rtol, atol, f"{path}[{i}]")
        return
    if isinstance(expected, dict):
        assert set(expected) == set(actual), f"{path}: keys differ"
        for k in expected:
            _compare(expected[k], actual[k], rtol, atol, f"{path}[{k!r}]")
        return
    if expected is None or isinstance(expected, str):
        assert actual == expected, f"{path}: {actual!r} != {expected!r}"
        return
    if isinstance(expected, (bool, int, float, complex)) and not isinstance(expected, np.generic):
        assert type(actual) is type(expected), \
            f"{path}: Python {type(expected).__name__} expected, got {type(actual).__name__}"
    else:
        e_arr, a_arr = np.asarray(expected), np.asarray(actual)
        assert a_arr.dtype == e_arr.dtype, f"{path}: dtype {a_arr.dtype} != {e_arr.dtype}"
        assert a_arr.shape == e_arr.shape, f"{path}: shape {a_arr.shape} != {e_arr.shape}"
        assert isinstance(actual, np.ndarray) == isinstance(expected, np.ndarray), \
            f"{path}: {type(actual).__name__} != {type(expected).__name__}"
    e_arr, a_arr = np.asarray(expected), np.asarray(actual)
    if e_arr.dtype.kind in "fc":
        np.testing.assert_allclose(a_arr, e_arr, rtol=rtol, atol=atol, equal_nan=True,
                                   err_msg=path)
    else:
        np.testing.assert_array_equal(a_arr, e_arr, err_msg=path)


def _copy(x):
    if isinstance(x, np.ndarray):
        return x.copy()
    if isinstance(x, (list, tuple)):
        return type(x)(_copy(i) for i in x)
    if isinstance(x, dict):
        return {k: _copy(v) for k, v in x.items()}
    return x


def check(fn, *args, rtol=1e-7, atol=1e-12, jit_kwargs=None, **kwargs):
    """Run `fn` with NumPy and through `jit`; compare results *and* argument mutation.

    Returns the jitted result for further assertions.
    """
    np_args, np_kwargs = _copy(args), _copy(kwargs)
    with np.errstate(all="ignore"):
        expected = fn(*np_args, **np_kwargs)
    jit_args, jit_kwargs_ = _copy(args), _copy(kwargs)
    actual = jit(fn, **{"device": DEVICE, **(jit_kwargs or {})})(*jit_args, **jit_kwargs_)
    _compare(expected, actual, rtol, atol)
    _compare(np_args, jit_args, rtol, atol, "arguments after the call")
    return actual


def _pair(tol):
    return tol if isinstance(tol, tuple) else (tol, tol)


def tolerance(dtype, half=1e-2, single=1e-5, double=1e-12):
    """`rtol`/`atol` keyword arguments for `check` (or `np.testing.assert_allclose`) chosen by
    the precision of `dtype`: `half` for float16, `single` for float32/complex64, `double` for
    every other dtype (float64, complex128, integers, bool). Each tier is one number (used for
    both rtol and atol) or an `(rtol, atol)` pair. Use: `check(f, x, **tolerance(x.dtype))`."""
    dtype = np.dtype(dtype)
    if dtype == np.float16:
        rtol, atol = _pair(half)
    elif dtype in (np.float32, np.complex64):
        rtol, atol = _pair(single)
    else:
        rtol, atol = _pair(double)
    return dict(rtol=rtol, atol=atol)


def random_array(rng, shape, dtype, lo=-5, hi=6):
    """Test data of any dtype: small integers (non-negative for unsigned), normal floats,
    complex with both parts set, random bools."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) > 0.5
    if dtype.kind in "iu":
        return rng.integers(0 if dtype.kind == "u" else lo, hi, size=shape).astype(dtype)
    x = rng.normal(size=shape)
    if dtype.kind == "c":
        x = x + 1j * rng.normal(size=shape)
    return np.asarray(x).astype(dtype)
