"""Python side effects on objects that outlive the call (runtime/operators/effects.py):
attribute stores, `global` rebinding and list/dict/set mutations are replayed after
every run with the run's values, exactly as NumPy leaves those objects; no traced
value ever reaches them; inside data-dependent control flow they are refused, located.

Every case runs the same function plainly and under @jit on twin objects, twice (the
second call is served from the cache and must replay again), and compares results and
the objects afterwards."""
import collections
import copy
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from npxla import jit
from npxla.runtime.staging.abstract import AbstractArray
from npxla.transpiler.base.errors import TranspileError, UnsupportedOperationError

from differential import _compare


class Filter:
    """A Kalman-style filter that keeps its state on attributes."""

    def __init__(self, n):
        self.x = np.zeros(n)
        self.P = np.eye(n)
        self.F = np.eye(n) * 0.9 + np.eye(n, k=1) * 0.1
        self.Q = np.eye(n) * 0.01
        self.steps = 0
        self.history = []

    def predict(self, u):
        self.x = self.F @ self.x + u
        self.P = self.F @ self.P @ self.F.T + self.Q
        self.steps += 1
        self.history.append(self.x.sum())
        return self.x

    def update(self, z, R=0.5):
        S = self.P + R * np.eye(len(self.x))
        K = self.P @ np.linalg.inv(S)
        self.x = self.x + K @ (z - self.x)
        self.P = (np.eye(len(self.x)) - K) @ self.P
        self.last_innovation = z - self.x      # a new attribute
        return self.x


def _state(obj):
    return {k: copy.copy(v) for k, v in vars(obj).items()}


def _no_traced(tree, seen=None):
    """Whether `tree` (objects, containers) holds no traced value anywhere."""
    seen = set() if seen is None else seen
    if id(tree) in seen:
        return True
    seen.add(id(tree))
    if isinstance(tree, AbstractArray):
        return False
    if isinstance(tree, (list, tuple, set)):
        return all(_no_traced(v, seen) for v in tree)
    if isinstance(tree, dict):
        return all(_no_traced(v, seen) for v in tree.values())
    if hasattr(tree, "__dict__") and not isinstance(tree, type):
        return all(_no_traced(v, seen) for v in vars(tree).values())
    return True


@pytest.mark.parametrize("method", ["predict", "update"])
def test_methods_that_set_attributes(method):
    plain, staged = Filter(3), Filter(3)
    run = jit(getattr(staged, method))
    for k in range(3):
        arg = np.arange(3.0) + k
        want = getattr(plain, method)(arg)
        got = run(arg)
        _compare(want, got, 1e-12, 1e-12)
        _compare(_state(plain), _state(staged), 1e-12, 1e-12, "state")
        assert got is staged.x          # the returned array is the stored one
    assert staged.steps == plain.steps
    assert _no_traced(staged)


def test_a_program_served_for_another_object_changes_that_object():
    """One jitted function, two instances passed as an argument: each call's effects
    land on the call's own object."""
    def step(f, u):
        f.x = f.F @ f.x + u
        f.history.append(f.x.max())
        return f.x.sum()

    run = jit(step)
    a, b, a0, b0 = Filter(2), Filter(2), Filter(2), Filter(2)
    for obj, ref in ((a, a0), (b, b0), (a, a0)):
        u = np.array([1.0, 2.0])
        assert run(obj, u) == step(ref, u)
    for obj, ref in ((a, a0), (b, b0)):
        _compare(_state(ref), _state(obj), 1e-12, 1e-12, "state")


def record_history(x, history, stats, tags):
    for i in range(4):
        x = x * 0.5 + 1.0
        history.append(float(i))
        history.append(x.sum())
    history.extend([x.min(), x.max()])
    history.insert(0, -1.0)
    first = history.pop(0)
    stats["max"] = x.max()
    stats["n"] = len(history)
    stats.update(mean=x.mean())
    stats["n"] += 1
    tags.add("done")
    return x * first


def test_outside_containers_are_mutated_as_numpy_would():
    def fresh():
        return [], {"old": 1.0}, set()

    run = jit(record_history)
    for k in range(2):
        x = np.linspace(0.0, 1.0, 5) + k
        h0, s0, t0 = fresh()
        h1, s1, t1 = fresh()
        want = record_history(x.copy(), h0, s0, t0)
        got = run(x.copy(), h1, s1, t1)
        _compare(want, got, 1e-12, 1e-12)
        _compare(h0, h1, 1e-12, 1e-12, "history")
        _compare(s0, s1, 1e-12, 1e-12, "stats")
        assert t0 == t1
        assert _no_traced([h1, s1])


LOG = []
CALLS = 0


def impure(x):
    LOG.append(x)
    return x * 2


def count_calls(x):
    global CALLS
    CALLS += 1
    total = x.sum() + CALLS      # reads the new value in the same call
    return total


def test_global_list_and_global_counter():
    global CALLS
    LOG.clear()
    CALLS = 0
    run = jit(impure)
    a, b = np.ones(2), np.zeros(2)
    run(a)
    run(b)
    assert len(LOG) == 2 and LOG[0] is a and LOG[1] is b     # the caller's arrays
    counted = jit(count_calls)
    assert counted(np.ones(3)) == 4.0 and CALLS == 1
    assert counted(np.ones(3)) == 5.0 and CALLS == 2
    assert type(CALLS) is int


class Timer:
    def __init__(self):
        self.count = 0
        self.total = 0.0

    @property
    def mean(self):
        return self.total / max(self.count, 1)

    @mean.setter
    def mean(self, value):
        self.total = value * max(self.count, 1)


def use_property(t, x):
    t.count += 1
    t.total += x.sum()
    t.mean = t.mean * 2.0
    return t.mean


def test_property_setter_is_converted_and_its_stores_replayed():
    a, b = Timer(), Timer()
    run = jit(use_property)
    for _ in range(2):
        x = np.arange(4.0)
        assert run(a, x) == use_property(b, x)
        assert (a.count, a.total) == (b.count, b.total)
        assert type(a.total) is type(b.total)


def branchy(f, x):
    if x.sum() > 0:
        f.steps += 1
        f.x = x * 2
        if x[0] > 1:
            f.P = f.P * x[0]
    else:
        f.steps -= 1
    return f.steps


@pytest.mark.parametrize("values", [[1.0, 2.0], [2.0, 2.0], [-1.0, -2.0]])
def test_attribute_stores_in_data_dependent_branches_are_carried(values):
    """`if c: self.n += 1` on array data: the attribute is carried through both
    branches like a variable and stored once after the `if` with the selected value."""
    plain, staged = Filter(2), Filter(2)
    run = jit(branchy)
    for _ in range(2):
        x = np.array(values)
        assert run(staged, x) == branchy(plain, x)
        _compare(_state(plain), _state(staged), 0, 0, "state")
        assert type(staged.steps) is int


def items_in_branches(x, acc, stats):
    # NumPy scalars throughout: a value's type does not depend on the path taken (a
    # Python float on one path and np.float64 on the other is np.float64 on both)
    s = x[0] * 0
    local = [s] * 3
    for i in range(3):
        if x[i] > 0:
            s = s + x[i]
            acc[i] = s               # an outside list's item
            local[i] = x[i] * 2      # a list made in the call
            stats["last"] = x[i]     # an outside dict's existing key
        else:
            acc[i] -= 1.0
    return s, local


@pytest.mark.parametrize("values", [[1.0, -2.0, 3.0], [-1.0, 5.0, -3.0], [-1.0, -1.0, -1.0]])
def test_existing_items_stored_in_data_dependent_branches_are_carried(values):
    """`if c: acc[i] = s` on array data, for an item that exists before the `if`: the
    item is carried through both branches like an attribute, then stored once (an
    outside list or dict: replayed after every run)."""
    run = jit(items_in_branches)
    plain = (list(np.array([0.0, 10.0, 20.0])), {"last": np.float64(0.0)})
    staged = copy.deepcopy(plain)
    for k in range(2):
        x = np.array(values) * (k + 1)
        want = items_in_branches(x, *plain)
        got = run(x, *staged)
        _compare(want, got, 0, 0, "result")
        _compare(plain, staged, 0, 0, "state")
        assert _no_traced(staged)


def appends_in_branch(x, acc):
    if x.sum() > 0:
        acc.append(x[0])
    return x


def appends_in_unrolled_loop(x, acc):
    for v in x:             # unrolled (its body changes a list): one assumption per item
        if v > 0:
            acc.append(v)
    return x


def appends_in_loop_branch(x, acc):
    while x.sum() > 1:
        x = x / 2
        if x[0] > 0.5:
            acc.append(x[0])
    return x


def test_append_in_data_dependent_branch_is_assumed_and_checked():
    """The condition is assumed, checked when the program runs, and the branch taken
    runs as Python (staged again when the other is taken): the list gets what NumPy's
    run appends."""
    for fn in (appends_in_branch, appends_in_unrolled_loop):
        run = jit(fn)
        for values in ([1.0, 2.0], [-1.0, -2.0], [3.0, 1.0], [-1.0, 2.0]):
            x = np.array(values)
            want, got = [], []
            fn(x, want)
            run(x, got)
            assert got == want and [type(v) for v in got] == [type(v) for v in want]


def test_append_in_a_branch_inside_a_staged_loop_stays_refused():
    acc = []
    with pytest.raises(UnsupportedOperationError, match="data-dependent"):
        jit(appends_in_loop_branch)(np.ones(2) * 4, acc)
    assert acc == []


def loopy(f, x):
    while x.sum() > 0.5:
        x = x / 2
        f.steps += 1
    return x


def test_store_in_data_dependent_loop_is_refused_located_and_leaves_no_trace():
    f = Filter(2)
    before = _state(f)
    with pytest.raises(UnsupportedOperationError) as info:
        jit(loopy)(f, np.ones(2))
    err = info.value
    assert err.location is not None and err.location.file == __file__
    assert "data-dependent" in str(err)
    _compare(before, _state(f), 0, 0, "state")
    assert _no_traced(f)


def test_store_of_object_holding_traced_arrays_is_refused():
    class Box:
        def __init__(self, v):
            self.v = v

    def store_box(f, x):
        f.box = Box(x * 2)
        return x

    f = Filter(2)
    with pytest.raises(TranspileError) as info:
        jit(store_box)(f, np.ones(2))
    assert "NPX136" in repr(info.value) or "outlives the call" in str(info.value)
    assert not hasattr(f, "box")


def test_effects_on_objects_made_in_the_call_are_plain_python():
    def local(x):
        out = {}
        out["a"] = x * 2
        items = []
        for i in range(3):
            items.append(x[i])
        box = Timer()
        box.total = x.sum()
        return out["a"], items, box.total

    _compare(local(np.arange(3.0)), jit(local)(np.arange(3.0)), 0, 0)


PROGRAM = """
import numpy as np
from npxla import jit

LOG = []

class Acc:
    def __init__(self):
        self.total = np.zeros(2)
        self.n = 0

    def add(self, x):
        self.total = self.total + x
        self.n += 1
        LOG.append(x.sum())
        return self.total

acc = Acc()
f = jit(acc.add)
for k in range(3):
    f(np.ones(2) * k)
print(acc.total.tolist(), acc.n, [float(v) for v in LOG])
"""


def test_disk_cache_replays_the_same_effects(tmp_path):
    path = tmp_path / "acc_prog.py"
    path.write_text(textwrap.dedent(PROGRAM))
    env = dict(os.environ, NPXLA_CACHE_DIR=str(tmp_path / "cache"), TF_CPP_MIN_LOG_LEVEL="3")
    outs, stored = [], []
    for seed in ("1", "2"):     # string hashes differ: the key must not depend on them
        outs.append(subprocess.run([sys.executable, str(path)], capture_output=True,
                                   text=True, env=dict(env, PYTHONHASHSEED=seed),
                                   timeout=300))
        stored.append(sorted(os.listdir(tmp_path / "cache")))
    for out in outs:
        assert out.returncode == 0, out.stderr
    assert outs[0].stdout == outs[1].stdout == "[3.0, 3.0] 3 [0.0, 2.0, 4.0]\n"
    assert stored[0] and stored[0] == stored[1]     # the second process reused it


PACKAGE_MAIN = """
import sys
sys.path.insert(0, {site!r})
import numpy as np
from npxla import jit
import legacy_helpers

def entry(x):
    return legacy_helpers.scale(x) + 1.0

print(float(jit(entry)(np.arange(3.0)).sum()))
"""


def test_a_changed_installed_helper_is_never_served_from_the_disk_cache(tmp_path):
    """An installed package's helper is converted (the conversion policy); the disk
    cache keys the program on its source, so editing the package compiles anew."""
    site = tmp_path / "site-packages"
    (site / "legacy_helpers").mkdir(parents=True)
    init = site / "legacy_helpers" / "__init__.py"
    main = tmp_path / "main_prog.py"
    main.write_text(PACKAGE_MAIN.format(site=str(site)))
    env = dict(os.environ, NPXLA_CACHE_DIR=str(tmp_path / "cache"), TF_CPP_MIN_LOG_LEVEL="3")

    def run(factor):
        init.write_text("def scale(x):\n    if x.sum() > 0:\n"
                        f"        return x * {factor}\n    return x\n")
        out = subprocess.run([sys.executable, str(main)], capture_output=True, text=True,
                             env=env, timeout=300)
        assert out.returncode == 0, out.stderr
        return float(out.stdout)

    assert run(2.0) == 9.0          # (0 + 2 + 4) + 3
    stored = set(os.listdir(tmp_path / "cache"))
    assert stored                   # the program was persisted
    assert run(2.0) == 9.0          # from the disk cache: nothing new stored
    assert set(os.listdir(tmp_path / "cache")) == stored
    assert run(3.0) == 12.0         # the helper changed: not the cached program


def make_logger(records):
    def log(value):
        records.append(value)
    return log


LOG_TO_RECORDS = make_logger([])      # the list is reachable through the closure only


def _records():
    return LOG_TO_RECORDS.__closure__[0].cell_contents


def logs_through_closure(x):
    LOG_TO_RECORDS(x.sum())
    return x * 2


def test_a_list_held_by_a_helpers_closure_is_found_and_replayed():
    _records().clear()
    run = jit(logs_through_closure)
    run(np.arange(3.0))
    run(np.ones(2))
    assert _records() == [3.0, 2.0] and all(type(r) is np.float64 for r in _records())


WINDOW = collections.deque(maxlen=3)


def push_window(x):
    WINDOW.append(x.sum())
    WINDOW.appendleft(-1.0)
    return x


def test_a_bounded_deque_is_mutated_as_numpy_would():
    WINDOW.clear()
    twin = collections.deque(maxlen=3)
    run = jit(push_window)
    for k in range(3):
        run(np.arange(3.0) + k)
        twin.append((np.arange(3.0) + k).sum())
        twin.appendleft(-1.0)
    assert list(WINDOW) == list(twin) and _no_traced(list(WINDOW))


def replaces_and_scales(x, y, lst):      # the fuzzer's seed 7267, shrunk
    s1 = y
    if not x[1, 1]:
        return (y, s1)
    lst[-1] = y
    x *= x.max()


@pytest.mark.parametrize("corner", [-1.0, 0.0])
def test_a_list_slot_given_another_dtype_on_one_path_holds_that_object(corner):
    """The paths store objects of different dtypes in one slot (an int array where a
    float one was): no carried value of one dtype can be both, so the condition is
    assumed and the path taken runs as Python; nothing it staged before is applied
    twice (the in-place `x *=` after it)."""
    x = np.array([[0.5, 2.0], [1.0, corner]], np.float32)
    y = np.arange(3)
    want_args, got_args = (x.copy(), y, [np.zeros(3)]), (x.copy(), y, [np.zeros(3)])
    want = replaces_and_scales(*want_args)
    got = jit(replaces_and_scales)(*got_args)
    _compare(want, got, 0, 0, "result")
    _compare(want_args[0], got_args[0], 0, 0, "x")
    assert (want_args[2][0] is y) == (got_args[2][0] is y)
    assert want_args[2][0].dtype == got_args[2][0].dtype
