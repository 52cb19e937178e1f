"""npxla's XLA backend options: a loop doing kilobytes of work per iteration is compiled
by XLA:CPU as one function (a "small call") instead of one thunk per fusion, results
unchanged; a user's own XLA_FLAGS setting of the option wins."""
import numpy as np

from npxla import jit
from npxla.runtime.xla.backend_options import CPU_BACKEND_OPTIONS, with_backend_options


def row_recurrence(x):
    y = np.zeros_like(x)
    for i in range(1, x.shape[0]):
        y[i] = 0.5 * y[i - 1] + x[i] * x[i - 1]
    return y


def test_a_loop_over_kilobyte_rows_is_one_small_call_and_agrees_with_numpy():
    x = np.random.default_rng(0).standard_normal((40, 256))   # 2 KiB rows, past XLA's 1 KiB
    f = jit(row_recurrence)
    assert "xla_cpu_small_call" in f.lower(x).as_text("hlo")
    np.testing.assert_array_equal(f(x), row_recurrence(x))


def test_the_options_are_appended_to_the_serialised_compile_options():
    from jax._src.lib import xla_client as xc
    base = xc.CompileOptions()
    added = with_backend_options(base, "cpu").SerializeAsString()
    for key, value in CPU_BACKEND_OPTIONS.items():
        assert key.encode() in added and value.encode() in added
    assert with_backend_options(base, "cuda") is base


def test_an_option_named_in_the_users_xla_flags_is_left_to_them(monkeypatch):
    from jax._src.lib import xla_client as xc
    base = xc.CompileOptions()
    monkeypatch.setenv("XLA_FLAGS", "--xla_backend_extra_options="
                       "xla_cpu_small_while_loop_byte_threshold=1024")
    assert with_backend_options(base, "cpu") is base


def unrolled_maxima(a, b):
    s = 0.0
    for i in range(5):              # a Python range: five independent reductions
        s += np.max(a * b + i)
    return s


def test_a_program_with_large_temporaries_takes_the_memory_minimising_schedule():
    from npxla.runtime.xla.backend_options import LEAN_MIN_TEMP_BYTES, temp_bytes
    rng = np.random.default_rng(1)
    a, b = rng.random(1_000_000), rng.random(1_000_000)
    f = jit(unrolled_maxima)
    np.testing.assert_array_equal(f(a, b), unrolled_maxima(a, b))
    # XLA's default schedule keeps all five 8 MB temporaries (39 MB): fresh pages on
    # every call; the memory-minimising one reuses one buffer
    executable = f.lower(a, b)._executable().executable
    assert temp_bytes(executable) < LEAN_MIN_TEMP_BYTES


def test_a_scheduler_named_in_the_users_xla_flags_is_left_to_them(monkeypatch):
    from jax._src.lib import xla_client as xc
    from npxla.runtime.xla.backend_options import lean_options
    base = xc.CompileOptions()
    assert lean_options(base) is not None
    monkeypatch.setenv("XLA_FLAGS", "--xla_cpu_enable_concurrency_optimized_scheduler=true")
    assert lean_options(base) is None
