"""Run-time checks inside staged loops: the loop carries one code (which check of the
iteration that raised failed first), stops at that iteration, and the call raises
NumPy's exception for it."""
import numpy as np
import pytest

from npxla import jit


def _two_checks(x, idx, n):
    total = 0.0
    for i in range(n):
        total += x[idx[i]]          # IndexError when idx[i] is out of bounds
        total += n // (i - 3)       # ZeroDivisionError... of Python ints at i == 3
    return total


def _first_in_order(x, idx):
    acc = np.zeros(2)
    for i in range(idx.shape[0]):
        acc[0] += x[idx[i]]         # checked first
        acc[1] += x[idx[i] + 1]     # checked second
    return acc


@pytest.mark.parametrize("bad", [None, 0, 1, 2, 4])
def test_the_failing_check_of_the_raising_iteration_is_reported(bad):
    x = np.arange(5.0)
    idx = np.array([0, 1, 2, 3, 4])
    if bad is not None:
        idx[bad] = 7
    want = None
    try:
        want = _two_checks(x, idx, 5)
    except (IndexError, ZeroDivisionError) as e:
        want = type(e)
    f = jit(_two_checks)
    if isinstance(want, type):
        with pytest.raises(want):
            f(x, idx, 5)
    else:
        assert f(x, idx, 5) == want


def test_two_checks_failing_in_one_iteration_report_the_first():
    x = np.arange(4.0)
    with pytest.raises(IndexError, match="index 9 is out of bounds"):
        jit(_first_in_order)(x, np.array([1, 9]))
    with pytest.raises(IndexError, match="index 4 is out of bounds"):
        jit(_first_in_order)(x, np.array([0, 3]))
    np.testing.assert_array_equal(jit(_first_in_order)(x, np.array([0, 2])),
                                  _first_in_order(x, np.array([0, 2])))


def test_a_loop_carries_one_check_code():
    text = jit(_two_checks).lower(np.arange(5.0), np.arange(5), 5).as_text()
    loop = text[text.index("stablehlo.while"):]
    header = loop[:loop.index("\n")]
    assert header.count("tensor<i32>") == 1
    assert "tensor<i1>, tensor<i1>, tensor<i1>" not in header


def _segment_sums(indptr, data):
    out = np.zeros(indptr.shape[0] - 1)
    for i in range(indptr.shape[0] - 1):
        s = 0.0
        for k in range(indptr[i], indptr[i + 1]):
            s += data[k] * (k + 1)
        out[i] = s
    return out


def test_a_bad_segment_still_raises():
    indptr, data = np.array([0, 3, 12]), np.arange(10.0)
    with pytest.raises(IndexError) as expected:
        _segment_sums(indptr, data)
    with pytest.raises(IndexError) as got:
        jit(_segment_sums)(indptr, data)
    assert str(got.value).splitlines()[0] == str(expected.value)


# --- a loop whose every trip raises after a run-time check (fuzzer, seed 7410955) --------

def _halve_large(a):
    a[a > 3] -= 2          # ValueError when `a` is read-only


def _assert_then_write(x, y, z):
    for _ in range(y.shape[0]):          # a static trip count: the loop surely runs
        assert np.mean(z) < -2
        _halve_large(x)
    return x


def _assert_then_write_traced(x, n, z):
    for _ in range(n[0]):                # a run-time trip count: it may not run
        assert np.mean(z) < -2
        _halve_large(x)
    return x


def _read_only(a):
    a = a.copy()
    a.setflags(write=False)
    return a


@pytest.mark.parametrize("fn,count", [(_assert_then_write, np.zeros(4)),
                                      (_assert_then_write_traced, np.array([4])),
                                      (_assert_then_write_traced, np.array([0]))],
                         ids=["static", "traced", "no trips"])
@pytest.mark.parametrize("mean", [0.5, -3.0], ids=["assert fails", "assert holds"])
def test_checks_before_a_raise_in_every_trip_fire_first(fn, count, mean):
    """NumPy raises the AssertionError of the first trip when its condition fails, the
    read-only ValueError when it holds, nothing when no trip runs."""
    x = _read_only(np.arange(8.0).reshape(2, 4))
    z = np.full(4, mean)
    try:
        fn(x, count, z)
        want = None
    except (AssertionError, ValueError) as e:
        want = type(e)
    if want is None:
        np.testing.assert_array_equal(jit(fn)(x, count, z), x)
    else:
        with pytest.raises(want):
            jit(fn)(x, count, z)
