"""Loops that only append to a local list (`converters/append_loops.py`,
`operators/collected_appends.py`) against NumPy: staged as one loop writing each
appended array into a row of one array when every iteration appends one new array of
one shape; run as Python, with NumPy's aliasing, when an appended array is changed
after the append, kept in a loop variable, appended twice, a view of an argument, or
when the loop reads the list."""
import numpy as np
import pytest

from differential import check
from npxla import jit

RNG = np.random.default_rng(11)


def concatenates(fn, *args):
    """(concatenate ops, lines) of fn's staged module: unrolled, the list's items are
    joined by one concatenate of every item."""
    text = jit(fn).lower(*args).as_text()
    return text.count("stablehlo.concatenate"), text.count("\n")


def energies(d):
    out = []
    for i in range(d.shape[0]):
        out.append(np.sum(d[i] ** 2) * np.arange(3.0))
    return np.array(out)


def fits_and_residuals(d, x):
    fits = []
    resid = []
    for i in range(len(d)):
        p = np.polyfit(x, d[i], 1)
        fits.append(p)
        resid.append(np.sum((np.polyval(p, x) - d[i]) ** 2))
    return np.array(fits), np.array(resid), len(fits), fits[3]


def rows_of(d):
    out = []
    for r in d:
        out.append(np.cumsum(r) - r.mean())
    out[2][0] = 50.0                 # an item is a view of the stacked rows
    return np.stack(out), out


def test_one_list_is_one_loop():
    d = RNG.random((120, 5))
    check(energies, d)
    joins, lines = concatenates(energies, d)
    assert joins == 0 and lines < 1000, (joins, lines)


def test_two_lists_polyfit_views_and_len():
    d, x = RNG.random((60, 8)), np.arange(8.0)
    check(fits_and_residuals, d, x, rtol=1e-10, atol=1e-12)
    assert concatenates(fits_and_residuals, d, x)[1] < 3000


def test_rows_iteration_items_and_writes():
    check(rows_of, RNG.random((40, 6)))


def nested(d, T):
    total = []
    for t in range(T):
        row = []
        for i in range(d.shape[0]):
            row.append(d[i] * (t + 1.0))
        total.append(np.array(row).sum())
    return total


def test_inner_list_made_in_an_outer_loop():
    check(nested, RNG.random((30, 3)), 4)


def random_walk(steps, x0):
    path = [x0 * 1.0]
    for i in range(steps.shape[0]):
        path.append(path[-1] + 0.1 * steps[i])
    return np.array(path), path[-1]


def euler(v, dt):
    xs = [np.zeros(3)]
    for i in range(v.shape[0]):
        prev = xs[-1]
        xs.append(prev + dt * np.sin(prev) + v[i])
    return np.array(xs)


def write_into_last(d):
    out = [d[0] * 1.0]
    for i in range(1, d.shape[0]):
        out[-1][0] = -1.0            # the item the iteration before appended
        out.append(d[i] * 2.0)
    return np.array(out)


def test_recurrences_over_the_last_item():
    steps = RNG.standard_normal((300, 2))
    check(random_walk, steps, np.ones(2), rtol=0, atol=0)
    # the first item and the rows of the staged loop: two pieces joined
    joins, lines = concatenates(random_walk, steps, np.ones(2))
    assert joins == 1 and lines < 1500, (joins, lines)
    check(euler, RNG.standard_normal((200, 3)), 0.01, rtol=0, atol=0)
    check(write_into_last, RNG.standard_normal((40, 3)), rtol=0, atol=0)


# --- run as Python, with NumPy's aliasing ------------------------------------------------

def changed_after_append(d):
    out = []
    for i in range(d.shape[0]):
        v = d[i] * 2.0
        out.append(v)
        v += 1.0                     # NumPy's item changes too
    return np.array(out)


def kept_in_a_variable(d):
    out = []
    last = d[0]
    for i in range(d.shape[0]):
        last = d[i] * 2.0
        out.append(last)
    last[0] = 99.0                   # the list's last item is this array
    return np.array(out), out[-1]


def read_while_filling(d):
    out = [d[0] * 0.0]
    for i in range(d.shape[0]):
        out.append(out[-1] + d[i])
    return np.array(out)


def views_of_argument(d):
    out = []
    for i in range(d.shape[0]):
        out.append(d[i])
    out[4][1] = -3.0                 # writes into the argument, as NumPy's views do
    return np.array(out)


def appended_twice(d):
    a, b = [], []
    for i in range(d.shape[0]):
        v = d[i] + 1.0
        a.append(v)
        b.append(v)
    a[0][0] = 7.0                    # one array in both lists
    return np.array(b)


def prior_items(d):
    out = [np.zeros(d.shape[1])]
    for i in range(d.shape[0]):
        out.append(d[i] * 3.0)
    return np.array(out), len(out)


def with_break(d):
    out = []
    for i in range(d.shape[0]):
        if i > 25:
            break
        out.append(d[i] * 3.0)
    return np.array(out)


@pytest.mark.parametrize("fn", [changed_after_append, kept_in_a_variable, read_while_filling,
                                views_of_argument, appended_twice, prior_items, with_break])
def test_cases_numpy_aliasing_decides(fn):
    check(fn, RNG.random((40, 4)))


def error_history(x):
    errs = []
    err = 0.0
    for i in range(x.shape[0]):
        err = float(np.abs(x[i]).max()) * 0.5     # kept in `err` too: a Python float
        errs.append(err)
    return errs, err, np.array(errs)[::3]


def test_appended_python_numbers():
    x = RNG.random((40, 4))
    out = check(error_history, x, rtol=0, atol=0)
    assert type(out[0][0]) is float and type(out[1]) is float
    grown = concatenates(error_history, RNG.random((160, 4)))[1] - \
        concatenates(error_history, x)[1]
    assert grown <= 3 * 120, grown          # the list's items, not copies of the body


# --- the list's name rebound after the loop (pyti's indicators end this way) ---------------
def windows_then_array(data, period):
    out = []
    for idx in range(len(data) - period + 1):
        out.append(np.std(data[idx:idx + period]))
    out = np.array(out)
    return out


def _pad_front(data, result):
    return np.append(np.repeat(np.nan, len(data) - len(result)), result)


def windows_then_helper(data, period):
    bands = []
    for idx in range(len(data) - period + 1):
        bands.append(data[idx] + np.std(data[idx:idx + period]) * 2.0)
    bands = _pad_front(data, bands)
    return bands


def rebound_inside_an_outer_loop(d):
    acc = 0.0
    out = []
    for k in range(2):
        for i in range(d.shape[0]):
            out.append(d[i].sum() * (k + 1))
        acc += np.sum(out)
        out = list(out)            # a rebinding each outer trip: the inner loop may see it
    return acc, out


def rebound_before_the_loop(d, outside):
    out = []
    out = outside                  # the caller's list: its appends must reach it
    for i in range(d.shape[0]):
        out.append(d[i].sum())
    return len(out)


@pytest.mark.parametrize("fn", [windows_then_array, windows_then_helper])
def test_a_list_rebound_after_the_loop_is_still_one_loop(fn):
    data = np.cumsum(RNG.normal(size=120)) + 100.0
    check(fn, data, 14)
    text = jit(fn).lower(data, 14).as_text()
    # one staged loop (which `unroll` may run as a loop of body copies and a loop for
    # the trips left), not a body per iteration
    assert text.count("stablehlo.while") <= 2 and text.count("\n") < 1000, \
        text.count("\n")


def test_a_rebinding_the_loop_can_see_keeps_python_lists():
    d = RNG.random((6, 3))
    check(rebound_inside_an_outer_loop, d)
    outside = [1.0]
    assert jit(rebound_before_the_loop)(d, outside) == 7
    assert len(outside) == 7 and outside[1:] == [float(v) for v in d.sum(axis=1)]
