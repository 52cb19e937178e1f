"""The examples of legacy code that keeps state outside the jitted function (issue 34):
attribute stores on `self`, `self.steps += 1`, lists and dicts the caller owns, a timer
object reading `time.perf_counter()` inside the kernel. Each runs under @jit next to a
plain-NumPy twin and must leave the same results *and* the same objects behind.

(`tests/test_examples.py` also runs each one's harness entry, `EXAMPLE.check("small")`.)
"""
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))

import kalman_filter  # noqa: E402
import loss_history  # noqa: E402
import timed_driver  # noqa: E402

from npxla import jit  # noqa: E402
from npxla.transpiler.base.errors import TranspileError  # noqa: E402


# --- kalman_filter: jitted bound methods that set attributes ---------------------------

def test_kalman_jitted_methods_track_like_numpy(capsys):
    """jit(kf.predict), jit(kf.update): compared after every step inside `track`."""
    r = kalman_filter.main(["--steps", "6"])
    plain, staged = r["numpy"], r["npxla"]
    assert staged.steps == plain.steps == 6 and type(staged.steps) is int
    assert len(staged.log) == 6
    assert all(type(v) is np.float64 for v in staged.log)
    np.testing.assert_allclose(staged.log, plain.log, rtol=1e-10)
    np.testing.assert_allclose(staged.x, plain.x, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(staged.P, plain.P, rtol=1e-10, atol=1e-12)
    assert r["rmse"][0] == pytest.approx(r["rmse"][1], rel=1e-9)
    out = capsys.readouterr().out
    assert "matches NumPy's after every step" in out and "later calls median" in out


def test_kalman_jitted_step_method():
    """jit(kf.step): a method calling both others, on the same synthetic track."""
    _, zs = kalman_filter.simulate(4, np.random.default_rng(1))
    plain, staged, est_np, est_jit, times = kalman_filter.track(zs, "step")
    assert kalman_filter.state_difference(plain, staged) < 1e-10
    np.testing.assert_allclose(est_jit, est_np, rtol=1e-10, atol=1e-12)
    assert staged.steps == 4 and len(staged.log) == 4 and len(times["step"]) == 4


def test_kalman_harness_entry_leaves_the_argument_like_numpy():
    """`kalman_step(kf, z)`: the filter passed as an argument is updated as NumPy does."""
    kf_np, z = kalman_filter.make_inputs(3, np.random.default_rng(0))
    kf_jit, _ = kalman_filter.make_inputs(3, np.random.default_rng(0))
    x_np, P_np = kalman_filter.kalman_step.__wrapped__(kf_np, z)
    x_jit, P_jit = kalman_filter.kalman_step(kf_jit, z)
    np.testing.assert_allclose(x_jit, x_np, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(P_jit, P_np, rtol=1e-10, atol=1e-12)
    assert kalman_filter.state_difference(kf_np, kf_jit) < 1e-10
    assert x_jit is kf_jit.x and kf_jit.steps == 4


# --- loss_history: the caller's list and dict ------------------------------------------

def test_loss_history_list_dict_and_weights_match_numpy(capsys):
    r = loss_history.main(["--size", "small"])["runs"]
    assert len(r["npxla"]) == 4
    for want, got in zip(r["numpy"], r["npxla"]):
        loss_history.check_states(want, got)
    w, history, summary = r["npxla"][-1]
    assert len(history) == 40 and summary["iterations"] == 40          # continued
    assert type(summary["iterations"]) is int
    assert all(type(v) is np.float64 for v in history)
    assert summary["best_loss"] == min(history) and summary["final_loss"] == history[-1]
    assert history[-1] < history[0]
    assert "match NumPy" in capsys.readouterr().out


def fit_until(X, y, history, lr=0.5, tol=0.3, n_iter=20):
    w = np.zeros(X.shape[1])
    for _ in range(n_iter):
        p = loss_history.sigmoid(X @ w)
        loss = -np.mean(y * np.log(p) + (1.0 - y) * np.log1p(-p))
        history.append(loss)
        if loss < tol:                 # a data-dependent stop around the append
            break
        w -= lr * X.T @ (p - y) / X.shape[0]
    return w


def test_loss_history_append_under_a_data_dependent_stop_is_refused_located():
    X, y, _, _, _ = loss_history.make_inputs(50, np.random.default_rng(0))
    history = []
    with pytest.raises(TranspileError) as info:
        jit(fit_until)(X, y, history)
    assert history == []
    assert info.value.location is not None and info.value.location.file == __file__
    assert "data-dependent" in str(info.value)


# --- timed_driver: a timer object inside and around the kernel -------------------------

def test_timed_driver_results_and_timers(capsys):
    r = timed_driver.main(["--size", "small", "--repeats", "4"])    # checks inside
    for label in ("numpy", "npxla"):
        inner, windows = r[label]["inner"], r[label]["windows"]
        assert len(inner.laps) == 4 and all(lap > 0 for lap in inner.laps)
        assert inner.elapsed == pytest.approx(sum(inner.laps), rel=1e-12)
        assert type(inner._start) is float
        assert windows[-1][0] <= inner._start <= windows[-1][1]      # read at run time
    np.testing.assert_array_equal(r["npxla"]["u"], r["numpy"]["u"])
    assert r["npxla"]["results"] == r["numpy"]["results"]
    assert len(r["outside_only"].laps) == 4
    assert "both timers hold run-time readings" in capsys.readouterr().out


def test_timer_readings_change_from_call_to_call():
    """Each call's `_start` is that call's reading, not the one made while compiling."""
    u, f, _ = timed_driver.make_inputs(16, np.random.default_rng(0))
    timer, starts = timed_driver.Timer(), []
    for _ in range(3):
        before = timed_driver.time.perf_counter()
        timed_driver.relax(u, f, timer, sweeps=5)
        after = timed_driver.time.perf_counter()
        assert before <= timer._start <= after
        starts.append(timer._start)
    assert starts[0] < starts[1] < starts[2]
    assert len(timer.laps) == 3 and timer.elapsed == pytest.approx(sum(timer.laps))
