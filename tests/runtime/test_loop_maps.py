"""Scalar work of a counted loop that depends on the counter alone, computed for every
trip before the loop (`lowering/maps.py`): bit for bit what the loop computes without
the rewrite (the same ops on the same values, a trip axis added), against NumPy (whose
transcendentals npxla matches within an ulp), and where the work ended up."""
import contextlib
import numpy as np
import pytest
from jax._src.interpreters import mlir as jax_mlir
from jaxlib.mlir import ir

from differential import check
from npxla import jit
from npxla.runtime.lowering import maps

RNG = np.random.default_rng(39)


@contextlib.contextmanager
def maps_off():
    saved = maps.MIN_OPS
    maps.MIN_OPS = 10**9
    try:
        yield
    finally:
        maps.MIN_OPS = saved


def exact(fn, *args):
    """Against NumPy, and bit for bit against the loop staged without the rewrite."""
    check(fn, *args, rtol=1e-13, atol=0)
    copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    with maps_off():
        plain = jit(fn)(*copies)
    np.testing.assert_array_equal(jit(fn)(*args), plain)


def multiplies_in_loops(fn, *args):
    """How many `stablehlo.multiply` ops fn's staged module has inside while bodies."""
    text = jit(fn).lower(*args).as_text()
    count = [0]
    with jax_mlir.make_ir_context():
        module = ir.Module.parse(text)

        def visit(op):
            parent, nested = op.parent, False
            while parent is not None:
                nested |= parent.name == "stablehlo.while"
                parent = parent.parent
            count[0] += nested and op.name == "stablehlo.multiply"
            return ir.WalkResult.ADVANCE

        module.operation.walk(visit)
    return count[0]


def tanh_of_diagonal(a):
    s = 0.0
    for i in range(a.shape[0]):
        s += np.tanh(a[i, i])
    return s


def weighted_terms(x, w, out):
    for i in range(2, x.shape[0]):
        t = np.exp(-x[i - 2] * w[i]) + np.sqrt(abs(x[i])) * np.cos(w[i - 1])
        out[i] = out[i - 1] * 0.5 + t
    return out


def picked_by_index_array(x, idx):
    total = 0.0
    for k in range(idx.shape[0]):
        v = x[idx[k]]
        total = total * 0.9 + np.log1p(v * v) / (1.0 + np.arctan(v))
    return total


def strided_pairs(a):
    acc = 0
    for i in range(0, a.shape[0] - 1, 3):
        h = (a[i] * 2654435761) ^ (a[i + 1] >> 3)
        h = (h * 40503) & 0xFFFF
        acc = (acc * 31 + h) % 1000003
    return acc


def test_map_then_sum():
    a = RNG.standard_normal((300, 300))
    exact(tanh_of_diagonal, a)


def test_map_with_a_recurrence_writing_an_array():
    x, w = RNG.standard_normal(500), RNG.standard_normal(500)
    exact(weighted_terms, x, w, np.zeros(500))


@pytest.mark.parametrize("n", [1, 2, 40])
def test_picked_through_an_index_array(n):
    x = RNG.standard_normal(50)
    idx = RNG.integers(-50, 50, n)              # negative indices too
    exact(picked_by_index_array, x, idx)


def test_integer_map_with_a_stride():
    exact(strided_pairs, RNG.integers(0, 2**40, 301))


def test_the_work_leaves_the_loop():
    a = RNG.standard_normal((300, 300))
    with maps_off():
        assert multiplies_in_loops(tanh_of_diagonal, a) > 10
    assert multiplies_in_loops(tanh_of_diagonal, a) == 0


def cheap(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * 2.0
    return s


def test_cheap_maps_stay():
    assert multiplies_in_loops(cheap, RNG.standard_normal(100)) > 0


@pytest.mark.parametrize("bad", [0, 5, 39])
def test_a_check_that_fails_part_way(bad):
    x = RNG.standard_normal(50)
    idx = RNG.integers(-50, 50, 40)
    idx[bad] = 57
    with pytest.raises(IndexError) as expected:
        picked_by_index_array(x, idx)
    with pytest.raises(IndexError) as got:
        jit(picked_by_index_array)(x, idx)
    assert str(got.value).splitlines()[0] == str(expected.value)
    assert multiplies_in_loops(picked_by_index_array, x, idx) < 5
