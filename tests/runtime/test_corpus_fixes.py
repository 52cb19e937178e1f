"""Classes of failures found by the real-code corpus (tests/realcode, issue 34), each
checked against NumPy on its own: values, dtypes, shapes and the caller's arrays and
objects afterwards, with the operation run on constants (Python while staging), on
traced arrays, and inside data-dependent control flow (staged regions).

- `x[mask, ...] = v` and `x[mask, :] = v` with a value whose length is only known at
  run time (`m1[is_nan, ...] = prior_mean[is_nan, ...]` in simdkalman): trailing
  Ellipsis and full slices select what `x[mask]` selects.
- `copy.copy(a)` / `copy.deepcopy(a)` of arrays, and of containers and objects holding
  them (`self.z = deepcopy(z)` in filterpy): a new array, never the handle or a view.
"""
import copy

import numpy as np
import pytest

from npxla import jit

from differential import _compare, check


# ---------------------------------------------------------------- mask + trailing full

def mask_ellipsis_from_same_mask(m1, prior):
    is_nan = np.ravel(np.any(np.isnan(m1), axis=1))
    m1[is_nan, ...] = prior[is_nan, ...]
    return m1


def mask_colon_from_same_mask(a, b):
    m = a[:, 0] > 0
    a[m, :] = b[m, :]
    return a.sum(), a


def mask_ellipsis_scalar(k, m):
    k[m, ...] = 0
    return k


def mask_ellipsis_in_branch(a, b):
    m = a[:, 0] > 0
    if a.sum() > 0:
        a[m, ...] = b[m, ...] * 2.0
    return a


def mask_colon_colon(a, b):
    m = b[:, 0, 0] < 0.5
    a[m, :, :] = b[m, :, :]
    return a


def _nan_rows(rng, n=5):
    m1 = rng.standard_normal((n, 2, 1))
    m1[[1, 3]] = np.nan
    return m1


@pytest.mark.parametrize("seed", [0, 1])
def test_mask_ellipsis_value_from_same_mask(seed):
    rng = np.random.default_rng(seed)
    check(mask_ellipsis_from_same_mask, _nan_rows(rng), rng.standard_normal((5, 2, 1)))


def test_mask_ellipsis_no_row_selected():
    rng = np.random.default_rng(3)
    check(mask_ellipsis_from_same_mask, rng.standard_normal((4, 2, 1)),
          rng.standard_normal((4, 2, 1)))


def test_mask_colon_value_from_same_mask():
    rng = np.random.default_rng(2)
    check(mask_colon_from_same_mask, rng.standard_normal((6, 3)), rng.standard_normal((6, 3)))


def test_mask_ellipsis_scalar_and_constant_mask():
    rng = np.random.default_rng(4)
    check(mask_ellipsis_scalar, rng.standard_normal((4, 2, 2)),
          np.array([True, False, True, False]))


def test_mask_ellipsis_inside_data_dependent_branch():
    rng = np.random.default_rng(5)
    for a in (np.abs(rng.standard_normal((5, 2))), -np.abs(rng.standard_normal((5, 2)))):
        check(mask_ellipsis_in_branch, a, rng.standard_normal((5, 2)))


def test_mask_two_trailing_colons():
    rng = np.random.default_rng(6)
    check(mask_colon_colon, rng.standard_normal((6, 2, 3)), rng.random((6, 2, 3)))


def mask_then_int(a, b):
    m = a[:, 0] > 0
    a[m, 0] = b[m, 0]
    return a


def test_mask_with_a_later_index_is_still_refused_or_right():
    """`x[m, 0] = v[m, 0]` is not the trailing-full case: it must agree or be a located
    refusal, never a silent difference."""
    from npxla import TranspileError
    rng = np.random.default_rng(7)
    a, b = rng.standard_normal((5, 2)), rng.standard_normal((5, 2))
    try:
        check(mask_then_int, a, b)
    except TranspileError as e:
        assert e.location is not None and e.location.line


# ---------------------------------------------------------------- copy and deepcopy

def deepcopy_then_write(x):
    y = copy.deepcopy(x)
    y[0] = 5.0
    return y, x


def copy_of_view_then_update(x):
    z = copy.copy(x[1:])
    z += 1
    return z, x


def deepcopy_of_dict(d):
    e = copy.deepcopy(d)
    e["a"][1] = -1.0
    e["b"][0][:] = 7.0
    return e


def deepcopy_of_scalars(x, s):
    u = copy.deepcopy(x[0])         # a NumPy scalar
    t = copy.deepcopy(s)            # a Python float
    v = copy.copy(x.sum())
    return u, t, v


def deepcopy_zero_d(x):
    a = np.asarray(x.sum())         # a 0-d array
    b = copy.deepcopy(a)
    b[()] = 3.0
    return a, b


def deepcopy_shared(x):
    pair = copy.deepcopy([x, x])    # one array twice: the copies are one array too
    pair[0][0] = -9.0
    return pair[1], x


def deepcopy_in_branch(x):
    y = x
    if x.sum() > 0:
        y = copy.deepcopy(x)
        y[0] = 100.0
    return y, x


def deepcopy_in_loop(x):
    saved = x
    for i in range(x.shape[0]):
        if x[i] > 0:
            saved = copy.deepcopy(x)
        x[i] = -x[i]
    return saved, x


@pytest.mark.parametrize("fn", [deepcopy_then_write, copy_of_view_then_update,
                                deepcopy_zero_d, deepcopy_shared, deepcopy_in_branch])
def test_copies_are_new_arrays(fn):
    check(fn, np.arange(4.0) - 1.0)
    check(fn, np.arange(4.0) + 1.0)


def test_deepcopy_in_staged_loop():
    check(deepcopy_in_loop, np.array([1.0, -2.0, 3.0, -4.0]))


def test_deepcopy_of_containers():
    d = {"a": np.ones(3), "b": [np.zeros(2), 3]}
    check(deepcopy_of_dict, d)


def test_copies_of_scalars_keep_their_types():
    check(deepcopy_of_scalars, np.arange(3.0), 2.5)


class Saver:
    def __init__(self):
        self.x = np.zeros(2)

    def update(self, z):
        self.z = copy.deepcopy(z)
        self.x = self.x + z
        self.x_post = self.x.copy()
        return self.x


def test_deepcopy_stored_on_self_is_not_the_argument():
    plain, staged = Saver(), Saver()
    f = jit(staged.update)
    for seed in (0, 1):
        z = np.random.default_rng(seed).standard_normal(2)
        zp, zj = z.copy(), z.copy()
        _compare(plain.update(zp), f(zj), 1e-12, 1e-12)
        for k in vars(plain):
            _compare(getattr(plain, k), getattr(staged, k), 1e-12, 1e-12, k)
        assert staged.z is not zj
        zj[0] = 123.0                 # the stored copy is not the caller's array
        assert staged.z[0] != 123.0
