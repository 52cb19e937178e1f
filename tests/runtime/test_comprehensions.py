"""List comprehensions over static ranges (`operators/comprehensions.py`) against NumPy:
staged as one loop filling the rows of an array when every item is a new array of one
shape, still a list (items are views of the rows; replacing, adding or writing through
an item behaves as NumPy's list does), and run as written where that does not hold
(items that are views of an argument, Python numbers, items whose shape depends on the
index). Many same-sized slices of one array stacked become one gather
(`lowering/windows.py`)."""
import re
import warnings

import numpy as np
import pytest

from differential import check
from npxla import jit

RNG = np.random.default_rng(7)


def ops(fn, *args, **kw):
    """{op name: count} of fn's staged module."""
    text = jit(fn, **kw).lower(*args).as_text()
    out = {}
    for name in ("stablehlo.while", "stablehlo.concatenate", "stablehlo.gather",
                 "stablehlo.dot_general"):
        out[name.split(".")[1]] = len(re.findall(re.escape(name) + r'(?=[\s"(])', text))
    out["lines"] = text.count("\n")
    return out


# --- staged as one loop ------------------------------------------------------------------

def fits(d, x):
    return np.array([np.polyfit(x, d[i], 1) for i in range(len(d))])


def test_polyfit_per_row_is_one_loop_not_one_copy_per_row():
    d, x = RNG.random((120, 9)), np.arange(9.0)
    check(fits, d, x, rtol=1e-12, atol=1e-12)
    counts = ops(fits, d, x)
    assert counts["while"] >= 1
    # 120 unrolled least-squares fits staged ~16,000 lines
    assert counts["lines"] < 2000, counts


def centred_rows(d):
    rows = [(r - r.mean()) * i for i, r in enumerate(d)]
    return np.stack(rows), len(rows), rows[7]


def test_enumerate_target_stack_len_and_items():
    check(centred_rows, RNG.random((40, 6)))
    # one loop, which the lanes rewrite then runs for all rows at once: no
    # concatenate of 40 pieces
    counts = ops(centred_rows, RNG.random((40, 6)))
    assert counts["concatenate"] == 0 and counts["lines"] < 400, counts


def sums(d):
    return np.array([np.sum(d[i] ** 2) for i in range(d.shape[0])], dtype=np.float32)


def test_zero_d_items_and_dtype_argument():
    out = check(sums, RNG.random((50, 4)))
    assert out.dtype == np.float32


def items_written(d):
    rows = [d[i] * 2.0 for i in range(d.shape[0])]
    rows[0][1] = 100.0               # a write into an item reaches the stacked array
    a = np.array(rows)
    rows[2] = d[0]                   # a replaced item: the array is rebuilt
    b = np.array(rows)
    rows.append(d[1])
    c = np.array(rows)
    return a, b, c, rows[5], rows


def test_list_semantics_writes_replacements_appends_and_returned_list():
    check(items_written, RNG.random((30, 5)))


def array_copy_is_independent(d):
    rows = [d[i] + 1.0 for i in range(d.shape[0])]
    a = np.array(rows)
    a[0, 0] = -1.0                   # np.array copies: the list's rows keep their value
    return a, rows[0]


def test_array_of_the_list_is_a_copy():
    check(array_copy_is_independent, RNG.random((20, 3)))


def nested(d, T):
    total = 0.0
    for t in range(T):
        total += np.array([d[i] * t + d[i].max() for i in range(d.shape[0])]).sum()
    return total


def test_comprehension_inside_a_staged_loop():
    check(nested, RNG.random((25, 4)), 6)


def branchy(d):
    return np.array([d[i] * 2 if d[i, 0] > 0.5 else -d[i] for i in range(d.shape[0])])


def test_data_dependent_ternary_in_the_item():
    check(branchy, RNG.random((33, 4)))


# --- run as written ----------------------------------------------------------------------

def views_of_argument(x):
    rows = [x[i] for i in range(x.shape[0])]
    rows[3][0] = -7.0                # writes into the argument, as NumPy's views do
    return np.array(rows).sum()


def test_items_that_view_an_argument_keep_aliasing():
    check(views_of_argument, RNG.random((20, 4)))


def growing(x):
    return sum(float(np.zeros(i + 1).sum() + x[i]) for i in range(3)) + \
        sum([np.ones(i + 1).sum() * x[i] for i in range(20)])


def test_items_whose_shape_needs_the_index_run_unrolled_without_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check(growing, RNG.random(20))


def python_numbers(x):
    scale = [float(k) ** 0.5 for k in range(30)]
    return x * scale[7] + len(scale)


def test_python_number_items():
    check(python_numbers, RNG.random(4))


def short(x):
    return np.array([x * k for k in range(4)])


def test_short_comprehensions_stay_unrolled():
    check(short, RNG.random(1000))
    assert ops(short, RNG.random(1000))["while"] == 0


def unpack_mismatch(x, y, z):
    return [a * b for a, b in zip(x, y, z)]


def test_wrong_arity_raises_pythons_error():
    x = RNG.random(30)
    with pytest.raises(ValueError, match="too many values to unpack"):
        unpack_mismatch(x, x, x)
    with pytest.raises(ValueError, match="too many values to unpack"):
        jit(unpack_mismatch)(x, x, x)


# --- windows -------------------------------------------------------------------------------

def windows(walk, n):
    return np.array([walk[i:i + n] for i in range(0, len(walk) - n, n // 2)])


def blocks(A):
    return np.stack([A[i:i + 3, 1:4] for i in range(0, A.shape[0] - 3)])


@pytest.mark.parametrize("n", [4, 10])
def test_sliding_windows_are_one_gather(n):
    walk = RNG.random(400)
    check(windows, walk, n, rtol=0, atol=0, jit_kwargs={"static_argnums": 1})
    counts = ops(windows, walk, n, static_argnums=1)
    assert counts["gather"] == 1 and counts["concatenate"] == 0, counts


def test_two_d_blocks_are_one_gather():
    A = RNG.random((40, 6))
    check(blocks, A, rtol=0, atol=0)
    counts = ops(blocks, A)
    assert counts["gather"] == 1 and counts["concatenate"] == 0, counts


def rows_in_order(A):
    return np.array([A[i] for i in range(A.shape[0])]), np.stack([A[i] for i in range(2, 30)])


def test_consecutive_rows_are_one_slice():
    A = RNG.random((40, 3))
    check(rows_in_order, A, rtol=0, atol=0)
    counts = ops(rows_in_order, A)
    assert counts["gather"] == 0 and counts["concatenate"] == 0, counts


def python_number_items(x):
    vals = [float(x[i].sum()) for i in range(x.shape[0])]
    ks = [int(x[i, 0] * 10) for i in range(x.shape[0])]
    # a Python float keeps float32 arithmetic float32 (a NumPy float64 would promote)
    return np.array(vals), vals[3], sum(vals), x[0].astype(np.float32) * vals[0], \
        np.array(ks), ks[-1] + 1


def test_python_number_items_are_staged_and_stay_python_numbers():
    x = RNG.random((24, 4))
    out = check(python_number_items, x, rtol=0, atol=0)
    assert [type(v) for v in out] == [type(v) for v in python_number_items(x)]
    # one loop: 72 more rows add only the lists' items (about 2 lines each), not
    # copies of the loop body
    grown = ops(python_number_items, RNG.random((96, 4)))["lines"] - \
        ops(python_number_items, x)["lines"]
    assert grown <= 6 * 72, grown


def comprehension_in_try(x, idx):
    try:
        out = np.array([x[idx[i]] * 2.0 for i in range(idx.shape[0])])
    except IndexError:
        out = np.zeros(3)
    return out


def test_inside_a_try_it_runs_as_written():
    """As `for` loops there: an index check that fails where an `except` clause would
    catch it is refused, located, not staged in a loop."""
    x = RNG.random(30)
    check(comprehension_in_try, x, np.arange(20) % 30)
    with pytest.raises(Exception, match="IndexError .* inside a try statement"):
        jit(comprehension_in_try)(x, np.arange(20) + 15)
