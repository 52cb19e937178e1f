"""A user's exception class with an `__init__` of its own, raised on a data-dependent
path: the `__init__` is converted like any legacy method, so its side effects (a log
line) happen when the program raises, once, with the run's values, never while it is
staged; the exception raised carries the run's message in `args` and in the
attributes the `__init__` set; nothing of npxla's own control flow shows as its
context. (emd's `EMDSiftCovergeError` logs its message in `__init__`: under `@jit`,
`get_next_imf` printed `... after <traced int64> iterations` four times while staging.)
"""
import logging

import numpy as np
import pytest

from npxla import jit

logger = logging.getLogger("npxla.tests.user_exceptions")


class SiftError(Exception):
    def __init__(self, message):
        self.message = message
        logger.error(self.message)


class RangeError(ValueError):
    """Formats its message itself and passes it on through super()."""

    def __init__(self, what, value, limit=1.0):
        super().__init__("{0} = {1} exceeds {2}".format(what, value, limit))
        self.what = what
        self.value = value
        self.limit = limit


def halve_until_small(x, max_iters=5):
    n = 0
    while np.max(np.abs(x)) > 1e-3:
        if n > max_iters:
            raise SiftError("no convergence after {0} iterations".format(n))
        x = x * 0.5
        n += 1
    return x, n


def checked_total(x, limit):
    s = np.sum(x)
    if s > limit:
        raise RangeError("total", s, limit=limit)
    return s


def _outcome(fn, *args):
    try:
        return "ok", fn(*args)
    except Exception as e:        # noqa: BLE001 - compared with NumPy's
        return "raised", e


@pytest.fixture
def records(caplog):
    caplog.set_level(logging.ERROR, logger=logger.name)
    return caplog


def test_init_side_effects_happen_only_when_the_program_raises(records):
    f = jit(halve_until_small)
    small = np.array([0.01, 0.002])
    for _ in range(3):                          # staged, then the fast path
        got = f(small)
        want = halve_until_small(small)
        np.testing.assert_array_equal(got[0], want[0])
        assert got[1] == want[1] and type(got[1]) is type(want[1])
    assert records.messages == []               # nothing logged while staging
    for _ in range(2):
        records.clear()
        with pytest.raises(SiftError) as got:
            f(np.array([1000.0, 2.0]))
        assert records.messages == ["no convergence after 6 iterations"]
        assert str(got.value) == "no convergence after 6 iterations"
        assert got.value.message == "no convergence after 6 iterations"
        assert got.value.__context__ is None and got.value.__cause__ is None
    records.clear()
    with pytest.raises(SiftError):
        halve_until_small(np.array([1000.0, 2.0]))
    assert records.messages == ["no convergence after 6 iterations"]


def test_init_through_super_with_keyword_arguments():
    f = jit(checked_total)
    x = np.array([0.25, 0.5])
    for _ in range(3):
        assert f(x, 1.0) == checked_total(x, 1.0)
    for bad in (np.array([0.75, 0.5]), np.array([2.0, 3.0])):
        kind, want = _outcome(checked_total, bad, 1.0)
        with pytest.raises(RangeError) as got:
            f(bad, 1.0)
        assert kind == "raised"
        assert str(got.value) == str(want)
        assert got.value.args == want.args
        for name in ("what", "value", "limit"):      # the run's values, NumPy's types
            assert getattr(got.value, name) == getattr(want, name)
            assert type(getattr(got.value, name)) is type(getattr(want, name))
        assert got.value.__context__ is None


class WindowError(Exception):
    def __init__(self, where, window):
        super().__init__("bad window at {0}".format(where))
        self.where = where
        self.window = window


def first_negative_window(x, width):
    for i in range(x.shape[0] - width + 1):
        w = x[i:i + width]
        if np.min(w) < -1.0:
            raise WindowError(i, w * 2.0)
    return 0


def test_array_and_int_attributes_hold_the_runs_values():
    f = jit(first_negative_window)
    ok = np.linspace(0.0, 1.0, 12)
    assert f(ok, 3) == first_negative_window(ok, 3)
    bad = ok.copy()
    bad[7] = -4.0
    _, want = _outcome(first_negative_window, bad, 3)
    with pytest.raises(WindowError) as got:
        f(bad, 3)
    assert str(got.value) == str(want) == "bad window at 5"
    assert got.value.where == want.where and type(got.value.where) is type(want.where)
    np.testing.assert_array_equal(got.value.window, want.window)
    assert type(got.value.window) is np.ndarray


def over_limit(x):
    s = 0.0
    for i in range(x.shape[0]):                 # a staged loop: the `if` is staged
        s += x[i]
        if s > 10.0:
            raise SiftError("over the limit")  # no run-time values in the message
    return s


def test_init_of_a_constant_message_runs_when_it_raises(records):
    f = jit(over_limit)
    for _ in range(2):
        assert f(np.ones(3)) == over_limit(np.ones(3))
    assert records.messages == []
    with pytest.raises(SiftError) as got:
        f(np.full(3, 5.0))
    assert records.messages == ["over the limit"]
    assert got.value.message == "over the limit" and got.value.__context__ is None


def over_sum(x):
    if np.sum(x) > 10.0:                       # a data-dependent `if` outside loops
        raise SiftError("sum {0} over the limit".format(np.sum(x)))
    return np.sum(x)


def bad_mode(x, mode):
    if mode not in ("a", "b"):                  # decided while staging
        raise SiftError("bad mode {0}".format(mode))
    return x * 2.0


def test_top_level_branch_logs_only_when_it_raises(records):
    f = jit(over_sum)
    for _ in range(2):
        assert f(np.ones(3)) == over_sum(np.ones(3))
    assert records.messages == []
    with pytest.raises(SiftError, match="sum 15.0 over the limit"):
        f(np.full(3, 5.0))
    assert records.messages == ["sum 15.0 over the limit"]


def test_a_raise_decided_while_staging_logs_as_python_does(records):
    with pytest.raises(SiftError, match="bad mode c"):
        jit(bad_mode, static_argnums=1)(np.ones(2), "c")
    assert records.messages == ["bad mode c"]
