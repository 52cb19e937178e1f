"""np.ma masked arrays that mask nothing, against NumPy (runtime/numpy/masked/).

Every case runs plainly and under `jit` on masked arrays of both kinds NumPy makes from
plain data: mask `np.ma.nomask` (np.ma.asarray) and an all-False mask array
(np.ma.array(x, mask=False), np.ma.atleast_2d). The comparison checks what NumPy
returns: the type (MaskedArray or not, NumPy scalar or 0-d array), the kind of mask and
its values, the fill value, dtype, shape and values. The refusals: what NumPy would
mask (at staging when the values are known, else when the program meets them), masks
that hold True, masked arrays across data-dependent control flow, functions whose
masked code paths are not known to match.
"""
import numpy as np
import pytest

from npxla import TranspileError, jit
from npxla.transpiler.base import catalogue as C
from npxla.transpiler.base.errors import DTypeError


def nomask(a):
    return np.ma.asarray(a)


def false_mask(a):
    return np.ma.array(a, mask=False)


MAKERS = [nomask, false_mask]
X = np.arange(1.0, 7.0).reshape(2, 3)
V = np.arange(1.0, 4.0)


# --- cases: f(x, v, mk), mk making the masked array -------------------------------------
def row(x, v, mk):
    return mk(x)[0]


def element(x, v, mk):
    return mk(x)[0, 1]


def column_and_newaxis(x, v, mk):
    m = mk(x)
    return m[:, 1], m[None], m[np.newaxis, 0]


def traced_row(x, v, mk):
    t = int(v[0]) - 1          # a traced index (specialised Python int)
    return mk(x)[t] - v


def transpose_and_shape(x, v, mk):
    m = mk(x)
    return m.T, m.shape, m.ndim, m.size, len(m), np.transpose(m), m.reshape(3, 2), m.ravel()


def arithmetic(x, v, mk):
    m = mk(x)
    return m - 1, 1 - m, x - m, m * m, -m, abs(m), m / 2, m ** 2, m % 4, m // 2


def numpy_scalars(x, v, mk):
    m = mk(x)
    return m + np.float64(1), np.float64(1) + m, np.float64(1) / m, m * v.sum()


def comparisons(x, v, mk):
    m = mk(x)
    return m > 2, m == x, np.any(m > 2), np.isnan(m)


def products(x, v, mk):
    m = mk(x)
    return np.dot(x.T, m), np.dot(m, v), x.T.dot(m), m.dot(v), m @ v, np.outer(m[0], v)


def linalg(x, v, mk):
    m = mk(x)
    return (np.linalg.inv(m[:, :2] + np.eye(2)), np.linalg.solve(np.eye(2) * 2, m),
            np.linalg.pinv(m))


def reductions(x, v, mk):
    m = mk(x)
    return (m.sum(), m.sum(0), np.sum(m, axis=1), m.mean(), m.mean(0), np.mean(m),
            m.max(), m.min(1), m.var(0), m.std(), m.prod(), np.cumsum(m), m.argmax())


def ufuncs(x, v, mk):
    m = mk(x)
    return np.exp(m), np.log(m), np.sqrt(m), np.arcsin(m / 10), np.divide(m, 2)


def conversions(x, v, mk):
    m = mk(x)
    return (np.asarray(m), np.array(m), np.asanyarray(m), np.zeros_like(m), m.copy(),
            m.astype(np.int64), np.concatenate([m, m]), np.where(m > 2, m, 0))


def accessors(x, v, mk):
    m = mk(x)
    return (np.ma.getmask(m), m.mask, m.data, m.filled(), m.filled(0.0), np.ma.getdata(m),
            np.ma.getmaskarray(m), np.ma.filled(m), np.ma.is_masked(m), m.count(),
            m.count(axis=0), m.fill_value, m.compressed())


def questions(x, v, mk):
    m = mk(x)
    return (np.ma.isMaskedArray(m), np.ma.isMA(x), isinstance(m, np.ma.MaskedArray),
            isinstance(m, np.ndarray), type(m) is np.ma.MaskedArray, np.isscalar(m),
            hasattr(m, "mask"), hasattr(x, "mask"))


def constructors(x, v, mk):
    m = mk(x)
    return (np.ma.asarray(m), np.ma.array(m), np.ma.masked_array(x), np.ma.asanyarray(x),
            np.ma.atleast_2d(m), np.ma.atleast_1d(v, x), np.ma.atleast_3d(m),
            np.ma.array([x[0, 0], 2.0]), np.ma.array(x[0], mask=[0, 0, 0]),
            np.ma.asarray(x, dtype=np.float32), np.ma.array(v, ndmin=2))


def zero_d(x, v, mk):
    s = np.ma.asarray(x[0, 0])
    return s, s * 2, np.ma.asarray(2.0) + v[0], s.sum(), mk(x).sum()


def in_place(x, v, mk):
    m = mk(x)
    m += 2
    m /= 2
    m[0] = 5.0
    m[1, :2] = v[:2]
    return m


def rows_in_a_loop(x, v, mk):
    m = mk(x)
    out = np.zeros(3)
    for t in range(2):
        out += m[t] - v
    return out, [r for r in m]


def access_without_mask(x, v, mk):
    return (np.ma.getmask(x), np.ma.getmaskarray(x), np.ma.getdata(x), np.ma.filled(x),
            np.ma.getmask(mk(x)[0]))


CASES = [row, element, column_and_newaxis, traced_row, transpose_and_shape, arithmetic,
         numpy_scalars, comparisons, products, linalg, reductions, ufuncs, conversions,
         accessors, questions, constructors, zero_d, in_place, rows_in_a_loop,
         access_without_mask]


# --- comparison -------------------------------------------------------------------------
def _same(expected, actual, path="result"):
    assert type(actual) is type(expected), \
        f"{path}: {type(actual).__name__}, NumPy gives {type(expected).__name__}"
    if isinstance(expected, (tuple, list)):
        assert len(actual) == len(expected), f"{path}: length"
        for i, (e, a) in enumerate(zip(expected, actual)):
            _same(e, a, f"{path}[{i}]")
        return
    if isinstance(expected, dict):
        assert list(actual) == list(expected), f"{path}: keys"
        for k in expected:
            _same(expected[k], actual[k], f"{path}[{k!r}]")
        return
    if isinstance(expected, np.ma.MaskedArray):
        if expected._mask is np.ma.nomask:
            assert actual._mask is np.ma.nomask, f"{path}: mask is not nomask"
        else:
            assert actual._mask is not np.ma.nomask, f"{path}: mask is nomask"
            np.testing.assert_array_equal(actual._mask, expected._mask, err_msg=path)
        assert actual.fill_value == expected.fill_value, f"{path}: fill value"
        expected, actual = expected.data, actual.data
    if isinstance(expected, (np.ndarray, np.generic)):
        assert actual.dtype == expected.dtype, f"{path}: dtype {actual.dtype}"
        assert actual.shape == expected.shape, f"{path}: shape {actual.shape}"
        np.testing.assert_allclose(actual, expected, rtol=1e-12, atol=1e-12,
                                   equal_nan=True, err_msg=path)
    else:
        assert actual == expected, f"{path}: {actual!r}, NumPy gives {expected!r}"


def _run(fn, *args):
    with np.errstate(all="ignore"):
        expected = fn(*[np.copy(a) if type(a) is np.ndarray else a for a in args])
    actual = jit(fn)(*[np.copy(a) if type(a) is np.ndarray else a for a in args])
    _same(expected, actual)
    return actual


@pytest.mark.parametrize("mk", MAKERS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_matches_numpy(fn, mk):
    _run(fn, X, V, mk)


def test_repeated_calls_rebuild_masked_results():
    f = jit(constructors)
    for k in range(3):
        expected = constructors(X + k, V, nomask)
        _same(expected, f(X + k, V, nomask))


# --- the branch pykalman takes: static, and its masked results -----------------------------
def correct(obs, mean, gain):
    obs = np.ma.asarray(obs)
    if not np.any(np.ma.getmask(obs)):
        return mean + np.dot(gain, obs - np.dot(gain.T, mean))
    return mean


def filter_rows(obs, gain):
    obs = np.ma.atleast_2d(obs)
    if obs.shape[0] == 1 and obs.shape[1] > 1:
        obs = obs.T
    means = np.zeros((obs.shape[0], 2))
    for t in range(obs.shape[0]):
        if not np.any(np.ma.getmask(obs[t])):
            means[t] = gain.dot(obs[t] - 1.0)
    return means


def test_mask_test_is_a_python_branch():
    gain = np.array([[0.5], [0.25]])
    out = _run(correct, np.array([0.3]), np.array([1.0, 2.0]), gain)
    assert type(out) is np.ma.MaskedArray
    text = jit(correct).lower(np.array([0.3]), np.array([1.0, 2.0]), gain).as_text()
    assert "stablehlo.if" not in text and "stablehlo.case" not in text
    _run(filter_rows, np.arange(5.0), gain)


# --- arguments and outputs ----------------------------------------------------------------
def plus_one(m):
    return m + 1, m


class Holder:
    pass


def store(h, x):
    h.m = np.ma.asarray(x) * 2
    h.rows = [np.ma.atleast_2d(x)]


def test_nomask_argument_is_a_masked_array():
    m = np.ma.asarray(X.copy())
    expected = plus_one(m)
    got = jit(plus_one)(m)
    _same(expected, got)
    assert got[1] is m                       # the caller's array itself, as in NumPy
    _same(plus_one(X), jit(plus_one)(X))     # a plain array: another program


@pytest.mark.parametrize("make", [lambda: np.ma.array(X, mask=False),
                                  lambda: np.ma.array(X, mask=X > 3),
                                  lambda: np.ma.array(X, fill_value=-1.0)])
def test_argument_with_a_mask_is_refused_at_the_call(make):
    f = jit(plus_one)
    f(np.ma.asarray(X))
    with pytest.raises(DTypeError) as info:
        f(make())
    assert "argument 'm'" in str(info.value) and "masked array" in str(info.value)
    assert info.value.location is not None and info.value.hint


def test_masked_results_stored_on_objects():
    plain, compiled = Holder(), Holder()
    store(plain, V)
    jit(store)(compiled, V)
    _same(vars(plain), vars(compiled))


# --- refusals ------------------------------------------------------------------------------
def divide(x, y):
    m = np.ma.asarray(x)
    return m / y


def divide_ufunc(x, y):
    return np.divide(np.ma.asarray(x), y)


def power(x, y):
    return np.ma.asarray(x) ** y


def log(x):
    return np.log(np.ma.asarray(x))


def constant_division():
    return np.ma.asarray(np.arange(3.0)) / 0


def _refused(entry, fn, *args):
    """The refusal `entry` (a catalogue entry), located in this file."""
    with np.errstate(all="ignore"), pytest.raises(TranspileError) as info:
        jit(fn)(*args)
    err = info.value
    assert type(err) is entry.error, f"{type(err).__name__}: {err}"
    assert err.hint, "refusals say what to do instead"
    assert err.location is not None and err.location.file.endswith("test_masked.py")
    return err


@pytest.mark.parametrize("fn, good, bad", [
    (divide, (V, np.array([2.0, 3.0, 4.0])), (V, np.array([2.0, 0.0, 4.0]))),
    (divide, (V, np.array([2.0, 3.0, 4.0])), (np.array([1.0, np.nan, 2.0]), V)),
    (power, (V, 2.0), (np.array([1e200, 1.0, 2.0]), 2.0)),
    (log, (V,), (np.array([1.0, -1.0, 2.0]),)),
])
def test_masking_by_value_raises_where_the_program_meets_it(fn, good, bad):
    _run(fn, *good)
    with np.errstate(all="ignore"):
        assert np.ma.getmaskarray(fn(*bad)).any()        # NumPy masks an element
    err = _refused(C.MASKED_VALUES, fn, *bad)
    assert "masks the elements" in str(err)


def test_ufunc_call_masks_by_domain_only():
    # np.divide(m, y) masks where y == 0 but not a nan (a MaskedArray's `/` masks both)
    _run(divide_ufunc, np.array([1.0, np.nan, 2.0]), V)
    _refused(C.MASKED_VALUES, divide_ufunc, V, np.array([2.0, 0.0, 4.0]))


def test_known_values_are_refused_while_compiling():
    err = _refused(C.MASKED_VALUES, constant_division)
    assert "masks the elements" in str(err)


def mask_true(x):
    return np.ma.array(x, mask=x > 2)


def mask_const_true(x):
    return np.ma.array(x, mask=True)


def assign_masked(x):
    m = np.ma.asarray(x)
    m[0] = np.ma.masked
    return m


def write_mask(x):
    m = np.ma.atleast_2d(x)
    mask = np.ma.getmask(m)
    mask[0, 0] = True
    return m


def median(x):
    return np.median(np.ma.asarray(x))


def unknown_method(x):
    return np.ma.asarray(x).anom()


def branch(x):
    m = np.ma.asarray(x)
    while x.sum() > 1:
        x = x / 2
        if x[0] > 0:
            m = m * 2
    return m


def assumed_branch(x):
    m = np.ma.asarray(x)
    if x.sum() > 0:
        m = m * 2
    return m


def test_a_masked_array_in_a_branch_outside_loops_assumes_the_condition():
    _run(assumed_branch, V)
    _run(assumed_branch, -V)


def loop(x):
    m = np.ma.asarray(x)
    for t in range(x.shape[0]):
        m = m + x[t]
    return m


@pytest.mark.parametrize("fn, entry, message", [
    (mask_true, C.MASKED_MASK, "mask computed from data"),
    (mask_const_true, C.MASKED_MASK, "holds True"),
    (assign_masked, C.MASKED_MASK, "np.ma.masked"),
    (write_mask, C.MASKED_MASK, "mask"),
    (median, C.MASKED_OPERATION, "np.median"),
    (unknown_method, C.MASKED_OPERATION, "MaskedArray.anom"),
    (branch, C.MASKED_ACROSS_FLOW, "data-dependent branch or loop"),
    (loop, C.MASKED_ACROSS_FLOW, "data-dependent branch or loop"),
])
def test_refusals_are_located(fn, entry, message):
    err = _refused(entry, fn, V)
    assert message in str(err), str(err)


def constants():
    m = np.ma.atleast_2d(np.arange(3.0))
    return (np.ma.getmask(m), np.ma.getmaskarray(m), np.ma.getdata(m), m.mask, m / 2,
            np.ma.asarray([1.0, 2.0]) * 2, np.ma.is_masked(m), np.ma.isMA(m))


def test_known_constants_keep_their_masks():
    _run(constants)


def set_mask(x):
    m = np.ma.array(np.zeros(x.shape[0]))
    m.mask = True
    return m


def reshape_in_place(x):
    m = np.ma.array(x * 2, mask=False, copy=True)     # owns its data (not a view)
    m.shape = (3, 1)
    return m, np.ma.getmaskarray(m)


def test_setting_the_mask_is_refused_and_the_shape_is_not():
    err = _refused(C.MASKED_MASK, set_mask, V)
    assert ".mask" in str(err)
    _run(reshape_in_place, V)


def bump(m):
    m += 1
    m[0] = -1.0
    return m


def test_nomask_argument_is_updated_in_place():
    plain, compiled = np.ma.asarray(V.copy()), np.ma.asarray(V.copy())
    expected, got = bump(plain), jit(bump)(compiled)
    assert got is compiled and compiled.mask is np.ma.nomask
    _same(plain, compiled)
    _same(expected, got)
