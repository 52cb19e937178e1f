"""npxla demo: legacy NumPy functions compiled with @jit, checked and timed vs NumPy.

Run:  python examples/demo.py
"""
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kernels  # noqa: E402


def _median_time(fn, *args, repeat=7, number=3):
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn(*args)
        samples.append((time.perf_counter() - t0) / number)
    return statistics.median(samples)


def _cases():
    rng = np.random.default_rng(0)
    n = 1_000_000
    yield "selu", kernels.selu, (np.arange(n, dtype=np.float64) / n - 0.5,)
    yield "standardize_rows", kernels.standardize_rows, (rng.normal(size=(2000, 200)),)
    yield "horner", kernels.horner, ((1.0, -2.0, 3.0, -4.0, 5.0), rng.normal(size=n))
    yield "heat_steps", kernels.heat_steps, (rng.random(100_000), 0.1, 20)
    yield "nbody_accelerations", kernels.nbody_accelerations, (
        rng.normal(size=(300, 3)), rng.random(300), 1e-3)
    yield "black_scholes_call", kernels.black_scholes_call, (
        rng.uniform(50, 150, n), rng.uniform(50, 150, n), rng.uniform(0.1, 2, n), 0.02, 0.3)
    yield "newton_sqrt (while)", kernels.newton_sqrt, (rng.uniform(1, 100, n),)
    yield "max_drawdown (for+if)", kernels.running_max_drawdown, (
        100 * np.exp(np.cumsum(rng.normal(0, 0.01, 20_000))),)


def main():
    print(f"{'kernel':22s} {'max |err|':>10s} {'first call':>11s} "
          f"{'NumPy':>10s} {'npxla':>10s} {'speed-up':>9s}")
    for name, jitted, args in _cases():
        plain = jitted.__wrapped__
        copy = lambda a: a.copy() if isinstance(a, np.ndarray) else a  # noqa: E731
        expected = plain(*map(copy, args))
        t0 = time.perf_counter()
        got = jitted(*map(copy, args))
        first = time.perf_counter() - t0
        err = float(np.max(np.abs(np.asarray(got) - np.asarray(expected))))
        assert np.allclose(got, expected, rtol=1e-9, atol=1e-9), name
        t_np = _median_time(plain, *args)
        t_jit = _median_time(jitted, *args)
        print(f"{name:22s} {err:10.2e} {first * 1e3:9.1f}ms {t_np * 1e3:8.2f}ms "
              f"{t_jit * 1e3:8.2f}ms {t_np / t_jit:8.2f}x")
    print("all results match NumPy")


if __name__ == "__main__":
    main()
