"""A variable that is a list of numbers on one path of a data-dependent branch and a
1-D array on the other (nolds' `dfa` and `lyap_r`: `poly = [np.nan, np.nan]` when no
line can be fitted, `np.polyfit(...)` otherwise). Where a list and an array behave
alike (an int index, len(), iteration, unpacking, NumPy functions) it compiles and
agrees with NumPy on both paths; what they do differently is refused, located."""
import numpy as np
import pytest

from differential import check
from npxla import TranspileError, jit

X = np.linspace(1.0, 3.0, 6)


def fit(x, y):                     # nolds' dfa, shortened
    keep = np.where(y != 0)
    xs, ys = x[keep], y[keep]
    if len(ys) < 2:
        poly = [np.nan, np.nan]
    else:
        poly = np.polyfit(xs, np.log(ys), 1)
    # (a 0-d array on both paths: NumPy's type of poly[0] itself differs by path)
    return poly[0] * np.ones(()), len(poly), np.polyval(poly, 2.0), poly[-1] * np.ones(())


def walk(x):
    if x.sum() > 0:
        p = (-np.inf, 0.0)
    else:
        p = x[:2] * 2
    s = 0.0
    for v in p:
        s = s + v
    a, b = p
    # (arrays: NumPy's Python floats on the tuple's path are float64 on the other)
    return np.array([s, a, b]), np.asarray(p), p[x.argmax() % 2] * np.ones(())


@pytest.mark.parametrize("y", [np.exp(X), np.array([0, 0, 0, 0, 0, 1.0]), np.zeros(6)])
def test_alike_uses_agree_on_both_paths(y):
    check(fit, X, y, rtol=1e-9)


@pytest.mark.parametrize("x", [X, -X])
def test_iteration_unpacking_and_indexing(x):
    check(walk, x)


def returned(x):
    if x.sum() > 0:
        p = [1.0, 2.0]
    else:
        p = x[:2] * 2
    return p


def stored(x, box):
    if x.sum() > 0:
        p = [1.0, 2.0]
    else:
        p = x[:2] * 2
    box.q = p
    return x


class Box:
    pass


def doubled(x):
    if x.sum() > 0:
        p = [1.0, 2.0]
    else:
        p = x[:2] * 2
    return p * 2


def compared(x):
    if x.sum() > 0:
        p = [1.0, 2.0]
    else:
        p = x[:2] * 2
    return p == [1.0, 2.0]


def sliced(x):
    if x.sum() > 0:
        p = [1.0, 2.0]
    else:
        p = x[:2] * 2
    return p[:1][0]


def appended(x):
    if x.sum() > 0:
        p = [1.0, 2.0]
    else:
        p = x[:2] * 2
    p.append(3.0)
    return p[0]


@pytest.mark.parametrize("fn, what", [(returned, "returning it"), (doubled, "'*'"),
                                      (compared, "'=='"), (sliced, "slicing it"),
                                      (appended, ".append()")])
def test_what_differs_is_refused_located(fn, what):
    with pytest.raises(TranspileError) as info:
        jit(fn)(X)
    err = info.value
    assert err.location is not None and err.location.file == __file__
    assert "'p' is a list on one path" in str(err) and what in str(err)


def test_storing_it_on_an_outside_object_is_refused():
    with pytest.raises(TranspileError, match="storing it where the caller sees it"):
        jit(stored)(X, Box())
