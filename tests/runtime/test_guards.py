"""Stale programs: whatever a compiled program read from its environment (globals,
closure cells, module and class attributes, `self`, helpers) is either an input of the
executable or guarded at each call. Every test changes something after the first call
and compares with NumPy."""
import os
import subprocess
import sys
import textwrap
import types

import numpy as np
import pytest

from differential import _compare
from npxla.runtime.driver.jitted import JittedFunction
from npxla.transpiler.base.errors import UnsupportedOperationError

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def jit(fn):
    return JittedFunction(fn)


def same(fn, jitted, *args):
    """NumPy's and the compiled result agree (and so do the arguments afterwards)."""
    np_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    expected = fn(*np_args)
    jit_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    actual = jitted(*jit_args)
    _compare(expected, actual, 1e-12, 1e-12)
    _compare(np_args, jit_args, 1e-12, 1e-12, "arguments after the call")
    return actual


X = np.linspace(-1.0, 1.0, 4)


# --- functions and modules ------------------------------------------------------------
def double(x):
    return x * 2


def triple(x):
    return x * 3


helper = double


def calls_helper(x):
    return helper(x) + 1


def test_rebinding_a_global_helper_function_recompiles():
    global helper
    g = jit(calls_helper)
    try:
        same(calls_helper, g, X)
        same(calls_helper, g, X)          # fast path
        helper = triple
        same(calls_helper, g, X)
        same(calls_helper, g, X)
    finally:
        helper = double


act = np.exp


def activated(x):
    return act(x) * 2


def test_swapping_a_global_ufunc_recompiles():
    global act
    g = jit(activated)
    try:
        same(activated, g, X)
        act = np.tanh
        same(activated, g, X)
        act = np.exp
        same(activated, g, X)             # the first variant again
    finally:
        act = np.exp


mod = types.ModuleType("npxla_test_guards_mod")
mod.act = np.sin
conf = types.ModuleType("npxla_test_guards_conf")
conf.SCALE = 2.0


def through_modules(x):
    return mod.act(x) * conf.SCALE


def test_swapping_module_attributes_recompiles():
    g = jit(through_modules)
    try:
        same(through_modules, g, X)
        mod.act = np.cos
        same(through_modules, g, X)
        conf.SCALE = 3.0
        same(through_modules, g, X)
        conf.SCALE = 3                    # an int: a different value type
        same(through_modules, g, X.astype(np.float32))
    finally:
        mod.act, conf.SCALE = np.sin, 2.0


class Settings:
    K = 2.0
    TABLE = np.arange(4.0)


def uses_class_attributes(x):
    return x * Settings.K + Settings.TABLE


def test_changing_class_attributes_recompiles():
    g = jit(uses_class_attributes)
    try:
        same(uses_class_attributes, g, X)
        Settings.K = -1.5
        same(uses_class_attributes, g, X)
        Settings.TABLE[:] = 7.0           # baked in by value (a class cannot be copied)
        same(uses_class_attributes, g, X)
        Settings.TABLE = np.ones(4)
        same(uses_class_attributes, g, X)
    finally:
        Settings.K, Settings.TABLE = 2.0, np.arange(4.0)


def test_changing_a_closure_cell_recompiles():
    scale, table = 2.0, np.arange(4.0)

    def f(x):
        return x * scale + table
    g = jit(f)
    same(f, g, X)
    scale = 5.0
    same(f, g, X)
    table = table * 10                    # rebound
    same(f, g, X)
    table[0] = -3.0                       # modified in place
    same(f, g, X)


SCALE = 2.0


def scaled(x):
    return x * SCALE


def test_int_float_and_signed_zero_globals_are_distinct():
    global SCALE
    g = jit(scaled)
    try:
        for value in (2.0, 2, True, 0.0, -0.0, float("nan"), 2.0):
            SCALE = value
            with np.errstate(all="ignore"):
                same(scaled, g, X.astype(np.float32))
                same(lambda x: 1 / scaled(x), jit(lambda x: 1 / scaled(x)), X)
    finally:
        SCALE = 2.0


# --- global arrays: implicit inputs ----------------------------------------------------
TABLE = np.arange(4.0)


def adds_table(x):
    return x + TABLE * 2


def test_global_array_changed_in_place_is_seen():
    g = jit(adds_table)
    try:
        same(adds_table, g, X)
        TABLE[:] = 5.0
        same(adds_table, g, X)            # fast path: the array is read at each call
        TABLE[1] = -1.0
        same(adds_table, g, X)
    finally:
        TABLE[:] = np.arange(4.0)


def test_global_array_rebound_to_other_shapes_and_dtypes():
    global TABLE
    saved = TABLE
    g = jit(adds_table)
    try:
        same(adds_table, g, X)
        TABLE = np.ones(4, np.float32)
        same(adds_table, g, X)
        TABLE = np.ones((2, 4))
        same(adds_table, g, X)
    finally:
        TABLE = saved


def writes_table(x):
    TABLE[:2] = x[:2]
    TABLE[3] += 1.0
    return x.sum() + TABLE[0]


def test_in_place_writes_to_a_global_array_are_written_back():
    g = jit(writes_table)
    try:
        for _ in range(2):                # the second call starts from the written table
            start = TABLE.copy()
            r_np = writes_table(X.copy())
            after_np = TABLE.copy()
            TABLE[:] = start
            r_jit = g(X.copy())
            _compare(r_np, r_jit, 1e-12, 1e-12)
            np.testing.assert_array_equal(TABLE, after_np)
    finally:
        TABLE[:] = np.arange(4.0)


def reads_table_via_helper(x):
    return table_helper(x) * 2


def table_helper(v):
    return v - TABLE


def test_helper_reading_a_global_array_sees_changes():
    g = jit(reads_table_via_helper)
    try:
        same(reads_table_via_helper, g, X)
        TABLE[:] = -2.0
        same(reads_table_via_helper, g, X)
    finally:
        TABLE[:] = np.arange(4.0)


LIMIT = np.array([2])


def sliced_by_global(x):
    return x[:LIMIT[0]].sum() + LIMIT.sum()


def test_global_array_needed_as_a_value_is_baked_in_and_guarded_by_contents():
    g = jit(sliced_by_global)
    try:
        same(sliced_by_global, g, X)
        LIMIT[0] = 3
        same(sliced_by_global, g, X)
    finally:
        LIMIT[0] = 2


WEIGHTS = {"w": np.ones(4), "b": 0.5}
COEFFS = [1.0, 2.0, 3.0]


def uses_containers(x):
    y = x * WEIGHTS["w"] + WEIGHTS["b"]
    for c in COEFFS:
        y = y * c
    return y


def test_global_containers_are_guarded():
    g = jit(uses_containers)
    try:
        same(uses_containers, g, X)
        WEIGHTS["w"][:] = 3.0
        same(uses_containers, g, X)
        WEIGHTS["b"] = -1.0
        same(uses_containers, g, X)
        COEFFS.append(0.5)
        same(uses_containers, g, X)
        COEFFS[0] = 4
        same(uses_containers, g, X)
    finally:
        WEIGHTS.update(w=np.ones(4), b=0.5)
        COEFFS[:] = [1.0, 2.0, 3.0]


A_GRID = np.zeros(4)
B_GRID = A_GRID          # the same array under two names


def writes_one_alias(x):
    A_GRID[0] = x[1]
    return B_GRID * 2


def test_aliased_global_arrays_see_each_others_writes():
    g = jit(writes_one_alias)
    try:
        r_np = writes_one_alias(X)
        A_GRID[:] = 0.0
        r_jit = g(X)
        _compare(r_np, r_jit, 1e-12, 1e-12)
        assert B_GRID[0] == X[1]
    finally:
        A_GRID[:] = 0.0


class Model:
    def __init__(self):
        self.w = np.arange(4.0)
        self.alpha = 1.0

    def __call__(self, x):
        return self.forward(x)

    def forward(self, x):
        return x * self.alpha + self.w


Model.forward_jit = JittedFunction(Model.forward)


def test_method_sees_replaced_and_modified_self_attributes():
    m = Model()
    x = X.copy()
    np.testing.assert_allclose(m.forward_jit(x), m.forward(x))
    m.w = np.full(4, 3.0)
    np.testing.assert_allclose(m.forward_jit(x), m.forward(x))
    m.alpha = 2.0
    np.testing.assert_allclose(m.forward_jit(x), m.forward(x))
    m.w[2] = -9.0
    np.testing.assert_allclose(m.forward_jit(x), m.forward(x))
    other = Model()
    np.testing.assert_allclose(other.forward_jit(x), other.forward(x))


def test_a_function_without_environment_has_no_guard():
    g = jit(lambda x: x * 2.0 + 1.0)
    g(X)
    (guard, _), = g._fast.values()
    assert guard is None


def test_staging_that_modifies_a_baked_in_array_is_refused():
    class Holder:
        T = np.zeros(3)

    def f(x):
        Holder.T[0] = 1.0          # runs once while staging: NumPy runs it every call
        return x + 1
    with pytest.raises(UnsupportedOperationError) as info:
        jit(f)(np.ones(3))
    assert info.value.line is not None


# --- the disk cache covers the same environment ----------------------------------------
SCRIPT = textwrap.dedent("""
    import sys
    import numpy as np
    sys.path.insert(0, {root!r})
    sys.path.insert(0, {here!r})
    from npxla import jit
    import settings_mod as conf

    def f(x):
        return x * conf.SCALE + conf.OFFSET

    print(float(jit(f)(np.ones(3))[0]))
""")


@pytest.mark.slow     # heavy: CI's slow run covers it (tests/matrix.py)
def test_disk_cache_key_covers_module_attributes(tmp_path):
    here = tmp_path / "prog"
    here.mkdir()
    (here / "main.py").write_text(SCRIPT.format(root=ROOT, here=str(here)))
    env = dict(os.environ, NPXLA_CACHE_DIR=str(tmp_path / "cache"), TF_CPP_MIN_LOG_LEVEL="3")

    def run(scale, offset):
        (here / "settings_mod.py").write_text(f"SCALE = {scale}\nOFFSET = {offset}\n")
        out = subprocess.run([sys.executable, "-B", str(here / "main.py")],
                             capture_output=True, text=True, env=env, timeout=120)
        assert out.returncode == 0, out.stderr
        return float(out.stdout.split()[-1])
    assert run(2.0, 0.0) == 2.0
    assert run(3.0, 0.0) == 3.0
    assert run(3.0, 1.0) == 4.0
    assert run(2.0, 0.0) == 2.0


class Config:
    def __init__(self, scale, table):
        self.scale, self.table = scale, table


def configured(cfg, x):
    return x * cfg.scale + cfg.table


def test_attributes_of_static_and_keyword_object_arguments_are_guarded():
    cfg = Config(2.0, np.arange(4.0))
    for g in (JittedFunction(configured, static_argnums=0), jit(configured)):
        cfg.scale, cfg.table = 2.0, np.arange(4.0)
        np.testing.assert_allclose(g(cfg, X), configured(cfg, X))
        cfg.scale = -1.0
        np.testing.assert_allclose(g(cfg, X), configured(cfg, X))
        cfg.table[:] = 4.0
        np.testing.assert_allclose(g(cfg, X), configured(cfg, X))
        cfg.table = np.zeros(4)
        np.testing.assert_allclose(g(cfg=cfg, x=X), configured(cfg, X))


LOOKUP = np.array([10.0, 20.0, 30.0, 40.0])


def gathers_from_global(i, x):
    return LOOKUP[i] + x[i]


def test_global_table_indexed_with_a_traced_index():
    g = jit(gathers_from_global)
    try:
        same(gathers_from_global, g, np.int64(2), X)
        LOOKUP[2] = -5.0
        same(gathers_from_global, g, np.int64(2), X)
    finally:
        LOOKUP[2] = 30.0


def test_jitted_bound_methods_use_their_own_object():
    from npxla import jit as public_jit
    m1, m2 = Model(), Model()
    m2.alpha = 5.0
    f1, f2 = public_jit(m1.forward), public_jit(m2.forward)
    np.testing.assert_allclose(f1(X), m1.forward(X))
    np.testing.assert_allclose(f2(X), m2.forward(X))
    m1.w = np.full(4, -2.0)
    np.testing.assert_allclose(f1(X), m1.forward(X))


def writes_argument_reads_global(t):
    t[0] = 99.0
    return TABLE.sum()


def test_a_global_array_also_passed_as_written_argument_is_refused():
    g = jit(writes_argument_reads_global)
    same(writes_argument_reads_global, g, np.zeros(4))
    with pytest.raises(UnsupportedOperationError, match="also passed as an argument"):
        g(TABLE)
    np.testing.assert_array_equal(TABLE, np.arange(4.0))


@JittedFunction
def jitted_helper(x):
    return x * conf.SCALE


def calls_jitted_helper(x):
    return jitted_helper(x) + 1


def test_a_jitted_helper_reading_a_module_attribute_is_guarded():
    g = jit(calls_jitted_helper)
    try:
        same(calls_jitted_helper, g, X)
        conf.SCALE = 7.0
        same(calls_jitted_helper, g, X)
    finally:
        conf.SCALE = 2.0


def fact(n, x):
    if n <= 1:
        return x * conf.SCALE
    return fact(n - 1, x) * 2


def test_recursive_function_reading_a_module_attribute():
    g = jit(fact)
    try:
        same(fact, g, 3, X)
        conf.SCALE = -1.0
        same(fact, g, 3, X)
    finally:
        conf.SCALE = 2.0


BIG_LIST = [float(i) for i in range(1000)]


def sums_big_list(x):
    return x * BIG_LIST[7] + len(BIG_LIST)


def test_a_large_global_list_is_guarded_by_value_and_types():
    g = jit(sums_big_list)
    ints = np.arange(4)
    try:
        same(sums_big_list, g, ints)
        BIG_LIST[7] = 7                  # an equal value of another type: int64 result
        same(sums_big_list, g, ints)
        BIG_LIST[7] = -3.5
        same(sums_big_list, g, ints)
        BIG_LIST.append(1.0)
        same(sums_big_list, g, ints)
    finally:
        BIG_LIST[:] = [float(i) for i in range(1000)]


DEFAULT_W = np.ones(3)


def scaled_by_default(x, w=DEFAULT_W):
    return x * w


def bumps_default(x, w=DEFAULT_W):
    w[0] += 1
    return x + w


def test_a_default_argument_array_is_read_and_written_at_every_call():
    """`def f(x, w=W)` then `W[:] = 3`: NumPy reads the array's current values (the
    program used to return the first call's result); an in-place write reaches it."""
    DEFAULT_W[:] = 1.0
    run = jit(scaled_by_default)
    x = np.arange(3.0)
    np.testing.assert_array_equal(run(x), scaled_by_default(x))
    DEFAULT_W[:] = 3.0
    np.testing.assert_array_equal(run(x), [0.0, 3.0, 6.0])
    np.testing.assert_array_equal(jit(bumps_default)(np.zeros(3)), [4.0, 3.0, 3.0])
    np.testing.assert_array_equal(DEFAULT_W, [4.0, 3.0, 3.0])
    np.testing.assert_array_equal(run(x, np.full(3, 2.0)), [0.0, 2.0, 4.0])
