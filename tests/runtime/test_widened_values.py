"""Slice assignments whose value reads a non-constant scalar are computed over the whole
array and masked (`lowering/widened_values.py`), so that XLA:CPU vectorises them: bit for
bit against NumPy (results and the caller's arrays), in loops and outside them, for
shifted reads in one and two dimensions, other arrays of other shapes, dtypes, and
which writes are left alone."""
import numpy as np
import pytest
from jax._src.interpreters import mlir as jax_mlir
from jaxlib.mlir import ir

from tests.differential import check
from npxla import jit

RNG = np.random.default_rng(41)


def padded_values(fn, *args):
    """How many `pad`s of the staged module pad a computed value rather than an
    argument, a loop's carried value or a constant: the writes left as staged."""
    text = jit(fn).lower(*args).as_text()
    count = 0
    with jax_mlir.make_ir_context():
        module = ir.Module.parse(text)

        def visit(op):
            nonlocal count
            if op.name == "stablehlo.pad":
                source = op.operands[0].owner
                if not isinstance(source, ir.Block) and \
                        source.name not in ("stablehlo.constant", "stablehlo.broadcast_in_dim"):
                    count += 1
            return ir.WalkResult.ADVANCE

        module.operation.walk(visit)
    return count


def heat_steps(u, alpha, steps):
    for _ in range(steps):
        u[1:-1] = u[1:-1] + alpha * (u[2:] - 2 * u[1:-1] + u[:-2])
    return u


def heat2d(u, alpha, steps):
    for _ in range(steps):
        u[1:-1, 1:-1] += alpha * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2]
                                  - 4 * u[1:-1, 1:-1])
    return u


def blur(img):
    out = img.copy()
    out[1:-1, 1:-1] = (img[:-2, :-2] + img[:-2, 1:-1] + img[:-2, 2:] + img[1:-1, :-2]
                       + img[1:-1, 1:-1] + img[1:-1, 2:] + img[2:, :-2] + img[2:, 1:-1]
                       + img[2:, 2:]) / 9.0
    return out


def scaled_blur(img, w):
    out = img.copy()
    out[1:-1, 1:-1] = w * (img[:-2, 1:-1] + img[2:, 1:-1] + img[1:-1, :-2] + img[1:-1, 2:])
    return out


def shifted_from_other(u, v, w):
    u[3:-2] = w * v[:-5] - v[5:] * 0.25
    return u


def scaled_where(u, t, s):
    u[2:] = np.where(u[:-2] > t, u[:-2] * s, -u[2:])
    return u


def small_piece(u, s):
    u[:100] = u[:100] * s
    return u


def no_scalar(u):
    u[1:-1] = u[2:] - u[:-2]
    return u


@pytest.mark.parametrize("n", [5000, 100_003])
def test_heat_steps_match_numpy_and_pad_nothing_computed(n):
    u = RNG.random(n)
    check(heat_steps, u, 0.37, 13, rtol=0, atol=0)
    assert padded_values(heat_steps, u, 0.37, 13) == 0


def test_heat2d_in_place_add_matches_numpy():
    u = RNG.random((130, 97))
    check(heat2d, u, 0.2, 9, rtol=0, atol=0)
    assert padded_values(heat2d, u, 0.2, 9) == 0


def test_a_scaled_stencil_is_widened_outside_loops():
    img = RNG.normal(size=(120, 90))
    check(scaled_blur, img, 0.3, rtol=0, atol=0)
    assert padded_values(scaled_blur, img, 0.3) == 0
    # a constant divisor: the quotient needs no rounding (only the write reads it,
    # `unneeded_rounding`), so no scalar is left and the pad stays
    check(blur, img, rtol=0, atol=0)
    assert padded_values(blur, img) == 1


def test_reads_of_another_array_at_other_offsets():
    # the destination starts at 3, the reads at 0 and 5: padding of +3 and -2
    u, v = RNG.normal(size=6000), RNG.normal(size=6000)
    check(shifted_from_other, u, v, 1.75, rtol=0, atol=0)
    assert padded_values(shifted_from_other, u, v, 1.75) == 0
    v2 = RNG.normal(size=(7000,))[:6000].copy()
    check(shifted_from_other, u, v2, -3.0, rtol=0, atol=0)


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.complex128])
def test_other_dtypes(dtype):
    u = (RNG.normal(size=8192) * 4).astype(dtype)
    s = dtype(3)
    check(scaled_where, u, dtype(0), s, rtol=0, atol=0)


def test_a_scalar_predicate_and_nan_inf_values():
    u = RNG.normal(size=5000)
    u[::7] = np.nan
    u[::11] = np.inf
    check(scaled_where, u, 0.5, -2.5, rtol=0, atol=0)
    check(heat_steps, u.copy(), 0.25, 3, rtol=0, atol=0)


def test_writes_left_alone():
    u = RNG.normal(size=50_000)
    # a slice much smaller than the array: written in place, never widened
    check(small_piece, u, 1.5, rtol=0, atol=0)
    assert "dynamic_update_slice" in jit(small_piece).lower(u, 1.5).as_text()
    # no scalar at all (a product would read the zero hiding it): XLA vectorises the
    # padded form already
    check(no_scalar, u, rtol=0, atol=0)
    assert padded_values(no_scalar, u) == 1
    # a small array: an in-place update, no pad
    check(heat_steps, RNG.random(500), 0.3, 4, rtol=0, atol=0)


def interior_step(u, a):
    u[1:-1, 1:-1] += a * (u[2:, 1:-1] + u[:-2, 1:-1] - 2.0 * u[1:-1, 1:-1])


def test_a_widened_write_into_an_argument_returns_only_the_region():
    u = RNG.random((100, 120))       # 96 KB: regions come back alone from 64 KB
    assert padded_values(interior_step, u, 0.3) == 0
    f = jit(interior_step)
    f.clear_cache()
    expected = u.copy()
    interior_step(expected, 0.3)
    f(u, 0.3)
    np.testing.assert_array_equal(u, expected)
    (variant,) = [v for vs in f._cache.values() for v in vs]
    plan = variant.entry._plan
    assert plan.writeback == [] and plan.regions == [(0, 0, (1, 1))]
