"""np.linalg vs NumPy: dtypes (float32/64, complex64/128, ints -> float64), stacked matrices,
modes and orders, empty inputs, errors; singular/non-PD matrices raise LinAlgError."""
import numpy as np
import pytest

from matrix import dtype_in, slow_except
from hypothesis import given, settings, strategies as st

from differential import check, tolerance
from npxla import jit
from npxla.transpiler.base.errors import UnsupportedFunctionError

import npxla.runtime.numpy.linalg.linalg_common as _impl

RNG = np.random.default_rng(7)
FLOATS = [np.float32, np.float64, np.complex64, np.complex128]
DTYPES = FLOATS + [np.int64]
# single precision repeats the float64/complex128 paths: CI's slow run covers it
DTYPES_SPLIT = slow_except(DTYPES, dtype_in(np.float64, np.complex128, np.int64))
LinAlgError = np.linalg.LinAlgError
needs_error_class = pytest.mark.skipif(
    not _impl._CHECK_TAKES_ERROR,
    reason="runtime error flags raise only IndexError in this core (errorflags.check has "
           "no error= parameter)")


def tol(dt):
    return tolerance(dt, half=2e-3, single=2e-5, double=(1e-9, 1e-10))


def mat(shape, dt, shift=True):
    """Well-conditioned test matrix (diagonally shifted) of any dtype."""
    dt = np.dtype(dt)
    x = RNG.normal(size=shape)
    if dt.kind == "c":
        x = x + 1j * RNG.normal(size=shape)
    if shift and len(shape) >= 2 and shape[-1] == shape[-2]:
        x = x + shape[-1] * np.eye(shape[-1])
    if dt.kind in "iu":
        return np.round(x * 2).astype(dt)
    return x.astype(dt)


def spd(shape, dt):
    x = mat(shape, dt if np.dtype(dt).kind in "fc" else np.float64, shift=False)
    a = x @ np.swapaxes(x, -1, -2).conj() + shape[-1] * np.eye(shape[-1])
    return np.round(a).astype(dt) if np.dtype(dt).kind in "iu" else a.astype(dt)


def canon(v):
    """Columns scaled so that each one's largest-magnitude entry is real positive (the
    first of entries equal in magnitude up to rounding: an integer matrix's eigenvector
    can have two, and rounding picked either)."""
    mag = np.abs(v)
    near = mag >= mag.max(axis=-2, keepdims=True) * (1 - 1e-9)
    idx = np.argmax(near, axis=-2)[..., None, :]
    piv = np.take_along_axis(v, idx, axis=-2)
    return v * (np.abs(piv) / piv)


# --- LU family -------------------------------------------------------------------------------

def lu_family(a, b, B):
    sign, logdet = np.linalg.slogdet(a)
    return (np.linalg.solve(a, b), np.linalg.solve(a, B), np.linalg.inv(a),
            np.linalg.det(a), sign, logdet)


@pytest.mark.parametrize("dt", DTYPES_SPLIT)
def test_lu_family(dt):
    check(lu_family, mat((3, 3), dt), mat((3,), dt), mat((3, 2), dt), **tol(dt))


@pytest.mark.parametrize("dt", [np.float32, np.complex128])
def test_lu_family_stacked(dt):
    check(lu_family, mat((2, 3, 3), dt), mat((3,), dt), mat((2, 3, 4), dt), **tol(dt))


def test_lu_mixed_and_small_ints():
    check(lu_family, np.array([[2, 1], [1, 3]], np.int8), np.array([1, 2], np.int16),
          np.eye(2, dtype=np.bool_))
    check(lu_family, mat((3, 3), np.float32), mat((3,), np.float64), mat((3, 1), np.int32))


@pytest.mark.parametrize("sa,sb", [
    ((3, 3), (2, 3, 4)), ((2, 1, 3, 3), (4, 3, 2)), ((2, 3, 3), (3,)), ((2, 3, 3), (2, 3, 1)),
    ((1, 1), (1,)), ((4, 4), (4, 0)), ((0, 0), (0,)), ((2, 0, 0), (2, 0, 3)),
    ((0, 3, 3), (3,))])
def test_solve_shapes(sa, sb):
    def f(a, b):
        return np.linalg.solve(a, b)
    check(f, mat(sa, np.float64), mat(sb, np.float64) if 0 not in sb else np.ones(sb))


@pytest.mark.parametrize("sa,sb,exc", [
    ((3, 3), (4,), ValueError), ((3, 3), (2, 4, 2), ValueError),
    ((2, 3, 3), (3, 3, 1), ValueError), ((3, 4), (3,), LinAlgError), ((3,), (3,), LinAlgError)])
def test_solve_errors(sa, sb, exc):
    def f(a, b):
        return np.linalg.solve(a, b)
    a, b = np.ones(sa), np.ones(sb)
    with pytest.raises(exc):
        f(a, b)
    with pytest.raises(exc):
        jit(f)(a, b)


@pytest.mark.parametrize("shape", [(0, 0), (2, 0, 0), (0, 2, 2)])
def test_lu_family_empty(shape):
    def f(a):
        sign, logdet = np.linalg.slogdet(a)
        return np.linalg.inv(a), np.linalg.det(a), sign, logdet
    check(f, np.ones(shape))


def test_float16_and_1d_refused():
    def f(a):
        return np.linalg.inv(a)
    with pytest.raises(TypeError, match="float16 is unsupported in linalg"):
        jit(f)(np.eye(2, dtype=np.float16))
    with pytest.raises(LinAlgError, match="1-dimensional array given"):
        jit(f)(np.ones(3))
    with pytest.raises(LinAlgError, match="must be square"):
        jit(f)(np.ones((2, 3)))


def test_singular_det_slogdet():
    def f(a):
        sign, logdet = np.linalg.slogdet(a)
        return np.linalg.det(a), sign, logdet
    check(f, np.array([[1., 2.], [2., 4.]]))
    check(f, np.array([[[1., 2.], [2., 4.]], [[0, 1], [1, 0]]], np.complex64))


@needs_error_class
def test_singular_raises():
    sing = np.array([[1., 2.], [2., 4.]])

    def f(a):
        return np.linalg.inv(a)

    def g(a, b):
        return np.linalg.solve(a, b)
    with pytest.raises(LinAlgError, match="Singular matrix"):
        jit(f)(sing)
    with pytest.raises(LinAlgError, match="Singular matrix"):
        jit(g)(np.stack([np.eye(2), sing]), np.ones(2))
    check(f, np.eye(2) * 2)          # the same executable runs fine on a regular matrix


def test_runtime_flags_are_computed(monkeypatch):
    """The device-side checks behind LinAlgError, whatever exception class the core's
    error flags raise (IndexError until they take an `error=` class)."""
    from npxla.runtime.numpy.core import errorflags
    original, takes_error = errorflags.check, _impl._CHECK_TAKES_ERROR

    def flag_check(flag, message, error=IndexError):
        if takes_error:
            return original(flag, message, error=error)
        return original(flag, message)
    monkeypatch.setattr(errorflags, "check", flag_check)
    monkeypatch.setattr(_impl, "_CHECK_TAKES_ERROR", True)

    def f(a):
        return np.linalg.inv(a), np.linalg.cholesky(a @ a.T)

    def chol(a):
        return np.linalg.cholesky(a)

    def g(a):
        return np.linalg.eigvals(a + 0j)
    for fn, bad, message in [(f, np.array([[1., 2.], [2., 4.]]), "Singular matrix"),
                             (chol, np.array([[1., 2.], [2., 1.]]), "not positive definite"),
                             (g, np.array([[1., 0.], [0., np.inf]]), "infs or NaNs")]:
        for fn_ in (fn, jit(fn)):
            with pytest.raises((LinAlgError, IndexError), match=message):
                fn_(bad)
    check(f, np.eye(2))


def test_non_finite_input_gives_nan():
    """NaN/inf input: NaN results, no LinAlgError, except the SVD of a NaN matrix, for
    which NumPy (LAPACK) raises 'SVD did not converge', and so does npxla."""
    def f(a):
        return np.linalg.eigvalsh(a), np.linalg.cholesky(a)

    def g(a):
        return np.linalg.svd(a)[1]
    x = np.array([[1., np.nan], [np.nan, 1.]])
    w, c = jit(f)(x)
    assert np.isnan(w).all() and np.isnan(c[1]).all()
    with pytest.raises(LinAlgError, match="SVD did not converge"):
        g(x)
    with pytest.raises(LinAlgError, match="SVD did not converge"):
        jit(g)(x)
    inf = np.array([[np.inf, 0.], [0., 1.]])
    np.testing.assert_array_equal(np.isnan(jit(g)(inf)), np.isnan(g(inf)))


@pytest.mark.parametrize("n", [-3, 0, 1, 2, 5])
def test_matrix_power(n):
    def f(a):
        return np.linalg.matrix_power(a, n)
    check(f, mat((2, 3, 3), np.float64), rtol=1e-9)
    if n >= 0:
        check(f, np.array([[1, 2], [3, 4]], np.int32))
    else:
        check(f, np.array([[2, 1], [1, 1]], np.int64), rtol=1e-9)


def test_matrix_power_specialises_python_exponent():
    def f(a, n):
        return np.linalg.matrix_power(a, n)
    a = mat((3, 3), np.complex64)
    check(f, a, 3, **tol(np.complex64))
    check(f, a, -2, **tol(np.complex64))
    with pytest.raises(TypeError, match="exponent must be an integer"):
        jit(f)(a, 1.5)


def test_tensorinv_tensorsolve():
    a = mat((6, 6), np.float64).reshape(6, 2, 3)

    def f(a, b):
        return np.linalg.tensorinv(a, ind=1), np.linalg.tensorsolve(a, b)
    check(f, a, mat((6,), np.float64), rtol=1e-9)

    def g(a, b):
        return np.linalg.tensorsolve(a, b, axes=(0,))
    check(g, mat((6, 6), np.float64).reshape(6, 2, 3), mat((2, 3), np.float64), rtol=1e-9)


# --- Cholesky, QR ----------------------------------------------------------------------------

@pytest.mark.parametrize("dt", DTYPES_SPLIT)
def test_cholesky(dt):
    def f(a):
        return np.linalg.cholesky(a), np.linalg.cholesky(a, upper=True)
    check(f, spd((3, 3), dt), **tol(dt))


def test_cholesky_stacked_reads_one_triangle():
    def f(a):
        return np.linalg.cholesky(a), np.linalg.cholesky(a, upper=True)
    a = spd((2, 4, 4), np.float64)
    check(f, a, rtol=1e-10)
    b = a.copy()
    b[:, 0, 3] = 99.0        # above the diagonal: lower ignores it
    check(lambda a: np.linalg.cholesky(a), b, rtol=1e-10)


@needs_error_class
def test_cholesky_not_positive_definite():
    def f(a):
        return np.linalg.cholesky(a)
    with pytest.raises(LinAlgError, match="not positive definite"):
        jit(f)(np.array([[1., 2.], [2., 1.]]))


CASES = [(dt, (4, 3)) for dt in DTYPES] + [(dt, shape) for dt in (np.float32, np.complex128)
                                           for shape in [(3, 4), (2, 3, 3)]]


@pytest.mark.parametrize("dt,shape", CASES)
def test_qr(dt, shape):
    def f(a):
        q, r = np.linalg.qr(a)
        qc, rc = np.linalg.qr(a, mode="complete")
        h, tau = np.linalg.qr(a, mode="raw")
        return q, r, qc, rc, np.linalg.qr(a, mode="r"), h, tau
    check(f, mat(shape, dt), **tol(dt))


def test_qr_results_and_modes():
    def f(a):
        res = np.linalg.qr(a)
        return res.Q, res.R
    check(f, mat((5, 2), np.float64), rtol=1e-10)
    check(f, np.zeros((0, 3)))

    def g(a):
        return np.linalg.qr(a, mode="bogus")
    with pytest.raises(ValueError, match="Unrecognized mode"):
        jit(g)(mat((2, 2), np.float64))


# --- eigenvalues -------------------------------------------------------------------------------

@pytest.mark.parametrize("dt", DTYPES_SPLIT)
def test_eigh(dt):
    def f(a):
        w, v = np.linalg.eigh(a)
        wu, vu = np.linalg.eigh(a, UPLO="U")
        return w, v, wu, vu, np.linalg.eigvalsh(a, "U")
    a = spd((2, 4, 4), dt)
    w, v, wu, vu, w2 = jit(f)(a)
    ew, ev, _, _, _ = f(a)
    for x in (w, wu, w2):
        assert x.dtype == ew.dtype
        np.testing.assert_allclose(x, ew, **tol(dt))
    for x in (v, vu):
        assert x.dtype == ev.dtype
        np.testing.assert_allclose(canon(x), canon(ev), **tol(dt))


def test_eigvalsh_reads_one_triangle():
    def f(a):
        return np.linalg.eigvalsh(a), np.linalg.eigvalsh(a, UPLO="u")
    check(f, mat((4, 4), np.float64), rtol=1e-10)          # not symmetric
    check(f, mat((3, 3), np.complex64), **tol(np.complex64))

    def g(a):
        return np.linalg.eigh(a, UPLO="X")
    with pytest.raises(ValueError, match="UPLO"):
        jit(g)(np.eye(2))


@pytest.mark.parametrize("dt", [np.complex64, np.complex128])
def test_eig_complex(dt):
    def f(a):
        w, v = np.linalg.eig(a)
        return w, v, np.linalg.eigvals(a)
    a = mat((3, 3), dt)
    w, v, w2 = jit(f)(a)
    ew, ev, _ = f(a)
    order, eorder = np.argsort(w), np.argsort(ew)
    np.testing.assert_allclose(w[order], ew[eorder], **tol(dt))
    np.testing.assert_allclose(np.sort(w2), np.sort(ew), **tol(dt))
    np.testing.assert_allclose(canon(v[:, order]), canon(ev[:, eorder]), **tol(dt))
    assert v.dtype == ev.dtype and w.dtype == ew.dtype


def _eig_real(a):
    w, v = np.linalg.eig(a)
    return w, v, np.linalg.eigvals(a)


def test_eig_real_assumes_its_dtype_and_checks_it():
    """NumPy's eigenvalues of a real matrix are real unless some is not (geev's
    imaginary parts all exactly 0): assumed, checked when the program runs, staged
    again when a run finds the other dtype, in either direction."""
    f = jit(_eig_real)
    f.clear_cache()
    symmetric = np.array([[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]])
    rotation = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 2.0]])
    for a in (symmetric, rotation, symmetric, mat((3, 3), np.float64)):
        w, v, w2 = f(a)
        ew, ev, _ = _eig_real(a)
        assert w.dtype == ew.dtype and v.dtype == ev.dtype and w2.dtype == ew.dtype
        order, eorder = np.argsort(w), np.argsort(ew)
        np.testing.assert_allclose(w[order], ew[eorder], rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(canon(v[:, order]), canon(ev[:, eorder]), rtol=1e-8,
                                   atol=1e-10)


def test_eig_real_inside_a_staged_loop_is_refused():
    def f(a, n):
        s = 0.0
        for i in range(n):
            s = s + np.linalg.eigvals(a * i).real.sum()
        return s
    with pytest.raises(UnsupportedFunctionError, match="depending on the data"):
        jit(f)(mat((3, 3), np.float64), np.int64(3))


# --- SVD family ------------------------------------------------------------------------------

CASES_SVD = [(dt, (4, 3)) for dt in DTYPES] + [
    (dt, shape) for dt in (np.float32, np.complex128) for shape in [(3, 5), (2, 3, 3)]]


@pytest.mark.parametrize("dt,shape", CASES_SVD)
def test_svd(dt, shape):
    def f(a):
        u, s, vh = np.linalg.svd(a)
        ur, sr, vhr = np.linalg.svd(a, full_matrices=False)
        return u, s, vh, ur, sr, vhr, np.linalg.svd(a, compute_uv=False), np.linalg.svdvals(a)
    a = mat(shape, dt, shift=False)
    got, want = jit(f)(a), f(a)
    for x, e in zip(got, want):
        assert x.dtype == e.dtype and x.shape == e.shape
    for x in got[1], got[4], got[6], got[7]:
        np.testing.assert_allclose(x, want[1], **tol(dt))
    k = min(shape[-2:])
    for u, s, vh in (got[:3], got[3:6]):
        rec = (u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :]
        np.testing.assert_allclose(rec, a, **tol(dt))
        np.testing.assert_allclose(canon(u[..., :, :k]), canon(want[0][..., :, :k]), **tol(dt))


def test_svd_result_fields_and_empty():
    def f(a):
        r = np.linalg.svd(a)
        return r.S, np.linalg.svd(a, hermitian=True, compute_uv=False)
    check(f, spd((3, 3), np.float64), rtol=1e-10)
    check(lambda a: tuple(np.linalg.svd(a)), np.ones((0, 3)))


@pytest.mark.parametrize("dt", DTYPES_SPLIT)
def test_pinv_rank_cond(dt):
    def f(a, sq):
        return (np.linalg.pinv(a), np.linalg.matrix_rank(a), np.linalg.cond(sq),
                np.linalg.cond(sq, 1), np.linalg.cond(sq, -np.inf), np.linalg.cond(sq, "fro"),
                np.linalg.cond(sq, -2))
    check(f, mat((4, 3), dt, shift=False), mat((2, 3, 3), dt), **tol(dt))


def test_pinv_rank_options():
    low = mat((5, 2), np.float64, shift=False) @ mat((2, 4), np.float64, shift=False)

    def f(a):
        return (np.linalg.pinv(a), np.linalg.pinv(a, rcond=1e-3),
                np.linalg.pinv(a, rtol=None), np.linalg.pinv(a, hermitian=False),
                np.linalg.matrix_rank(a), np.linalg.matrix_rank(a, tol=1e-3),
                np.linalg.matrix_rank(a, rtol=0.5), np.linalg.matrix_rank(np.stack([a, a])))
    check(f, low, rtol=1e-8, atol=1e-10)

    def g(v):
        return np.linalg.matrix_rank(v)
    check(g, np.zeros(3))
    check(g, np.array([0.0, 2.0]))
    check(g, np.zeros((3, 0)))


def test_pinv_traced_rcond():
    def f(a, rc):
        return np.linalg.pinv(a, rcond=rc)
    a = np.diag([1.0, 1e-4, 2.0])
    check(f, a, 1e-3)
    check(f, a, 1e-6)


CASES_LSTSQ = [(dt, 5, 3, None) for dt in DTYPES] + [
    (np.float64, 5, 3, 2), (np.complex64, 3, 5, 2), (np.float32, 4, 4, None)]


@pytest.mark.parametrize("dt,m,n,k", CASES_LSTSQ)
def test_lstsq(dt, m, n, k):
    def f(a, b):
        return np.linalg.lstsq(a, b)
    b = mat((m,) if k is None else (m, k), dt, shift=False)
    check(f, mat((m, n), dt, shift=False), b, **tol(dt))


def test_lstsq_rank_deficient_documented():
    """Residuals keep shape (K,) for M > N even when `a` is rank-deficient (NumPy gives an
    empty array); x, rank and s match NumPy."""
    a = np.array([[1., 2.], [2., 4.], [3., 6.]])
    b = np.array([1., 0., 2.])

    def f(a, b):
        return np.linalg.lstsq(a, b)
    x, res, rank, s = jit(f)(a, b)
    ex, eres, erank, es = f(a, b)
    np.testing.assert_allclose(x, ex, rtol=1e-10)
    np.testing.assert_allclose(s, es, rtol=1e-10)
    assert rank == erank == 1 and type(rank) is type(erank)
    assert eres.shape == (0,) and res.shape == (1,)
    np.testing.assert_allclose(res, [np.sum((a @ x - b) ** 2)], rtol=1e-10)

    def g(a, b, rc):
        return np.linalg.lstsq(a, b, rcond=rc)[0]
    check(g, a, b, -1.0, rtol=1e-10)
    check(g, a, b, 0.5, rtol=1e-10)


def test_lstsq_errors_and_empty():
    def f(a, b):
        return np.linalg.lstsq(a, b)
    with pytest.raises(LinAlgError, match="Incompatible dimensions"):
        jit(f)(np.ones((3, 2)), np.ones(4))
    with pytest.raises(LinAlgError, match="3-dimensional"):
        jit(f)(np.ones((1, 3, 2)), np.ones(3))
    check(f, np.ones((0, 2)), np.ones(0))
    check(f, np.ones((3, 2)), np.ones((3, 0)))


# --- norms --------------------------------------------------------------------------------

VECTOR_ORDS = [None, 0, 1, 2, np.inf, -np.inf, 3, 0.5, -1]
MATRIX_ORDS = [None, "fro", "nuc", np.inf, -np.inf, 1, -1, 2, -2]


@pytest.mark.parametrize("dt", [np.float16, np.float32, np.float64, np.complex64,
                                np.complex128, np.int32, np.bool_])
def test_vector_norms(dt):
    def f(v, m):
        out = [np.linalg.norm(v), np.linalg.norm(m), np.linalg.norm(m, keepdims=True)]
        for o in VECTOR_ORDS:
            out.append(np.linalg.norm(v, o))
            out.append(np.linalg.norm(m, o, axis=1, keepdims=True))
        return out
    check(f, mat((5,), dt, shift=False), mat((3, 4), dt, shift=False), **tol(dt))


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.complex128, np.int64])
def test_matrix_norms(dt):
    def f(m, s):
        out = []
        for o in MATRIX_ORDS:
            out.append(np.linalg.norm(m, o))
            out.append(np.linalg.norm(s, o, axis=(2, 0), keepdims=True))
        return out
    check(f, mat((3, 4), dt, shift=False), mat((3, 2, 4), dt, shift=False), **tol(dt))


def test_norm_variants_and_errors():
    def f(x):
        return (np.linalg.norm(x, axis=-1), np.linalg.norm(x, axis=(0, 1)),
                np.linalg.norm(x, ord=2, axis=0), np.linalg.matrix_norm(x),
                np.linalg.matrix_norm(x, ord=1, keepdims=True), np.linalg.vector_norm(x),
                np.linalg.vector_norm(x, axis=(0, 2), ord=np.inf, keepdims=True),
                np.linalg.vector_norm(x, axis=1, ord=3))
    check(f, mat((2, 3, 4), np.float64, shift=False), rtol=1e-10)
    check(lambda s: np.linalg.norm(s), 3.0)
    check(lambda s: np.linalg.norm(s), np.float32(-2.0))
    x = np.ones((2, 3))
    for bad, exc in [(dict(ord="fro", axis=0), ValueError), (dict(ord=3), ValueError),
                     (dict(axis=(0, 0)), ValueError), (dict(axis=(0, 1, 2)), ValueError),
                     (dict(axis="a"), TypeError)]:
        def g(x):
            return np.linalg.norm(x, **bad)
        with pytest.raises(exc):
            g(x)
        with pytest.raises(exc):
            jit(g)(x)


# --- products, attribute access, control flow ------------------------------------------------

def test_multi_dot_and_array_api_aliases():
    def f(a, b, c, v, w):
        return (np.linalg.multi_dot([a, b, c]), np.linalg.multi_dot([v, a, b, c, w]),
                np.linalg.multi_dot([v, a]), np.linalg.multi_dot([a, b, c, w]),
                np.linalg.matmul(a, b), np.linalg.matrix_transpose(c),
                np.linalg.outer(v, w))
    check(f, mat((3, 4), np.float64), mat((4, 2), np.float64), mat((2, 5), np.float64),
          mat((3,), np.float64), mat((5,), np.float64), rtol=1e-10)


def test_results_fields_inside():
    def f(a):
        e = np.linalg.eigh(a)
        q = np.linalg.qr(a)
        s = np.linalg.slogdet(a)
        return e.eigenvalues, q.R, s.sign * np.exp(s.logabsdet)
    check(f, spd((3, 3), np.float64), rtol=1e-10)


def test_linalg_in_loop():
    def newton(a, x):
        # Newton iteration for a x = x**2 elementwise-ish system: uses solve in a loop
        for _ in range(3):
            x = x - np.linalg.solve(a, a @ x - 1.0)
        k = 0
        while np.linalg.norm(a @ x - 1.0) > 1e-12 and k < 10:
            x = x - np.linalg.solve(a, a @ x - 1.0)
            k += 1
        return x, np.linalg.det(a) if k < 5 else np.linalg.det(a.T)
    check(newton, mat((3, 3), np.float64), np.zeros(3), rtol=1e-9)


@settings(max_examples=6, deadline=None)
@given(st.lists(st.integers(1, 3), min_size=0, max_size=2),
       st.lists(st.integers(1, 3), min_size=0, max_size=2),
       st.sampled_from([None, 1, 2]))
@pytest.mark.slow     # heavy: CI's slow run covers it (tests/matrix.py)
def test_solve_batch_broadcasting(ba, bb, k):
    ba, bb = tuple(ba), tuple(bb)
    try:
        np.broadcast_shapes(ba, bb)
    except ValueError:
        return

    def f(a, b):
        return np.linalg.solve(a, b)
    b = mat((3,), np.float64) if k is None else mat(bb + (3, k), np.float64)
    check(f, mat(ba + (3, 3), np.float64), b, rtol=1e-9)


def inverse_of(a):
    return np.linalg.inv(a)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_inverse_of_a_one_by_one_matrix_is_lapacks_to_the_bit(dtype):
    # `1 / a` without the library calls (a Kalman update with one scalar measurement)
    rng = np.random.default_rng(11)
    for a in (rng.normal(size=(1, 1)) * 1e3, rng.normal(size=(4, 3, 1, 1)),
              np.array([[np.inf]]), np.array([[-np.inf]]), np.array([[np.nan]]),
              np.array([[1e-30]])):
        check(inverse_of, a.astype(dtype), rtol=0, atol=0)
    check(inverse_of, np.array([[3]]), rtol=0, atol=0)          # an int matrix: float64
    for singular in (np.array([[0.0]]), np.array([[-0.0]]), np.array([[[2.0]], [[0.0]]])):
        with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
            inverse_of(singular)
        with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
            jit(inverse_of)(singular.astype(dtype))
