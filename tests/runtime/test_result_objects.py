"""Objects in a jitted function's result (issue 34): an object the call made is a new
object on every call, with the run's values in its attributes (never a staging
handle); an object from before the call (`return self`) is the caller's object itself,
with the call's changes replayed; one array returned twice is one object, as in NumPy."""
import numpy as np

from npxla import jit
from npxla.runtime.staging.abstract import AbstractArray


class Result:
    def __init__(self, tag):
        self.tag = tag
        self.history = []


def make_result(x):
    r = Result("r")
    r.mean = x * 2
    r.history.append(len(x))
    r.inner = Result("inner")
    r.inner.total = x.sum()
    return r, r.mean


class Model:
    def __init__(self):
        self.w = np.zeros(3)
        self.steps = 0

    def fit(self, x):
        self.w = self.w + x
        self.steps += 1
        return self


def twice(x):
    y = x * 2
    return y, y


def _no_handles(obj, depth=0):
    assert not isinstance(obj, AbstractArray)
    if depth < 3 and hasattr(obj, "__dict__"):
        for v in vars(obj).values():
            _no_handles(v, depth + 1)


def test_an_object_made_in_the_call_is_new_with_the_runs_values():
    f = jit(make_result)
    seen = []
    for k in range(3):
        x = np.arange(3.0) + k
        r, mean = f(x)
        expected, _ = make_result(x)
        _no_handles(r)
        assert type(r) is Result and r.tag == "r" and r.history == [3]
        np.testing.assert_array_equal(r.mean, expected.mean)
        assert r.inner.total == expected.inner.total
        assert r.mean is mean                      # one array, as in NumPy
        seen.append(r)
    assert seen[0] is not seen[1] and seen[0].history is not seen[1].history
    np.testing.assert_array_equal(seen[0].mean, [0.0, 2.0, 4.0])   # not overwritten


def test_returning_self_gives_the_callers_object():
    m, ref = Model(), Model()
    g = jit(m.fit)
    for k in range(3):
        x = np.arange(3.0) + k
        assert g(x) is m
        ref.fit(x)
        np.testing.assert_array_equal(m.w, ref.w)
        assert m.steps == ref.steps
    _no_handles(m)


def test_one_array_returned_twice_is_one_object():
    a, b = jit(twice)(np.ones(3))
    assert a is b
    np.testing.assert_array_equal(a, 2 * np.ones(3))
