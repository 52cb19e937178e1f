"""Scalar loops run several body copies per trip of their `while` (`lowering/unroll.py`),
against NumPy bit for bit: every trip count around the number of copies (the loop may
end after any copy), breaks, checks that fire in a late copy, and which loops are left
alone (arrays carried, host callbacks, nested loops)."""
import numpy as np
import pytest
from jax._src.interpreters import mlir as jax_mlir
from jaxlib.mlir import ir

from differential import check
from npxla import jit
from npxla.runtime.lowering import unroll

RNG = np.random.default_rng(37)


def loop_shapes(fn, *args):
    """For each `while` of fn's staged module: (body ops, selects in the body)."""
    text = jit(fn).lower(*args).as_text()
    shapes = []
    with jax_mlir.make_ir_context():
        module = ir.Module.parse(text)

        def visit(op):
            if op.name == "stablehlo.while":
                body = list(op.regions[1].blocks[0].operations)
                shapes.append((len(body), sum(o.name == "stablehlo.select" for o in body)))
            return ir.WalkResult.ADVANCE

        module.operation.walk(visit)
    return shapes


def sum_of_squares(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * x[i]
    return s


def dot_prefix(L, x, i):
    s = L[i, 0] * 0.0
    for j in range(i):
        s -= L[i, j] * x[j]
    return s


def popcount(v):
    c = 0
    while v:
        v &= v - 1
        c += 1
    return c


def first_above(x, t):
    k = -1
    for i in range(x.shape[0]):
        if x[i] > t:
            k = i
            break
    return k


def running_checksum(data):
    a = 1
    b = 0
    for i in range(data.shape[0]):
        a = (a + int(data[i])) % 65521
        b = (b + a) % 65521
    return (b << 16) | a


def raises_late(x, limit):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i]
        if s > limit:
            raise ValueError(f"sum passed the limit at {i}")
    return s


@pytest.mark.parametrize("n", [0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 33])
def test_trip_counts_around_the_copies(n):
    x = RNG.standard_normal(n)
    check(sum_of_squares, x, rtol=0, atol=0)
    L = RNG.standard_normal((n + 1, n + 1))
    check(dot_prefix, L, RNG.standard_normal(n + 1), n, rtol=0, atol=0)


@pytest.mark.parametrize("v", [0, 1, 2, 3, 255, 256, 2**40 - 1, 2**62 + 5])
def test_data_dependent_while(v):
    check(popcount, np.int64(v))


@pytest.mark.parametrize("t", [-10.0, 0.5, 1.5, 2.5, 10.0])
def test_break_after_any_copy(t):
    check(first_above, RNG.standard_normal(23), t)


def test_modular_sums_exact():
    data = RNG.integers(0, 256, 1001, dtype=np.uint8)
    check(running_checksum, data)


@pytest.mark.parametrize("limit", [0.0, 3.0, 1e9])
def test_check_that_fires_in_a_later_copy(limit):
    x = np.abs(RNG.standard_normal(21))
    f = jit(raises_late)
    try:
        expected = raises_late(x, limit)
    except ValueError as e:
        with pytest.raises(ValueError) as got:
            f(x, limit)
        assert str(got.value).splitlines()[0] == str(e)
    else:
        assert f(x, limit) == expected


def test_scalar_loop_is_unrolled():
    (body, selects), = loop_shapes(sum_of_squares, RNG.standard_normal(100))
    copies = max(k for _, k in unroll.UNROLL)
    assert selects >= copies - 1


def carried_array(x):
    y = x.copy()
    for i in range(1, y.shape[0]):
        y[i] = 0.5 * y[i - 1] + x[i]
    return y


def prints(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i]
        print(s)
    return s


def nested(x):
    s = 0.0
    for i in range(x.shape[0]):
        for j in range(i):
            s += x[j]
    return s


@pytest.mark.parametrize("fn", [carried_array, prints, nested])
def test_loops_left_alone(fn):
    shapes = loop_shapes(fn, RNG.standard_normal(50))
    outer = shapes[-1]                       # post-order: the outermost loop last
    assert outer[1] == 0
    if fn is nested:                         # the inner scalar loop is unrolled
        assert shapes[0][1] > 0


def test_nested_values(capsys):
    x = RNG.standard_normal(30)
    check(nested, x, rtol=0, atol=0)
    check(carried_array, x, rtol=0, atol=0)


def test_short_static_loop_left_alone():
    def four(x):
        s = 0.0
        for i in range(4):
            s += x[i] * x[i]
        return s
    for _, selects in loop_shapes(four, RNG.standard_normal(8)):
        assert selects == 0
