"""Float products are rounded as NumPy rounds them: no fused multiply-add unless
`fast_math=True`. Each case fails under contraction (a `fast_math` twin shows it)."""
from __future__ import annotations

import numpy as np
import pytest

from npxla import jit
from npxla.runtime.lowering.rounding import unrounded

from tests.differential import DEVICE

# whether this CPU has FMA instructions, so that contraction would show
_FMA = "fma" in open("/proc/cpuinfo").read().split() if DEVICE == "cpu" else True


def cancel(a, b, x):
    return a * x + b * x


def horner(x, c):
    y = np.zeros_like(x)
    for k in range(c.shape[0]):
        y = y * x + c[k]
    return y


def lorenz(n, dt, start):
    """Euler steps of a chaotic system: a last-bit difference grows to every bit."""
    out = np.empty((n, 3), dtype=start.dtype)
    x, y, z = start[0], start[1], start[2]
    for i in range(n):
        dx = 10.0 * (y - x)
        dy = x * (28.0 - z) - y
        dz = x * y - (8.0 / 3.0) * z
        x, y, z = x + dt * dx, y + dt * dy, z + dt * dz
        out[i, 0], out[i, 1], out[i, 2] = x, y, z
    return out


def fused_in_branch(a, b, c):
    if a.sum() > 0:
        r = a * b - c * b
    else:
        r = a * c - b * c
    return r


def while_products(a, b):
    s = a.copy()
    while s.max() < 100.0:
        s = s * b + a * b
    return s


def _same_bits(expected, got):
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got.view(f"u{got.itemsize}"),
                                  expected.view(f"u{expected.itemsize}"))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cancellation_is_zero_as_in_numpy(dtype):
    rng = np.random.default_rng(0)
    a = rng.standard_normal(4096).astype(dtype)
    x = rng.standard_normal(4096).astype(dtype)
    expected = cancel(a, -a, x)
    assert not expected.any()
    _same_bits(expected, jit(cancel, device=DEVICE)(a, -a, x))
    if _FMA:        # the test would fail under contraction
        assert jit(cancel, device=DEVICE, fast_math=True)(a, -a, x).any()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_horner_bit_for_bit(dtype):
    rng = np.random.default_rng(1)
    x = rng.uniform(-2, 2, 10_000).astype(dtype)
    c = rng.standard_normal(9).astype(dtype)
    _same_bits(horner(x, c), jit(horner, device=DEVICE)(x, c))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_chaotic_iteration_bit_for_bit(dtype):
    start = np.array([1.0, 1.0, 1.0], dtype)
    dt = dtype(0.01)
    expected = lorenz(1500, dt, start)
    _same_bits(expected, jit(lorenz, device=DEVICE)(1500, dt, start))
    if _FMA and dtype == np.float32:
        fast = jit(lorenz, device=DEVICE, fast_math=True)(1500, dt, start)
        assert (fast != expected).sum() > 100


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_products_in_data_dependent_branches_and_loops(sign):
    rng = np.random.default_rng(2)
    a = sign * np.abs(rng.standard_normal(1000)) + 1.0
    b = rng.uniform(1.1, 1.3, 1000)
    _same_bits(fused_in_branch(a, b, a * 0.5), jit(fused_in_branch, device=DEVICE)(
        a, b, a * 0.5))
    a = np.abs(a) + 0.1
    _same_bits(while_products(a, b), jit(while_products, device=DEVICE)(a, b))


def test_fast_math_is_part_of_the_key():
    """The two flavours of one function are two programs."""
    a = np.full(8, 1e20, np.float32)
    x = np.full(8, 1e10, np.float32)
    exact, fast = jit(cancel), jit(cancel, fast_math=True)
    assert exact is not fast
    assert not exact(a, -a, x).any()
    if _FMA:
        assert fast(a, -a, x).any()


def test_sums_of_products_take_the_bare_product():
    """A sum reduction reads the product unhidden (its order is XLA's anyway), so XLA
    fuses the product into the reduction instead of writing it out."""
    from npxla.runtime.staging.trace import Trace
    from npxla.runtime.lowering import elementwise as E
    from npxla.runtime.staging.abstract import AbstractArray
    with Trace() as t:
        (arg,) = t.begin_function([((4,), np.dtype(np.float64))])
        h = AbstractArray((4,), np.dtype(np.float64), ir=arg)
        p = E.multiply(h, h)
        assert p.ir.owner.name == "stablehlo.bitcast_convert"
        assert unrounded(p.ir).owner.name == "stablehlo.multiply"
        assert unrounded(arg) is arg


def chained(x, y, z):
    return x / 10.0 / 0.1, (x / y) / z, x + 1.7 - 1.7, x + 1.5 + 2.25


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_quotients_and_sums_with_constants_are_not_reassociated(dtype):
    """XLA's simplifier rewrites (a / b) / c as a / (b * c) and folds the constants of
    (x + c1) + c2; NumPy rounds each step (fuzzer seeds 10193, 60022)."""
    rng = np.random.default_rng(3)
    x, y, z = (rng.standard_normal(2000).astype(dtype) for _ in range(3))
    for e, g in zip(chained(x, y, z), jit(chained, device=DEVICE)(x, y, z)):
        _same_bits(e, g)


def squares_summed(x, y):
    out = [y]
    for i in range(x.shape[0]):
        v = x[i] ** 2
        v = v + out[-1]
        out.append(v)
    return np.array(out), x ** 2 + y


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_square_is_rounded_before_the_sum(dtype):
    """XLA rewrites `x ** 2` as `x * x`, which the add after it fused into an FMA
    (fuzzer family list_builds, seed 5202)."""
    rng = np.random.default_rng(4)
    x, y = rng.standard_normal((33, 300)).astype(dtype), rng.standard_normal(300).astype(dtype)
    for e, g in zip(squares_summed(x, y), jit(squares_summed, device=DEVICE)(x, y)):
        _same_bits(e, g)
