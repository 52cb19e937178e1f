"""Threads calling jitted functions at once: staging state is per trace (the journal,
the unrolled-loop policy), each signature compiles once, every thread gets NumPy's
answer."""
import sys
import threading
import warnings

import numpy as np
import pytest

import npxla.runtime.driver.jitted as jitted_module


def jit(fn):
    """A fresh jitted function (npxla.jit shares one object per function)."""
    return jitted_module.JittedFunction(fn)


N_THREADS = 8


@pytest.fixture
def stagings(monkeypatch):
    """Counts staging runs (each is one compile of one signature). The disk cache is
    off here whatever the environment says: a hit would skip a staging."""
    monkeypatch.setenv("NPXLA_CACHE_DIR", "off")
    count = {"n": 0}
    lock = threading.Lock()
    real = jitted_module.stage

    def counting(*args, **kwargs):
        with lock:
            count["n"] += 1
        return real(*args, **kwargs)
    monkeypatch.setattr(jitted_module, "stage", counting)
    return count


@pytest.fixture(autouse=True)
def frequent_switches():
    """Switch threads every few microseconds, so staging runs really interleave."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    yield
    sys.setswitchinterval(before)


def run_threads(target, n=N_THREADS):
    """Run target(i) in n threads released together; returns results in order and
    re-raises the first exception."""
    barrier = threading.Barrier(n)
    results, errors = [None] * n, []

    def body(i):
        try:
            barrier.wait()
            results[i] = target(i)
        except BaseException as e:      # noqa: B902 - reported below
            errors.append(e)
    threads = [threading.Thread(target=body, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    if errors:
        raise errors[0]
    return results


def _kernel(x, y):
    # a data-dependent loop (journal: the in-place update inside the staged region)
    # and a data-dependent branch
    s = np.zeros_like(x)
    i = 0
    while np.sum(s) < np.sum(y) * 3 and i < 50:
        s = s + np.abs(x) + 1.0
        i += 1
    t = s * 2
    if x[0] > 0:
        t[0] = -1.0
    return t, i


def test_one_fresh_function_from_eight_threads_compiles_once(stagings):
    f = jit(_kernel)
    x, y = np.arange(1.0, 5.0), np.ones(4)
    results = run_threads(lambda i: f(x, y))
    expected = _kernel(x, y)
    for got in results:
        np.testing.assert_allclose(got[0], expected[0])
        assert got[1] == expected[1]
    assert stagings["n"] == 1


def test_eight_signatures_from_eight_threads_compile_once_each(stagings):
    f = jit(_kernel)
    inputs = [(np.linspace(-1.0, 2.0, n + 2), np.full(n + 2, 0.5)) for n in range(N_THREADS)]
    results = run_threads(lambda i: f(*inputs[i]))
    for (x, y), got in zip(inputs, results):
        expected = _kernel(x, y)
        np.testing.assert_allclose(got[0], expected[0])
        assert got[1] == expected[1]
    assert stagings["n"] == N_THREADS
    run_threads(lambda i: f(*inputs[i]))          # all cached now
    assert stagings["n"] == N_THREADS


def _windows(x):
    # the loop index is needed as a slice bound: staging restarts with the loop
    # unrolled (a policy that must stay on this thread's trace)
    out = np.zeros(4)
    for i in range(4):
        out[i] = np.sum(x[:i + 1]) * (i + 1)
    return out


def _running(x):
    # a loop over a static range whose body computes with arrays: one XLA loop,
    # unless another thread's unrolling policy leaked into this trace
    acc = np.zeros_like(x)
    for i in range(6):
        acc = acc * 0.5 + x
        acc[0] += 1.0
    return acc


def test_different_functions_stage_concurrently_without_sharing_state(stagings):
    funcs = [_kernel, _windows, _running] * 3
    funcs = funcs[:N_THREADS]
    jitted = [jit(f) for f in funcs]
    x, y = np.arange(1.0, 5.0), np.ones(4)

    def call(i):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return jitted[i](x, y) if funcs[i] is _kernel else jitted[i](x)
    for _ in range(2):
        results = run_threads(call)
        for f, got in zip(funcs, results):
            expected = f(x, y) if f is _kernel else f(x)
            if f is _kernel:
                np.testing.assert_allclose(got[0], expected[0])
                assert got[1] == expected[1]
            else:
                np.testing.assert_allclose(got, expected)


def test_threads_see_their_own_global_values():
    # the guard reads the environment at each call; a rebinding in one thread is
    # seen by calls that start after it
    f = jit(_scaled_by_global)
    x = np.ones(3)
    assert np.allclose(f(x), 2.0)
    results = run_threads(lambda i: f(x))
    assert all(np.allclose(r, 2.0) for r in results)


FACTOR = 2.0


def _scaled_by_global(x):
    return x * FACTOR


def test_journal_and_unrolling_policy_belong_to_each_trace():
    # two traces open at once in two threads: neither sees the other's open region
    # scopes, handle stamps or unrolled loops (no staging lock involved)
    from npxla.runtime.staging import journal
    from npxla.runtime.operators import loops
    from npxla.runtime.staging.trace import Trace
    code_a, code_b = _windows.__code__, _running.__code__
    barrier = threading.Barrier(2)
    seen = {}

    def a():
        with Trace(unrolled={code_a}):
            journal.push()
            journal.push()
            barrier.wait()          # b runs its checks while a's scopes are open
            barrier.wait()
            seen["a"] = (len(journal._scopes), journal.serial, code_a in loops._unrolled,
                         code_b in loops._unrolled)

    def b():
        barrier.wait()
        with Trace(unrolled={code_b}):
            seen["b"] = (len(journal._scopes), journal.serial, code_a in loops._unrolled,
                         code_b in loops._unrolled)
        barrier.wait()
    threads = [threading.Thread(target=a), threading.Thread(target=b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert seen["a"] == (2, 2, True, False)
    assert seen["b"] == (0, 0, False, True)
    assert journal._scopes == [] and journal.serial == 0 and code_a not in loops._unrolled
