"""Items of a local list updated in a loop at constant positions (`counts[-1] += n`)
get a variable of their own for the loop (`converters/list_items.py`), which a staged
loop carries: against NumPy, values and types; the loop as written where two positions
name one item, a position does not exist, or the list escaped before the loop. nolds'
`sampen` (500 templates) compiled for 64 s as an unrolled loop."""
import numpy as np
import pytest

from differential import check
from npxla import jit

RNG = np.random.default_rng(29)


def counts_within(x, tol):
    counts = [0, 0.0]
    for i in range(x.shape[0] - 1):
        counts[-1] += np.sum(np.abs(x[i + 1:] - x[i]) < tol)
        counts[0] = counts[0] + 1
    return counts, counts[1] / max(counts[0], 1)


def nested_and_break(x):
    sums = [0.0, 0.0]
    for i in range(x.shape[0]):
        if x[i] > 2.5:
            break
        for j in range(3):
            sums[0] += x[i] * (j + 1)
        sums[1] = sums[1] * 0.5 + sums[0]
    return sums


def one_item_two_names(x):
    acc = [0.0]
    for i in range(x.shape[0]):
        acc[0] += x[i]
        acc[-1] *= 0.5               # the same item: the loop as written
    return acc


def missing_position(x):
    acc = [1.0]
    for i in range(x.shape[0]):  # runs zero times: no IndexError
        acc[3] += x[i]
    return acc


def escaped(x):
    acc = [0.0]
    keep = acc                     # another name for the list: the loop as written
    for i in range(x.shape[0]):
        acc[0] += x[i]
    return acc, keep


def lines(fn, *args):
    return jit(fn).lower(*args).as_text().count("\n")


@pytest.mark.parametrize("fn,args", [
    (counts_within, (RNG.standard_normal(200), 0.5)),
    (nested_and_break, (RNG.standard_normal(60),)),
    (one_item_two_names, (RNG.standard_normal(30),)),
    (missing_position, (np.zeros(0),)),
    (escaped, (RNG.standard_normal(30),)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_against_numpy_values_and_types(fn, args):
    out = check(fn, *args)
    want = fn(*args)
    assert [type(v) for v in out] == [type(v) for v in want]


def test_a_long_loop_stays_one_loop():
    # (both past 256 elements: shorter sums are staged as NumPy's pairwise adds)
    short, long = (lines(counts_within, RNG.standard_normal(n), 0.5) for n in (300, 3000))
    assert long == short
