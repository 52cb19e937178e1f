"""Clocks in compiled code are read when the program runs, once per pass, as Python
floats (ints for the `_ns` forms): never the value they had while compiling."""
import time

import numpy as np
import pytest

from npxla import jit
from npxla.transpiler.base.errors import ConcretizationError


CLOCKS = [time.time, time.perf_counter, time.monotonic, time.process_time]


def timed(x):
    t0 = time.perf_counter()
    y = np.sort(x) * 2
    t1 = time.perf_counter()
    return y, t0, t1, t1 - t0


def test_perf_counter_is_read_per_call():
    g = jit(timed)
    before = time.perf_counter()
    y, t0, t1, dt = g(np.arange(5.0))
    after = time.perf_counter()
    np.testing.assert_array_equal(y, timed(np.arange(5.0))[0])
    assert type(t0) is float and type(dt) is float
    assert before <= t0 <= t1 <= after and dt == t1 - t0 and dt >= 0
    _, s0, s1, _ = g(np.arange(5.0))       # the cached executable reads again
    assert s0 >= t1 and s1 >= s0 and s0 != t0


@pytest.mark.parametrize("clock", CLOCKS)
def test_each_clock_at_run_time(clock):
    def f(x):
        return x + 1, clock()
    g = jit(f)
    _, a = g(np.ones(2))
    lo = clock()
    _, b = g(np.ones(2))
    hi = clock()
    assert type(a) is float and type(b) is float
    assert a <= lo <= b <= hi


def test_ns_clocks_are_python_ints():
    def f(x):
        return x, time.perf_counter_ns(), time.monotonic_ns()
    _, a, b = jit(f)(np.ones(1))
    assert type(a) is int and type(b) is int and a <= time.perf_counter_ns()


def test_clock_in_print_and_branch(capsys):
    def f(x):
        t = time.time()
        if x.sum() > 0:
            t = time.time()
        print("elapsed ok:", time.time() - t >= 0)
        return x
    jit(f)(np.ones(2))
    assert capsys.readouterr().out == "elapsed ok: True\n"


def test_clock_as_static_value_is_refused_located():
    def f(x):
        return x, "abc"[int(time.time()) % 3]
    with pytest.raises(ConcretizationError) as info:
        jit(f)(np.arange(4.0))
    assert '"abc"[int(time.time()) % 3]' in str(info.value)


def test_clock_arguments_are_pythons_error():
    def f(x):
        return x, time.time(1)
    with pytest.raises(TypeError):
        jit(f)(np.ones(1))
