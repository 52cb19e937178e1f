"""`x[mask] = f(a[mask], ...)` selected in place when the value is still the elementwise
computation on one mask selection and that mask is the assignment's
(`indexing/bounded_index._assign_selection`), against NumPy: 1-D and n-D masks, masks
over leading axes, casts, and the cases that must keep NumPy's positional rule (another
mask, a selection written to, a reordered value)."""
import numpy as np
import pytest

from benchmarks.shape_kernels import escape_time
from differential import check
from npxla import jit
from npxla.runtime.numpy.indexing import bounded_index

RNG = np.random.default_rng(40)


def square_plus(z, c):
    alive = np.abs(z) <= 1.0
    z[alive] = z[alive] * z[alive] + c[alive]
    return z


def other_array(x, y):
    m = y > 0
    x[m] = y[m] * 2.0 - 1.0
    return x


def leading_axes(x, w):
    m = w > 0.2
    x[m] = x[m] * 3.0
    return x


def into_ints(k, y):
    m = y > 0
    k[m] = y[m] * 10.0
    return k


def other_mask_same_count(x, y):
    m1 = x > np.median(x)
    m2 = y > np.median(y)
    x[m1] = y[m2] + 1.0
    return x


def written_selection(x):
    m = x > 0
    v = x[m] * 2.0
    v[0] = -7.0
    x[m] = v
    return x


def reversed_value(x):
    m = x > 0
    x[m] = (x[m] + 1.0)[::-1]
    return x


def _complex(shape):
    return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)


@pytest.mark.parametrize("shape", [(37,), (9, 11), (3, 4, 5)])
def test_square_plus(shape):
    check(square_plus, _complex(shape), _complex(shape))
    check(square_plus, RNG.standard_normal(shape), RNG.standard_normal(shape))


def test_other_array_and_leading_axes_and_casts():
    check(other_array, RNG.standard_normal((6, 7)), RNG.standard_normal((6, 7)))
    check(leading_axes, RNG.standard_normal((5, 6, 3)), RNG.random((5, 6)))
    check(into_ints, np.zeros((4, 9), np.int64), RNG.standard_normal((4, 9)))


def test_positional_rule_kept():
    x, y = RNG.standard_normal(40), RNG.standard_normal(40)
    check(other_mask_same_count, x, y)
    check(written_selection, RNG.standard_normal(30))
    check(reversed_value, RNG.standard_normal(30))


def test_in_a_loop():
    c = RNG.uniform(-2, 1, (30, 30)) + 1j * RNG.uniform(-1.5, 1.5, (30, 30))
    check(escape_time, c, 25)


def test_the_selection_is_used(monkeypatch):
    used = []
    original = bounded_index._assign_selection

    def spy(x, mask, value):
        used.append(original(x, mask, value))
        return used[-1]

    monkeypatch.setattr(bounded_index, "_assign_selection", spy)
    jit(square_plus)(_complex((9, 11)), _complex((9, 11)))
    assert used == [True]
    used.clear()
    jit(written_selection)(RNG.standard_normal(30))
    jit(reversed_value)(RNG.standard_normal(30))
    assert not any(used)
