"""Exception messages built from traced values (f-strings, `%`, `str.format`) show the
run's values, as NumPy code's messages do (they showed `<traced float64>`)."""
from __future__ import annotations

import numpy as np
import pytest

from npxla import jit


def negative(x):
    if x.min() < 0:
        raise ValueError(f"negative value {x.min():.3f} at {np.argmin(x)} of {x.shape}")
    return x * 2


def in_else(x):
    if x.sum() < 100:
        y = x + 1
    else:
        raise OverflowError(f"sum {x.sum()!r} too large; max {x.max()}")
    return y


def passing_ten(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i]
        if s > 10:
            raise RuntimeError("sum %.2f passed 10 at step %d" % (s, i))
    return s


def writes_then_raises(x, n):
    if x.sum() > 0:
        x[0] = 100.0
        raise ValueError("total {} exceeds, n={}, head {}".format(x.sum(), n, x[:3]))
    return x


def kinds(x):
    if x[0] > 0:
        raise ValueError(f"{x[0]} {x[0] > 1} {int(x[1])} {x.astype(np.float32)[2]} "
                         f"{np.float32(x[0]) * 2} {x[:2]}")
    return x


def too_big(x):
    if x.sum() > 0:
        raise ValueError(f"values {x}")
    return x


def _message(fn, *args):
    with pytest.raises(Exception) as info:
        fn(*args)
    return type(info.value), str(info.value)


@pytest.mark.parametrize("fn, args", [
    (negative, (np.array([1.0, -2.5, 3.0]),)),
    (in_else, (np.arange(20.0),)),
    (passing_ten, (np.arange(10.0),)),
    (writes_then_raises, (np.ones(5), 3)),
    (kinds, (np.array([1.5, 2.7, 0.1]),)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_message_shows_the_values_of_the_run(fn, args):
    expected = _message(fn, *[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    assert _message(jit(fn), *args) == expected
    assert "<traced" not in expected[1]


def test_values_of_each_run_and_no_raise_when_not_taken():
    f = jit(negative)
    assert _message(f, np.array([-1.0, 2.0]))[1] == "negative value -1.000 at 0 of (2,)"
    assert _message(f, np.array([3.0, -7.25]))[1] == "negative value -7.250 at 1 of (2,)"
    np.testing.assert_array_equal(f(np.array([1.0, 2.0])), [2.0, 4.0])


def test_the_callers_arrays_are_untouched_when_the_program_raises():
    """NumPy wrote x[0] before raising; a compiled program that raises writes nothing
    back (docs/semantics.md)."""
    x = np.ones(5)
    with pytest.raises(ValueError, match="head \\[100."):
        jit(writes_then_raises)(x, 3)
    np.testing.assert_array_equal(x, np.ones(5))


def test_a_large_array_in_a_message_stays_a_placeholder():
    with pytest.raises(ValueError, match="<traced float64\\[100\\]>"):
        jit(too_big)(np.ones(100))
