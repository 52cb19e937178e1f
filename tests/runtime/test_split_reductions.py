"""Large integer reductions merged with their siblings and split into blocks and rows
(`lowering/split_reductions.py`), against NumPy bit for bit: every order-free op
(sums and products that wrap, xor, and, or, max, min, any, all, counts), sizes below,
at and around the threshold and the block, whole arrays and innermost axes, other axes
left alone, loops that become several reductions of one array; and, in the staged and
optimised programs, that the rewrite fires where it should and that XLA no longer
writes out what it reduces."""
import re

import numpy as np
import pytest
from differential import check
from loop_ops import count_ops
from test_loop_reductions import count_not_positive  # starts at 3: one init, not many

from benchmarks.loop_kernels import count_in_band, int_moments
from npxla import jit
from npxla.runtime.lowering import split_reductions

RNG = np.random.default_rng(83)
LIMIT = split_reductions.MIN_ELEMENTS
BLOCK = split_reductions.WAYS * split_reductions.ROW


def _ints(shape, dtype=np.int64, lo=-1000, hi=1000):
    return RNG.integers(lo, hi, shape).astype(dtype)


def _fold_loop(op, start):
    def fold(x):
        acc = x[0] * 0 + start
        for i in range(x.shape[0]):
            acc = op(acc, x[i])
        return acc
    return fold


# loops of `acc ^= x[i]` become the same `reduce` as `np.bitwise_xor.reduce`
# (`lowering/loop_reductions.py`; the ufunc methods: test_bitwise_reduce.py)
xor_loop = _fold_loop(np.bitwise_xor, 0)
and_loop = _fold_loop(np.bitwise_and, -1)
or_loop = _fold_loop(np.bitwise_or, 0)


REDUCTIONS = {
    "sum": lambda x: np.sum(x),
    "sum_of_squares": lambda x: np.sum(x * x),
    "prod_wraps": lambda x: np.prod(x | 1),
    "xor": xor_loop,
    "and": lambda x: and_loop(x | 0x0F0F),
    "or": lambda x: or_loop(x & 0x7F7F),
    "max": lambda x: np.max(x),
    "min": lambda x: np.min(x),
    "any": lambda x: np.any(x > 990),
    "all": lambda x: np.all(x > -999),
    "count": lambda x: np.count_nonzero((x > -10) & (x < 300)),
}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@pytest.mark.parametrize("n", [LIMIT - 1, LIMIT, LIMIT + 1, LIMIT + BLOCK - 1, 3 * BLOCK * 47])
def test_whole_array_reductions_match_numpy(name, n):
    check(REDUCTIONS[name], _ints(n))


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.uint16, np.uint64])
@pytest.mark.parametrize("name", ["sum", "max", "min", "xor", "prod_wraps"])
def test_other_integer_types(dtype, name):
    lo, hi = (0, 250) if np.dtype(dtype).kind == "u" else (-120, 120)
    check(REDUCTIONS[name], _ints(2 * LIMIT + 5, dtype, lo, hi))


def test_unsigned_sums_wrap():
    x = RNG.integers(2**62, 2**64 - 1, 3 * LIMIT, dtype=np.uint64)
    check(lambda a: (a.sum(), (a * a).sum(), a.max(), a.min()), x)


def many_sums(x):
    """Sums over the innermost axes, over an outer axis (left as it is) and whole."""
    return (x.sum(axis=-1), x.sum(axis=(1, 2)), x.max(axis=2), x.sum(axis=0),
            np.logical_or.reduce(x > 900, axis=-1), x.sum())


def test_innermost_and_other_axes():
    check(many_sums, _ints((3, 5, LIMIT + 3)))
    check(many_sums, _ints((2, 70, 90)))


def moments_used_between(v):
    """The first sum is used before the second's products are computed: the merge moves
    them up. The third reads the first's result: a reduction of its own."""
    total = np.int64(0)
    for i in range(v.shape[0]):
        total += v[i]
    shifted = total * 3 + 1
    squares = np.int64(0)
    for i in range(v.shape[0]):
        squares += (v[i] - 7) * (v[i] - 7)
    mixed = np.int64(0)
    for i in range(v.shape[0]):
        mixed ^= v[i] + shifted
    return total, squares, mixed, shifted


def dependent_reductions(x):
    """The second reduction reads the first's result: not merged."""
    m = x.max()
    return (x - m).sum(), m


def unused_sums(x):
    """Two sums nothing reads (left to the dead-code pass, which runs after the merge:
    the merged reduction goes before the terminator; fuzz seed 7700077)."""
    a = x.sum()
    b = (x * 3).sum()
    return x[0] + 1


@pytest.mark.parametrize("fn", [int_moments, moments_used_between, dependent_reductions,
                                count_not_positive, unused_sums])
@pytest.mark.parametrize("n", [LIMIT + 3, 40_001])
def test_loops_of_several_reductions(fn, n):
    check(fn, _ints(n))


def test_count_in_band_matches_numpy():
    x = RNG.random(50_003)
    check(count_in_band, x, 0.25, 0.6)


def _staged(fn, *args):
    return jit(fn).lower(*args).as_text()


def test_siblings_become_one_reduction_of_three_inputs():
    v = _ints(40_000)
    text = _staged(int_moments, v)
    assert text.count("stablehlo.optimization_barrier") == 1
    assert re.search(r"stablehlo\.reduce\(%\S+ init: %\S+\), \(%\S+ init: %\S+\), "
                     r"\(%\S+ init: %\S+\)", text)
    text = _staged(moments_used_between, v)
    assert text.count("stablehlo.optimization_barrier") == 2
    assert re.search(r"stablehlo\.reduce\(%\S+ init: %\S+\), \(%\S+ init: %\S+\) "
                     r"across", text)


def test_left_alone():
    """Below the threshold, float sums, a reduction over an outer axis, and the second
    of two reductions that depend on each other."""
    def barriers(fn, *args):
        return count_ops(fn, args, lambda op, depth: op.name == "stablehlo.optimization_barrier")

    assert barriers(REDUCTIONS["sum"], _ints(LIMIT - 1)) == 0
    assert barriers(REDUCTIONS["sum"], _ints(LIMIT)) == 1
    assert barriers(lambda x: x.sum() + x[::2].sum(), RNG.random(4 * LIMIT)) == 0
    assert barriers(lambda x: x.sum(axis=0), _ints((LIMIT, 3))) == 0
    assert barriers(dependent_reductions, _ints(2 * LIMIT)) == 2


def test_what_is_reduced_is_not_written_out():
    """XLA's tree of `reduce_window`s wrote the count's ones and zeros out (an int64 per
    element) before reducing them; the split reduces them where they are computed."""
    x = RNG.random(1_000_000)
    hlo = jit(count_in_band).lower(x, 0.25, 0.6).compile().as_text()
    assert not re.search(r"= s64\[1000000\]\{0\} fusion\(", hlo)
    saved = split_reductions.MIN_ELEMENTS
    split_reductions.MIN_ELEMENTS = 10**12
    try:
        old = jit(count_in_band, cache=False).lower(x, 0.25, 0.6).compile().as_text()
    finally:
        split_reductions.MIN_ELEMENTS = saved
    assert re.search(r"= s64\[1000000\]\{0\} fusion\(", old)


def large_counts(x):
    return np.count_nonzero(x > 0.5), (x > 0.3).sum(), np.sum(x < 0.1, dtype=np.int32)


def column_counts(m):
    return (m > 0.5).sum(axis=0), np.count_nonzero(m < 0.2, axis=1)


def test_counts_sum_as_integers_where_they_split():
    """Counts of booleans are summed as split int64 where `split_reductions` splits
    them (at least `MIN_ELEMENTS` per result, over the innermost axes), else as float64
    (exact, and one pass where XLA's int64 sum would write the mask out)."""
    as_float = re.compile(r"tensor<[\dx]+xi1>\) -> tensor<[\dx]+xf64>")
    x = RNG.random(LIMIT - 1)
    check(large_counts, x)
    assert as_float.search(_staged(large_counts, x))
    x = RNG.random(LIMIT + 5)
    check(large_counts, x)
    text = _staged(large_counts, x)
    assert not as_float.search(text)
    # the two int64 counts share one split reduce; the int32 sum has its own
    assert text.count("stablehlo.optimization_barrier") == 2
    m = RNG.random((LIMIT + 3, 3))
    check(column_counts, m)
    text = _staged(column_counts, m)
    assert as_float.search(text)               # down the columns: not split, float
    m = RNG.random((3, LIMIT + 3))
    check(column_counts, m)
    text = _staged(column_counts, m)
    assert text.count("stablehlo.optimization_barrier") == 1    # along the rows: split


def near_twins(x):
    return (x > 0.5).sum(), (x > 0.3).sum(), (x < 0.5).sum(), np.count_nonzero(x > 0.5)


def test_reductions_of_one_value_are_computed_once():
    """Reductions of values made alike (the same ops, operands and attributes) share
    one input of the merged reduce; values that differ only in a constant or a
    comparison's direction do not (a regression: an attribute compare that saw no
    attributes summed `x > 0.3` as `x > 0.5`)."""
    x = RNG.random(40_003)
    check(near_twins, x)
    text = _staged(near_twins, x)
    assert text.count("stablehlo.optimization_barrier") == 1
    assert re.search(r"stablehlo\.reduce\((%\S+ init: %\S+\)(, \()?){3}", text)
    assert not re.search(r"stablehlo\.reduce\((%\S+ init: %\S+\)(, \()?){4}", text)
