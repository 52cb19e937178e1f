"""0-d results of one element type leave the program as one vector output
(`driver/packing.py`): the caller gets what NumPy returns (Python scalars, NumPy scalars,
0-d arrays, their dtypes), on the first call, on the fast path after it, on the general
path (dict results, run-time checks) and with output="device", and the module has one
output per element type instead of one per scalar."""
import numpy as np
import pytest

from differential import check
from npxla import jit

RNG = np.random.default_rng(57)


def statistics(x):
    return x.mean(), x.std(), x.min(), x.max(), np.argmax(x), np.argmin(x)


def mixed_kinds(x):
    """Python int and float (weak), NumPy float64, float32 and bool scalars, a 0-d
    array, and an array, in one tuple."""
    n = 0
    s = 0.0
    for v in x:
        if v > 0:
            n += 1
            s += float(v)
    return (n, s, x.sum(), np.float32(x[0]) * np.float32(2), x[1] > x[2],
            np.asarray(x.max()), x * 2.0, x[3] < 0)


def nested(x):
    return {"sum": x.sum(), "range": (x.max(), x.min()), "scaled": x / 3.0, "n": x.size}


def picked(x, i, j):
    """`x[i]` and `x[j]` are checked at run time (an IndexError names the index)."""
    return x[i] * 2.0, x[j] + 1.0, x[i] > x[j]


def output_types(fn, *args):
    """The types of the staged module's entry function's outputs."""
    text = jit(fn).lower(*args).as_text()
    signature = text.split("func.func public @main", 1)[1].split("{", 1)[0]
    return [t.strip().rstrip(")").strip() for t in
            signature.split("->", 1)[1].strip().lstrip("(").split(",")]


@pytest.mark.parametrize("fn", [statistics, mixed_kinds, nested])
def test_results_are_numpys_on_every_call(fn):
    x = RNG.standard_normal(40)
    for _ in range(3):          # the first call, then the fast path's runner
        check(fn, x, rtol=1e-13)


def test_one_output_per_element_type():
    x = RNG.standard_normal(40)
    assert output_types(statistics, x) == ["tensor<4xf64>", "tensor<2xi64>"]
    # the Python int (a weak int64) and the float32 stay alone; the float64 scalars and
    # the 0-d array are one vector, the two bools another (the loop's run-time check
    # adds its flags after the results)
    types = output_types(mixed_kinds, x)
    assert types[:5] == ["tensor<i64>", "tensor<f32>", "tensor<40xf64>", "tensor<3xf64>",
                         "tensor<2xi1>"]


def test_results_are_fresh_objects():
    x = RNG.standard_normal(10)
    f = jit(mixed_kinds)
    first, second = f(x), f(x)
    assert first[5] is not second[5] and first[5].flags.writeable
    first[5][...] = 7.0
    assert f(x)[5] == x.max()


@pytest.mark.parametrize("i, j", [(1, 2), (-1, 3), (12, 0), (0, -13)])
def test_with_run_time_checks(i, j):
    x = RNG.standard_normal(12)
    if -12 <= i < 12 and -12 <= j < 12:
        check(picked, x, i, j, rtol=0)
        return
    with pytest.raises(IndexError) as expected:
        picked(x, i, j)
    with pytest.raises(IndexError) as got:
        jit(picked)(x, i, j)
    assert str(got.value).splitlines()[0] == str(expected.value)


def test_left_on_the_device():
    x = RNG.standard_normal(40)
    f = jit(statistics, output="device")
    want = statistics(x)
    for _ in range(3):          # the first call, then the fast path's runner
        got = f(x)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert np.shape(g) == () and np.asarray(g).dtype == np.asarray(w).dtype
            np.testing.assert_allclose(np.asarray(g), w, rtol=1e-13)
