"""Scalar loops run several body copies per trip of their `while` (`lowering/unroll.py`),
against NumPy bit for bit: every trip count around the number of copies (a counted loop
runs its copies unguarded while that many trips remain, then itself; another may end
after any copy), breaks, checks that fire in a late copy, and which loops are left alone
(arrays carried, host callbacks, nested loops)."""
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


def window_sum(x, lo, hi):
    s = x[0] * 0.0
    for j in range(lo, hi):
        s = s * 0.75 + x[j]
    return s


@pytest.mark.parametrize("lo,hi", [(0, 0), (5, 3), (2, 9), (2, 10), (2, 11), (1, 17),
                                   (0, 40), (3, 42)])
def test_loop_over_run_time_bounds(lo, hi):
    # (x[j] at a traced j is checked, so a trip of copies may be taken back; the
    # triangular loop of `nested` covers unguarded copies at every remainder)
    check(window_sum, RNG.standard_normal(42), lo, hi, rtol=0, atol=0)


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


def gather_sum(x, idx, lo, hi):
    s = 0.0
    for k in range(lo, hi):
        s += x[idx[k]]
    return s


@pytest.mark.parametrize("bad", [None, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 17, 18, 19])
def test_index_error_in_any_copy_names_its_index(bad):
    """A counted loop that a check may end runs its copies unguarded and takes a trip
    back when one fired: the loop itself then raises NumPy's message, offending index
    included, from whichever copy it was in."""
    idx = RNG.integers(-20, 20, 20)
    if bad is not None:
        idx[bad] = 20 + bad              # out of bounds for x of 20
    x = RNG.standard_normal(20)
    f = jit(gather_sum)
    for lo, hi in ((0, 20), (1, 20), (3, 19), (0, bad + 1 if bad is not None else 5)):
        try:
            expected = gather_sum(x, idx, lo, hi)
        except IndexError as e:
            with pytest.raises(IndexError) as got:
                f(x, idx, lo, hi)
            assert str(got.value).splitlines()[0] == str(e)
        else:
            assert f(x, idx, lo, hi) == expected


def test_checked_counted_loop_copies_are_unguarded(monkeypatch):
    """The copies of a counted loop with checks run without selects between them; one
    select per carried value that a trip changes ends each trip (the check's payload
    and code are not among them: a trip taken back restores them). The loop for the
    remaining trips keeps one payload select per checked index (`idx[k]` and
    `x[idx[k]]`: 2), which the copies leave out. (Checks that the loop's range proves
    are left out of the copies: `test_proven_checks.py`.)"""
    monkeypatch.setattr(unroll, "prove_trips", lambda loop, k: None)
    idx = RNG.integers(0, 20, 40)
    shapes = loop_shapes(gather_sum, RNG.standard_normal(20), idx, 0, 40)
    (main, main_selects), (rest, rest_selects) = shapes
    assert main >= COUNTED * (rest - 8)
    assert 0 < main_selects - COUNTED * (rest_selects - 2) <= 4


COPIES = max(k for _, k in unroll.UNROLL)
COUNTED = min(k for _, k in unroll.UNROLL_COUNTED)


def halvings(x):
    n = 0
    while x > 1.0:
        x = x * 0.5
        n += 1
    return n, x


def test_counted_loop_runs_its_copies_unguarded():
    """`for i in range(n)`: a loop of COPIES copies per trip, no select between them,
    while that many trips remain, then the loop itself for the rest."""
    (main, main_selects), (rest, rest_selects) = loop_shapes(sum_of_squares,
                                                             RNG.standard_normal(100))
    assert main_selects == rest_selects == 0
    assert main >= COPIES * (rest - 4)


def test_loop_that_may_end_sooner_runs_guarded_copies():
    (body, selects), = loop_shapes(halvings, np.float64(3.0))
    assert selects >= COPIES - 1
    for x in (0.5, 2.0, 3.0, 255.0, 256.0, 257.0, 1e300):
        check(halvings, np.float64(x), rtol=0, atol=0)


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
        (main, _), (rest, _) = shapes[:2]
        assert main >= COPIES * (rest - 4)


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
