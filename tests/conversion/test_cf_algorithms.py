"""Whole algorithms with data-dependent loops, as legacy NumPy code writes them."""
import numpy as np
import pytest
from differential import check

from npxla import jit


def stablehlo(fn, *args, **kwargs):
    return jit(fn, **kwargs).lower(*args).as_text()


def newton_sqrt(a, tol=1e-12):
    x = a
    while np.max(np.abs(x * x - a)) > tol:
        x = 0.5 * (x + a / x)
    return x


def test_newton_to_tolerance():
    a = np.array([2.0, 9.0, 0.25, 1e4])
    assert "stablehlo.while" in stablehlo(newton_sqrt, a)
    r = check(newton_sqrt, a)
    np.testing.assert_allclose(r, np.sqrt(a))
    check(newton_sqrt, np.float64(3.0))
    check(newton_sqrt, a, 1e-3)


def bisection(a, lo, hi, tol):
    # cube root of a on [lo, hi]
    it = 0
    while hi - lo > tol:
        mid = (lo + hi) / 2
        if mid ** 3 > a:
            hi = mid
        else:
            lo = mid
        it += 1
    return (lo + hi) / 2, it


def test_bisection():
    check(bisection, np.float64(10.0), np.float64(0.0), np.float64(10.0), 1e-10)
    check(bisection, 27.0, 0.0, 5.0, 1e-6)          # Python floats: traced, weak
    check(bisection, np.float64(2.0), np.float64(0.0), np.float64(1.0), 1e-6)  # no root


def collatz_steps(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


@pytest.mark.parametrize("n", [1, 6, 27, 97])
def test_collatz_traced(n):
    check(collatz_steps, np.int64(n))


def test_collatz_python_int_and_static():
    assert "stablehlo.while" in stablehlo(collatz_steps, 27)     # traced Python int
    check(collatz_steps, 27)
    static = {"static_argnums": 0}
    assert "stablehlo.while" not in stablehlo(collatz_steps, 27, **static)
    check(collatz_steps, 27, jit_kwargs=static)


def jacobi(A, b, tol, maxit):
    x = np.zeros_like(b)
    eye = np.eye(A.shape[0])
    d = (A * eye).sum(axis=1)           # the diagonal
    R = A - eye * d
    err = np.inf
    it = 0
    while err > tol and it < maxit:
        x_new = (b - R @ x) / d
        err = np.sqrt(((x_new - x) ** 2).sum())
        x = x_new
        it += 1
    return x, it, err


def test_jacobi_with_tolerance_and_iteration_cap():
    rng = np.random.default_rng(0)
    A = rng.normal(size=(6, 6)) + 8 * np.eye(6)
    b = rng.normal(size=6)
    x, it, err = check(jacobi, A, b, 1e-10, 200)
    np.testing.assert_allclose(A @ x, b, atol=1e-8)
    _, it, _ = check(jacobi, A, b, 1e-10, 3)          # stopped by maxit
    assert it == 3
    x, it, err = jit(jacobi)(A, b, 1e-10, 0)          # zero iterations
    assert it == 0 and err == np.inf and not x.any()   # (err: float64, not Python float)


def gauss_seidel_inplace(A, b, sweeps):
    x = np.zeros_like(b)
    for _ in range(sweeps):
        for i in range(b.shape[0]):
            s = b[i] - A[i] @ x + A[i, i] * x[i]
            x[i] = s / A[i, i]
    return x


def test_gauss_seidel_with_inplace_updates():
    rng = np.random.default_rng(1)
    A = rng.normal(size=(5, 5)) + 6 * np.eye(5)
    check(gauss_seidel_inplace, A, rng.normal(size=5), np.int64(25))


def running_max_drawdown(prices):
    peak = prices[0]
    worst = 0.0
    for p in prices:
        peak = max(peak, p)
        dd = (peak - p) / peak
        if dd > worst:
            worst = dd
    return worst


def test_running_max_drawdown():
    check(running_max_drawdown, np.array([10.0, 12.0, 9.0, 11.0, 6.0, 13.0]))


def first_passage(walk, level):
    pos = 0.0
    for t, step in enumerate(walk):
        pos = pos + step
        if pos >= level:
            return t
    return -1


def test_first_passage_time():
    steps = np.random.default_rng(2).normal(size=50)
    for level in (0.5, 3.0, 1e9):
        check(first_passage, steps, level)


def print_progress(x, tol):
    it = 0
    while np.abs(x).max() > tol:
        x = x / 4
        it += 1
        print("iteration", it, x.max())
    return x


def test_print_inside_staged_loop_runs_each_iteration(capsys):
    a = np.array([64.0, 3.0])
    print_progress(a, 1.0)
    expected = capsys.readouterr().out
    jit(print_progress)(a, 1.0)
    assert capsys.readouterr().out == expected
    assert expected.count("iteration") == 3
