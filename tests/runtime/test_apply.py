"""np.apply_along_axis, np.apply_over_axes and np.piecewise with functions of the user's
(converted: their branches on data compile), against NumPy: values, dtypes, shapes, the
caller's arrays after the call (a function writing into its slice writes into the array),
and NumPy's errors.

Found in pyrr (`sphere.create_from_points`: `np.apply_along_axis(np.sum, ...)`, refused
before). np.piecewise gave every function the whole array and selected its results: a
function of the whole selection (a norm) differed silently from NumPy's."""
import numpy as np
import pytest

from differential import check
from npxla import jit

RNG = np.random.default_rng(7)
A = RNG.standard_normal((4, 5))
B = RNG.standard_normal((2, 3, 4))
I = RNG.integers(-5, 6, (3, 4))


def _clipnorm(v):
    n = np.sqrt((v * v).sum())
    if n > 1.0:
        return v / n
    return v


def _count_positive(v):
    c = 0
    for x in v:
        if x > 0:
            c += 1
    return c


def _mark_first(v):
    v[0] = 99.0
    return v.sum()


def _top(v, k=2):
    return np.sort(v)[-k:]


def _sum_rows(a):
    return np.apply_along_axis(np.sum, 1, a)


def _clip_columns(a):
    return np.apply_along_axis(_clipnorm, 0, a)


def _top_last(a):
    return np.apply_along_axis(_top, -1, a, k=3)


def _count_rows(a):
    return np.apply_along_axis(_count_positive, 1, a)


def _spread(a):
    return np.apply_along_axis(lambda v: v.max() - v.min(), 0, a)


def _mark_rows(a):
    return np.apply_along_axis(_mark_first, 1, a)


def _diff_rows(a):
    return np.apply_along_axis(np.diff, 1, a)


def _outer_last(a):
    return np.apply_along_axis(lambda v: np.outer(v, v), 2, a)


def _first_positive(a):
    return np.apply_along_axis(lambda v: v[0] > 0, 1, a)


def _python_numbers(a):
    # the first result (a float) fixes the dtype: the ints after it are cast
    return np.apply_along_axis(lambda v: 1.5 if v[0] > 0 else 2, 1, a)


def _sum_or_half(v):
    if v[0] < 2:
        return v.sum()
    return v.sum() + 0.5


def _int_then_float(a):
    # the first result fixes the dtype: later floats are truncated into its int64
    return np.apply_along_axis(_sum_or_half, 0, a)


def _over_axes(a):
    return np.apply_over_axes(np.sum, a, [0, 2])


def _over_axes_mean(a):
    return np.apply_over_axes(np.mean, a, -1)


@pytest.mark.parametrize("fn,x", [
    (_sum_rows, A), (_sum_rows, B), (_clip_columns, A), (_clip_columns, A * 0.01),
    (_top_last, A), (_count_rows, A), (_count_rows, I), (_spread, A), (_mark_rows, A),
    (_diff_rows, I), (_outer_last, B), (_first_positive, A), (_python_numbers, A),
    (_int_then_float, I), (_over_axes, B), (_over_axes_mean, B),
], ids=lambda v: getattr(v, "__name__", "x"))
def test_apply_matches_numpy(fn, x):
    check(fn, x)


def _empty_axis(a):
    return np.apply_along_axis(np.sum, 1, a[:0])


def _ragged(a):
    return np.apply_along_axis(lambda v: v[:2] if v[0] > 100 else v[:3], 1, a)


def test_numpys_errors_at_the_users_line():
    with pytest.raises(ValueError, match="iteration dimensions are 0"):
        check(_empty_axis, A)
    with pytest.raises(np.exceptions.AxisError):
        check(lambda a: np.apply_along_axis(np.sum, 2, a), A)
    with pytest.raises(ValueError) as info:     # a later slice's result of another shape
        jit(_ragged)(A * 1000.0)
    notes = "\n".join(getattr(info.value, "__notes__", [])) + str(info.value)
    assert __file__ in notes and "numpy_callbacks" not in notes


def test_one_call_of_the_function_is_staged_however_many_slices():
    """The slices are a staged loop (here made array work across the rows): 2,000 rows
    compile as the first call and one traced call for the rest (unrolled, a call per
    row), and the run agrees."""
    x = RNG.standard_normal((2000, 3))
    check(_clip_rows, x)
    text = jit(_clip_rows).lower(x).as_text()
    assert text.count("stablehlo.sqrt") <= 4 and len(text) < 100_000


def _clip_rows(a):
    return np.apply_along_axis(_clipnorm, 1, a)


def _piecewise_norm(a):
    return np.piecewise(a, [a < 0, a >= 0], [lambda x: -x, _clipnorm])


def _piecewise_mean_otherwise(a):
    return np.piecewise(a, [a < -0.5], [lambda x: x - x.mean(), 7.0])


def _piecewise_ufunc(a):
    return np.piecewise(a, [a < 0, a > 1], [np.negative, np.sqrt, 0.5])


def _piecewise_args(a):
    return np.piecewise(a, [a > 0], [lambda x, k: x * k + x.max()], 3.0)


@pytest.mark.parametrize("fn", [_piecewise_norm, _piecewise_mean_otherwise,
                                _piecewise_ufunc, _piecewise_args])
@pytest.mark.parametrize("x", [A, A * 0.1, -np.abs(A)], ids=["mixed", "small", "negative"])
def test_piecewise_gives_functions_the_selection(fn, x):
    check(fn, x)
