"""Programs of many small ops outside any loop (a loop unrolled because its values change
shape; NumPy's own loops, such as a cumsum's, do not count) compile with XLA:CPU's older
emitters and LLVM's optimisation off, about three times as fast for the same run time;
every other program keeps XLA's defaults (`backend_options.quick_compile`)."""
import warnings

import numpy as np
import pytest

from npxla import jit
from npxla.runtime.xla import backend_options, compile as xla_compile
from npxla.runtime.xla.backend_options import quick_compile


@pytest.fixture
def no_user_flag(monkeypatch):
    """The tests' own XLA_FLAGS name the emitters (conftest); a user's would win."""
    monkeypatch.setenv("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false")


def growing(a):
    r = a[:1]
    for k in range(1, a.shape[0]):
        r = np.append(r, r[-1] * 0.5 + a[k])
    return r


def rolled(a):
    s = a[:1] * 0.0
    k = 1
    while k < a.shape[0]:
        s = s * 0.5 + a[k]
        k += 1
    return s


def lengthening(a, steps):
    for _ in range(steps):
        a = np.append(a * 0.5, a[:1])
    return a


def _text(fn, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")        # "the loop is unrolled"
        return jit(fn, static_argnums=tuple(range(1, len(args)))).lower(*args).as_text()


def test_a_long_unrolled_program_of_small_ops(no_user_flag):
    assert quick_compile(_text(growing, np.ones(150)))


def test_a_short_one_keeps_the_default(no_user_flag):
    assert not quick_compile(_text(growing, np.ones(30)))


def test_a_program_with_a_loop_keeps_the_default(no_user_flag):
    text = _text(rolled, np.ones(5000))
    assert "stablehlo.while" in text and not quick_compile(text)


def windowed_spreads(a):
    # hurst's compute_Hc: windows of each size, a running sum of each (NumPy's loop,
    # staged as a library `while`), its range
    out = []
    for w in (10, 17, 31):
        for start in range(0, a.shape[0], w):
            if start + w > a.shape[0]:
                break
            c = np.cumsum(a[start:start + w] - a[start:start + w].mean())
            out.append(c.max() - c.min())
    return np.array(out)


def test_library_loops_do_not_count_as_loops(no_user_flag):
    """A running sum is NumPy's own loop (`scan.LIBRARY_LOOP`): its trips are the
    array's, so the program is still one of many small ops (hurst's compute_Hc on 999
    points: first call 114 -> 59 s)."""
    text = _text(windowed_spreads, np.arange(400.0))
    assert "npxla.library_loop" in text and quick_compile(text)
    a = np.random.default_rng(5).standard_normal(400)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = jit(windowed_spreads)(a)
    np.testing.assert_allclose(got, windowed_spreads(a), rtol=1e-12, atol=1e-12)


def test_large_ops_keep_the_default(no_user_flag):
    assert not quick_compile(_text(lengthening, np.ones(10_000), 300))
    assert quick_compile(_text(lengthening, np.ones(100), 300))


def test_the_users_xla_flags_win(monkeypatch):
    monkeypatch.setenv("XLA_FLAGS", "--xla_cpu_use_fusion_emitters=true")
    options = backend_options.with_quick_compile(xla_compile.options_for(_cpu()))
    assert options.env_option_overrides == [("xla_backend_optimization_level", 0)]


def _cpu():
    import jax
    return jax.devices("cpu")[0]


def test_compiled_with_the_older_emitters_and_numpys_answer(no_user_flag, monkeypatch):
    chosen = []

    def recording(options):
        chosen.append(options)
        return backend_options.with_quick_compile(options)
    monkeypatch.setattr(xla_compile, "with_quick_compile", recording)
    a = np.random.default_rng(3).standard_normal(150)
    f = jit(growing)
    f.clear_cache()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = f(a)
    expected = growing(a)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)
    assert len(chosen) == 1
    assert chosen[0].env_option_overrides == [("xla_cpu_use_fusion_emitters", False),
                                              ("xla_backend_optimization_level", 0)]
