"""Typing across control flow: one dtype per variable for every branch and iteration,
chosen by NumPy 2 promotion (weak Python scalars per NEP 50), widened to a fixed point.
"""
import inspect

import numpy as np
import pytest
from differential import check

from npxla import jit

X = np.array([1.5, -2.0, 3.25, 0.5, 4.0])


def int_then_float_sum(x):
    s = 0
    for i in range(x.shape[0]):
        s = s + x[i]
    return s


def test_int_accumulator_becomes_float64():
    r = check(int_then_float_sum, X)
    assert type(r) is np.float64


def test_int_accumulator_keeps_small_dtype_with_weak_zero():
    assert check(int_then_float_sum, X.astype(np.int32)).dtype == np.int32
    assert check(int_then_float_sum, X.astype(np.float32)).dtype == np.float32
    check(int_then_float_sum, np.array([True, False, True]))     # bool + weak int -> int


def counter_widens(x):
    k = 0
    while k < 10:
        k = k + 0.5 * x[0]
    return k


def count_and_flag(x):
    flag = False
    n = 0
    for v in x:
        if v > 0:
            flag = True
            n += 1
    return flag, n


def test_loop_fixed_point():
    check(counter_widens, X)
    check(counter_widens, X.astype(np.float32))
    check(count_and_flag, X)


def int_or_float(c):
    if c > 0:
        y = 1
    else:
        y = 2.5
    return y


def test_int_float_branches_unify_to_weak_float():
    # NumPy returns the Python int 1 on the first path; a staged if has one type:
    # int and float (both weak) promote to a Python float.
    assert jit(int_or_float)(np.float64(1.0)) == 1.0
    assert type(jit(int_or_float)(np.float64(1.0))) is float
    r = jit(int_or_float)(np.float64(-1.0))
    assert r == 2.5 and type(r) is float


def numpy_scalars(c):
    if c > 0:
        y = np.int32(3)
    else:
        y = np.float32(2)
    return y


def test_strong_scalars_promote_like_numpy():
    r = jit(numpy_scalars)(np.float64(1.0))
    assert r == 3 and r.dtype == np.result_type(np.int32, np.float32) == np.float64


def keeps_float32(x, c):
    y = x.astype(np.float32)
    if c > 0:
        y = y * 2.0            # weak Python float: stays float32
    else:
        y = y + 1
    return y


def test_weak_python_scalars_do_not_widen():
    assert check(keeps_float32, X, np.float64(1.0)).dtype == np.float32
    assert check(keeps_float32, X, -1.0).dtype == np.float32


def float32_vs_float64(x, c):
    y = x.astype(np.float32)
    if c > 0:
        y = x.astype(np.float64)
    return y


def test_strong_dtypes_follow_the_path_taken():
    """Arrays of different dtypes on the paths of an `if` outside staged loops: the
    condition is assumed and checked, so the dtype is the one NumPy's path gives (it
    was promoted to float64 on both paths: float32 data came back as float64)."""
    assert check(float32_vs_float64, X, np.float64(-1.0)).dtype == np.float32
    assert check(float32_vs_float64, X, np.float64(1.0)).dtype == np.float64
    f = jit(float32_vs_float64)
    assert f(X, np.float64(-2.0)).dtype == np.float32 and f(X, np.float64(2.0)).dtype \
        == np.float64


def float32_vs_float64_in_a_loop(x, n):
    y = x.astype(np.float32)
    for i in range(n):
        if x[i] > 100.0:
            y = x.astype(np.float64)
    return y


def test_strong_dtypes_promote_inside_staged_loops():
    # a staged loop's body is one program for every iteration: promoted, as documented
    r = jit(float32_vs_float64_in_a_loop)(X, np.int64(3))
    assert r.dtype == np.float64
    np.testing.assert_array_equal(r, X.astype(np.float32).astype(np.float64))


def pick(a, b):
    if a > b:
        r = a
    else:
        r = b
    return r


def test_python_scalar_arguments_stay_python_scalars():
    assert type(check(pick, 1.5, 2.5)) is float
    assert type(check(pick, 3, 2)) is int
    assert type(check(pick, np.float32(1), np.float32(3))) is np.float32


def test_python_int_and_float_arguments_promote():
    r = jit(pick)(3, 2.5)          # NumPy/Python: the int 3
    assert r == 3.0 and type(r) is float


def complex_branch(x, c):
    y = x[0]
    if c > 0:
        y = 1j
    return y


def test_complex_branch():
    r = jit(complex_branch)(X, np.float64(-1.0))
    assert r == X[0] and r.dtype == np.complex128


def small_int_with_big_python_int(c):
    if c > 0:
        y = np.int8(3)
    else:
        y = 300
    return y


def small_int_with_python_int_in_range(c):
    if c > 0:
        y = np.int8(3)
    else:
        y = -128
    return y


def test_small_int_unified_with_weak_int_in_range():
    # int8 (strong) and a weak Python int that fits: one int8 result on both paths
    r = jit(small_int_with_python_int_in_range)(np.float64(1.0))
    assert r == 3 and type(r) is np.int8
    r = jit(small_int_with_python_int_in_range)(np.float64(-1.0))
    assert r == -128 and type(r) is np.int8


@pytest.mark.parametrize("c", [1.0, -1.0])
def test_weak_int_out_of_range_of_unified_dtype_is_a_located_error(c):
    # NumPy 2: `np.int8(3) + 300` raises OverflowError("Python integer 300 out of bounds
    # for int8"); unifying int8 with 300 across a staged if raises the same, located at
    # the if (while staging, so whichever path c selects)
    from npxla.transpiler.base.errors import IntegerOverflowError, TranspileError
    with pytest.raises(OverflowError) as info:
        jit(small_int_with_big_python_int)(np.float64(c))
    err = info.value
    assert isinstance(err, IntegerOverflowError) and isinstance(err, TranspileError)
    msg = str(err)
    lines, start = inspect.getsourcelines(small_int_with_big_python_int)
    lineno = start + next(k for k, s in enumerate(lines) if "if c > 0:" in s)
    assert msg.startswith(f"{__file__}:{lineno}:5\n        if c > 0:\n        ^^^^^^^^\n"), msg
    assert "IntegerOverflowError: Python integer 300 out of bounds for int8: 'y' is int8 " \
        "on another path of a data-dependent branch or loop" in msg, msg
    assert "int8" in err.hint


def weak_int_before_staged_loop(x, n):
    k = 300
    for i in range(n):
        k = np.int8(1)     # NumPy: k stays the Python int 300 when n == 0
    return k


def test_weak_int_before_staged_loop_out_of_range_of_loop_dtype_is_not_silent():
    from npxla.transpiler.base.errors import IntegerOverflowError
    with pytest.raises(OverflowError) as info:
        jit(weak_int_before_staged_loop)(X, np.int64(0))
    assert isinstance(info.value, IntegerOverflowError)
    msg = str(info.value)
    lines, start = inspect.getsourcelines(weak_int_before_staged_loop)
    lineno = start + next(k for k, s in enumerate(lines) if "for i in range(n):" in s)
    assert msg.startswith(f"{__file__}:{lineno}:5\n        for i in range(n):\n"), msg
    assert "Python integer 300 out of bounds for int8" in msg, msg


def zero_crossings(s):
    # PyEMD's _find_extrema_simple: positions as int64 on one path, rounded midpoints
    # (float64) on the other; NumPy's result is int64 for data without zeros
    ind = np.nonzero(s[:-1] * s[1:] < 0)[0]
    if np.any(s == 0):
        z = np.nonzero(s == 0)[0]
        ind = np.sort(np.append(ind, np.round(z / 1.0)))
    return ind


def test_a_branch_not_taken_does_not_change_the_dtype():
    with_zero = np.array([1.0, -1.0, 0.0, 2.0, -3.0])
    without = np.array([1.0, -1.0, 0.5, 2.0, -3.0])
    assert check(zero_crossings, without).dtype == np.int64
    assert check(zero_crossings, with_zero).dtype == np.float64
