"""scipy.linalg (and scipy.linalg.lapack's ?gtsv) under @jit against SciPy itself: values,
dtypes (float32 stays float32, small integers compute in float32, ...), stacked
matrices, SciPy's errors and messages (singular, not positive definite, non-finite
input), the staged path inside data-dependent branches and loops; and a section of
np.linalg parity on singular and ill-conditioned matrices (issue 36, item 4).

Functions are module-level `def`s (lambdas are converted as well, tests/runtime/
test_lambdas.py)."""
import numpy as np
import pytest

scipy_linalg = pytest.importorskip("scipy.linalg")

from scipy.linalg import lapack  # noqa: E402

from differential import check  # noqa: E402
from npxla import jit  # noqa: E402

sl = scipy_linalg
LinAlgError = np.linalg.LinAlgError
RNG = np.random.default_rng(36)
slow = pytest.mark.slow


def tol(dt):
    """Tolerances for the precision SciPy computes `dt` in."""
    single = np.dtype(dt) in (np.float32, np.complex64, np.int8, np.bool_, np.float16)
    return dict(rtol=2e-4, atol=2e-5) if single else dict(rtol=1e-9, atol=1e-11)


def mat(shape, dt=np.float64, shift=True):
    x = RNG.normal(size=shape)
    if np.dtype(dt).kind == "c":
        x = x + 1j * RNG.normal(size=shape)
    if shift:
        x = x + shape[-1] * np.eye(shape[-1])
    if np.dtype(dt).kind in "iu":
        return np.round(2 * x).astype(dt)
    return x.astype(dt)


def spd(n, dt=np.float64, batch=()):
    x = mat(batch + (n, n), np.complex128 if np.dtype(dt).kind == "c" else np.float64,
            shift=False)
    a = x @ np.swapaxes(x, -1, -2).conj() + n * np.eye(n)
    return np.round(a).astype(dt) if np.dtype(dt).kind in "iu" else a.astype(dt)


def vec(shape, dt=np.float64):
    return mat(shape, dt, shift=False)


def canon(v):
    """Columns scaled so that each one's largest-magnitude entry is real positive."""
    idx = np.argmax(np.abs(v), axis=-2)[..., None, :]
    piv = np.take_along_axis(v, idx, axis=-2)
    return v * (np.abs(piv) / piv)


def same_error(fn, *args):
    """fn raises the same exception type with the same message under @jit as with SciPy."""
    with pytest.raises(Exception) as want:
        fn(*args)
    with pytest.raises(want.type) as got:
        jit(fn)(*args)
    assert str(got.value) == str(want.value)


# --- one program per dtype: every function on the same inputs ---------------------------------

def lu_family(a, b, B):
    lu, piv = sl.lu_factor(a)
    p, lo, up = sl.lu(a)
    return (sl.inv(a), sl.solve(a, b), sl.solve(a, B), lu, piv, sl.lu_solve((lu, piv), B),
            sl.lu_solve((lu, piv), b, trans=1), p, lo, up, sl.solve_triangular(a, B),
            sl.solve_triangular(a, b, lower=True, trans="T"), sl.pinv(a))


def spd_family(s, b):
    c, low = sl.cho_factor(s)
    c2, low2 = sl.cho_factor(s, lower=True)
    return (sl.cholesky(s), sl.cholesky(s, lower=True), c, low, c2, low2,
            sl.cho_solve((c, low), b), sl.cho_solve((c2, low2), b),
            sl.eigh(s, eigvals_only=True), sl.solve(s, b, assume_a="pos"),
            sl.inv(s, assume_a="pos", lower=True), sl.svd(s, compute_uv=False))


def rect_family(x):
    q, r = sl.qr(x)
    qe, re = sl.qr(x, mode="economic")
    return q, r, qe, re, sl.qr(x, mode="r"), sl.svd(x, compute_uv=False), sl.pinv(x)


DTYPES = [np.float64, np.float32, np.complex128,
          pytest.param(np.complex64, marks=slow), pytest.param(np.int64, marks=slow),
          pytest.param(np.int8, marks=slow)]


@pytest.mark.parametrize("dt", DTYPES)
def test_lu_family(dt):
    n = 5
    check(lu_family, mat((n, n), dt), vec((n,), dt), vec((n, 2), dt), **tol(dt))


@pytest.mark.parametrize("dt", DTYPES)
def test_spd_family(dt):
    check(spd_family, spd(4, dt), vec((4, 3), dt), **tol(dt))


@pytest.mark.parametrize("dt", [np.float64, pytest.param(np.float32, marks=slow)])
@pytest.mark.parametrize("shape", [(6, 3), (3, 6)])
def test_rect_family(dt, shape):
    check(rect_family, vec(shape, dt), **tol(dt))


def mixed(a8, a, b32, bb, s8):
    return (sl.solve(a8, b32), sl.inv(a8), sl.inv(bb), sl.solve(a, b32),
            sl.solve_triangular(a8, b32), sl.cholesky(s8), sl.lu(bb)[0])


def test_mixed_dtypes_follow_scipy():
    """solve: result type of both, ints -> float64; inv: LAPACK's prefix (int8 and bool
    compute in float32); solve_triangular: the better prefix of a and b."""
    check(mixed, mat((3, 3), np.int8), mat((3, 3), np.int64), vec((3,), np.float32),
          np.eye(3, dtype=bool) | np.triu(np.ones((3, 3), bool)), spd(3, np.int8),
          rtol=2e-5, atol=1e-6)


# --- options ----------------------------------------------------------------------------------

def inv_structures(a):
    return tuple(sl.inv(a, assume_a=s) for s in (None, "gen", "diagonal", "upper triangular",
                                                 "lower triangular", "pos", "sym")) + (
        sl.inv(a, assume_a="her", lower=True), sl.inv(a, assume_a="pos", lower=True))


def solve_structures(a, b):
    kinds = (None, "general", "diagonal", "upper triangular", "lower triangular",
             "positive definite", "symmetric", "tridiagonal")
    return tuple(sl.solve(a, b, assume_a=s) for s in kinds) + (
        sl.solve(a, b, assume_a="her", lower=True), sl.solve(a, b, transposed=True),
        sl.solve(a, b, assume_a="pos", lower=True, transposed=True),
        sl.solve(a, b, assume_a="upper triangular", transposed=True),
        sl.solve(a, b, assume_a="tridiagonal", transposed=True))


def _unsymmetric_spd():
    a = spd(5)
    a[0, 4] += 0.5                # not symmetric: each structure reads its own part
    return a


def test_solve_assume_a():
    check(solve_structures, _unsymmetric_spd(), vec((5, 2)), rtol=1e-9, atol=1e-12)


@slow
def test_inv_assume_a():
    check(inv_structures, _unsymmetric_spd(), rtol=1e-9, atol=1e-12)


def hermitian(a, b):
    c = sl.cho_factor(a)
    return (sl.cholesky(a), c, sl.cho_solve(c, b), sl.inv(a, assume_a="her"),
            sl.solve(a, b, assume_a="pos", lower=True), sl.solve(a, b, assume_a="sym"),
            sl.solve_triangular(a, b, trans="C"), sl.eigh(a, eigvals_only=True))


def test_hermitian_reads_one_triangle_and_the_real_diagonal():
    a = spd(4, np.complex128)
    a[0, 3] += 1 + 2j
    a[1, 1] += 0.5j                   # LAPACK ignores the diagonal's imaginary part
    check(hermitian, a, vec((4, 2), np.complex128), rtol=1e-10, atol=1e-12)


def detect(a, b):
    return sl.inv(a), sl.solve(a, b)


@pytest.mark.parametrize("kind", ["full", "upper", "lower", "diagonal"])
def test_structure_detection(kind):
    """The same program for every structure: SciPy's triangular inverse has exact zeros."""
    a = mat((4, 4))
    a = {"full": a, "upper": np.triu(a), "lower": np.tril(a), "diagonal": np.diag(np.diag(a))}[kind]
    got = check(detect, a, vec((4,)), rtol=1e-12, atol=0)
    if kind == "lower":
        assert not np.triu(got[0], 1).any()


def batched(a, s, b, bb):
    lu, piv = sl.lu_factor(a)
    c = sl.cho_factor(s)
    return (sl.inv(a), sl.solve(a, b), sl.solve(a, bb), sl.solve(a[0], bb), sl.lu(a),
            lu, piv, sl.lu_solve((lu, piv), bb), sl.cholesky(s), c, sl.cho_solve(c, b),
            sl.solve_triangular(a, bb, lower=True), sl.qr(a, mode="r"),
            sl.svd(a, compute_uv=False), sl.eigh(s, eigvals_only=True), sl.eigh(s)[0],
            sl.pinv(a, return_rank=True), sl.block_diag(a, s[..., :1, :]))


def test_batched():
    check(batched, mat((2, 3, 4, 4)), spd(4, batch=(2, 3)), vec((4,)), vec((2, 3, 4, 2)),
          rtol=1e-9, atol=1e-11)


def lu_options(a):
    return sl.lu(a, p_indices=True), sl.lu(a, permute_l=True), sl.lu(a), sl.lu_factor(a)


@pytest.mark.parametrize("shape", [(5, 5), (6, 3), (3, 6), (1, 1), (2, 3, 3)])
def test_lu_options(shape):
    check(lu_options, vec(shape), rtol=1e-12, atol=1e-14)


def qr_modes(x):
    return sl.qr(x), sl.qr(x, mode="economic"), sl.qr(x, mode="r"), sl.qr(x, mode="raw")


def qr_stack(x):
    return sl.qr(x), sl.qr(x, mode="economic"), sl.qr(x, mode="r")


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), pytest.param((2, 4, 3), marks=slow)])
def test_qr_modes(shape):
    """A stack comes back as SciPy's batch wrapper returns it: lists, mode='r' an array."""
    check(qr_stack if len(shape) == 3 else qr_modes, vec(shape), rtol=1e-10, atol=1e-12)


def svds(x):
    return sl.svd(x), sl.svd(x, full_matrices=False), sl.svd(x, lapack_driver="gesvd")


@pytest.mark.parametrize("dt", [np.float64, np.complex128])
def test_svd_vectors(dt):
    x = vec((5, 3), dt)
    got, want = jit(svds)(x), svds(x)
    for g, w in zip(got, want):
        assert [t.dtype for t in g] == [t.dtype for t in w]
        assert [t.shape for t in g] == [t.shape for t in w]
        np.testing.assert_allclose(g[1], w[1], rtol=1e-12)
        k = g[1].size
        np.testing.assert_allclose(canon(g[0][:, :k]), canon(w[0][:, :k]), rtol=1e-9,
                                   atol=1e-12)
        np.testing.assert_allclose(canon(g[2][:k].conj().T), canon(w[2][:k].conj().T),
                                   rtol=1e-9, atol=1e-12)


def eighs(a, b):
    return (sl.eigh(a), sl.eigh(a, lower=False), sl.eigh(a, subset_by_index=[1, 2]),
            sl.eigh(a, b), sl.eigh(a, b, eigvals_only=True, driver="gvd"))


@pytest.mark.parametrize("dt", [np.float64, np.complex128, pytest.param(np.float32,
                                                                        marks=slow)])
def test_eigh(dt):
    a, b = spd(4, dt), spd(4, dt)
    a[3, 0] += 3.0                            # the upper and lower triangles differ
    got, want = jit(eighs)(a, b), eighs(a, b)
    t = tol(dt)
    for g, w in zip(got[:4], want[:4]):
        assert (g[0].dtype, g[1].dtype) == (w[0].dtype, w[1].dtype)
        np.testing.assert_allclose(g[0], w[0], **t)
        np.testing.assert_allclose(canon(g[1]), canon(w[1]), **t)
    np.testing.assert_allclose(got[4], want[4], **t)
    if dt == np.float64:      # a stack: SciPy's batch wrapper returns a list
        w, v = jit(eigh_pair)(spd(3, batch=(2,)))
        assert isinstance(jit(eigh_pair)(spd(3, batch=(2,))), list)
        assert w.shape == (2, 3) and v.shape == (2, 3, 3)


def eigh_pair(a):
    return sl.eigh(a)


def pinvs(x):
    return (sl.pinv(x), sl.pinv(x, return_rank=True), sl.pinv(x, atol=0.5),
            sl.pinv(x, rtol=0.3, return_rank=True), sl.pinv(x, atol=0.1, rtol=0.1))


def test_pinv_cutoffs():
    rank2 = vec((5, 2)) @ vec((2, 4))
    check(pinvs, rank2, rtol=1e-9, atol=1e-11)
    check(pinvs, vec((5, 4)), rtol=1e-9, atol=1e-11)


def expm1(a):
    return sl.expm(a)


EXPM = ["small", "large norm", "upper", "lower", "diagonal", "nilpotent", "non-normal",
        "float32", "complex", "int", "stack"]


@pytest.mark.parametrize("case", [c if c in ("large norm", "upper", "non-normal", "float32")
                                  else pytest.param(c, marks=slow) for c in EXPM])
def test_expm(case):
    a = {"small": 0.01 * vec((5, 5)), "large norm": 8 * vec((5, 5)),
         "upper": np.triu(6 * vec((5, 5))), "lower": np.tril(6 * vec((5, 5))),
         "diagonal": np.diag(3 * vec((5,))), "nilpotent": np.triu(vec((5, 5)), 1),
         "non-normal": np.diag([1.0, -1, 0.5, 2, 0]) + np.diag([1e6, 1e3, 1e2, 1e4], 1)
         + np.diag([1e-8, 1e-6, 1e-7, 1e-9], -1),
         "float32": vec((5, 5), np.float32), "complex": 3 * vec((5, 5), np.complex128),
         "int": np.round(2 * vec((5, 5))).astype(np.int64), "stack": vec((2, 3, 5, 5))}[case]
    # non-normal (norm 7.5e13): compared normwise; SciPy's largest entry is 1.7e-10 off
    # (60-digit mpmath), npxla's 2e-16
    check(expm1, a, **(dict(rtol=1e-9, atol=1e5) if case == "non-normal" else tol(a.dtype)))


@pytest.mark.parametrize("a", [np.array(0.5), np.array([[2.0]]), np.array([[3]]),
                               np.array([[1.0]], np.float16), np.ones((2, 1, 1))],
                         ids=["0-d", "1x1", "int 1x1", "float16 1x1", "stack of 1x1"])
def test_expm_scalars(a):
    check(expm1, a, rtol=1e-3 if a.dtype == np.float16 else 1e-15)


def blocks(a, b, c):
    return (sl.block_diag(a, b, c), sl.block_diag(a), sl.block_diag(c, [1, 2], 3.5),
            sl.block_diag(np.ones((2, 1, 1)), a), sl.block_diag())


def test_block_diag():
    check(blocks, vec((2, 3)), np.arange(4).reshape(2, 2), np.array([[True]]))


def banded(ab3, ab4, b, B):
    return (sl.solve_banded((1, 1), ab3, b), sl.solve_banded((1, 1), ab3, B),
            sl.solve_banded((1, 2), ab4, b), sl.solve_banded((2, 1), ab4, B),
            sl.solve_banded((0, 0), ab3[1:2], b))


def test_solve_banded():
    n = 6
    ab3, ab4 = vec((3, n)), vec((4, n))
    ab3[1] += 4
    ab4[1:3] += 4
    check(banded, ab3, ab4, vec((n,)), vec((n, 2)), rtol=1e-10, atol=1e-12)


def gtsv(dl, d, du, b, b2):
    return lapack.dgtsv(dl, d, du, b), lapack.dgtsv(dl, d, du, b2), \
        lapack.sgtsv(dl, d, du, b)


@pytest.mark.parametrize("n", [2, 3, 9])
def test_gtsv_bit_for_bit(n):
    """LAPACK's operations in LAPACK's order: the very same bits (float64), info a
    Python int; both pivoting branches are taken on random diagonals."""
    args = vec((n - 1,)), vec((n,)), vec((n - 1,)), vec((n,)), vec((n, 3))
    got, want = jit(gtsv)(*args), gtsv(*args)
    for g, w in zip(got[:2], want[:2]):
        for x, y in zip(g[:4], w[:4]):
            assert x.dtype == y.dtype and x.shape == y.shape
            np.testing.assert_array_equal(x, y)
        assert type(g[4]) is int and g[4] == w[4] == 0
    for x, y in zip(got[2][:4], want[2][:4]):
        assert x.dtype == y.dtype == np.float32
        np.testing.assert_allclose(x, y, rtol=1e-5, atol=1e-6)


def gtsv1(dl, d, du, b):
    return lapack.dgtsv(dl, d, du, b)


@pytest.mark.parametrize("d", [[1.0, 0, 1, 1], [1.0, 1, 1, 0], [0.0, 1, 1, 1]],
                         ids=["middle", "last", "first"])
def test_gtsv_zero_pivot_info(d):
    """info names the zero pivot; the arrays are those LAPACK stops with."""
    check(gtsv1, np.zeros(3), np.array(d), np.ones(3), np.arange(4.0), rtol=0, atol=0)


def test_gtsv_int_inputs_and_refusals():
    check(gtsv1, np.array([1, 2]), np.array([5, 6, 7]), np.array([1, 1]), np.array([1, 2, 3]),
          rtol=0, atol=0)

    def overwrite(dl, d, du, b):
        return lapack.dgtsv(dl, d, du, b, overwrite_b=1)
    with pytest.raises(Exception, match="overwrite_b"):
        jit(overwrite)(np.ones(2), 3 * np.ones(3), np.ones(2), np.ones(3))


# --- errors: SciPy's exception types and messages ----------------------------------------------

def inv1(a):
    return sl.inv(a)


def solve1(a, b):
    return sl.solve(a, b)


def chol1(a):
    return sl.cholesky(a)


def chofac(a):
    return sl.cho_factor(a, lower=True)


def tri1(a, b):
    return sl.solve_triangular(a, b)


def banded1(ab, b):
    return sl.solve_banded((1, 1), ab, b)


def geig(a, b):
    return sl.eigh(a, b)


def svd1(a):
    return sl.svd(a)


SINGULAR = [np.zeros((3, 3)), np.array([[1.0, 2, 3], [2, 4, 6], [1, 0, 1]]),
            np.array([[1.0, 1, 0], [1, 1, 0], [0, 0, 1]]),        # symmetric, singular
            np.array([[0.0, 1, 2], [0, 1, 2], [0, 0, 3]]),        # upper triangular
            np.array([[1.0, 1, 0], [1, 1 + 1e-17, 0], [0, 0, 1]])]  # singular in floats


@pytest.mark.parametrize("a", SINGULAR, ids=range(len(SINGULAR)))
def test_singular_inv_solve(a):
    same_error(inv1, a)
    same_error(solve1, a, np.ones(3))


def test_singular_stacks_and_1x1():
    same_error(inv1, np.stack([np.eye(3), np.zeros((3, 3))]))
    same_error(solve1, np.array([[0.0]]), np.ones(4))
    check(solve1, np.array([[2.0]]), np.arange(4.0))           # SciPy broadcasts b / a


@pytest.mark.parametrize("a", [np.diag([1.0, 1, -1]), np.diag([1.0, 0, 1]),
                               np.array([[1.0, 2, 0], [2, 1, 0], [0, 0, 1]]),
                               np.stack([np.eye(3), np.eye(3), -np.eye(3)])],
                         ids=["last", "zero", "second", "stack"])
def test_not_positive_definite_names_the_minor(a):
    same_error(chol1, a)
    if a.ndim == 2:
        same_error(chofac, a)
        same_error(geig, np.eye(3), a)


def test_zero_diagonal_and_banded_singular():
    same_error(tri1, np.diag([1.0, 0, 0]), np.ones(3))
    same_error(tri1, np.stack([np.eye(3), np.diag([1.0, 1, 0])]), np.ones(3))
    same_error(banded1, np.zeros((3, 4)), np.ones(4))


@pytest.mark.parametrize("fn,args", [
    (inv1, (np.array([[1.0, np.nan], [0, 1]]),)),
    (solve1, (np.eye(3), np.array([1.0, np.inf, 0]))),
    (chol1, (np.array([[np.inf, 0], [0, 1.0]]),)),
    (svd1, (np.array([[np.nan, 0], [0, 1.0]]),)),
    (tri1, (np.eye(2), np.array([np.nan, 1.0]))),
], ids=["inv", "solve", "cholesky", "svd", "solve_triangular"])
def test_check_finite(fn, args):
    same_error(fn, *args)


def unchecked(a, b):
    return sl.solve_triangular(a, b, lower=True, check_finite=False)


def test_check_finite_false_reads_one_triangle():
    a = np.tril(mat((3, 3))) + np.triu(np.full((3, 3), np.nan), 1)
    check(unchecked, a, vec((3,)), rtol=1e-12)


def bad_calls(a):
    return sl.solve(a, np.ones(3), assume_a="nonsense")


@pytest.mark.parametrize("fn,args", [
    (inv1, (np.ones((2, 3)),)), (inv1, (np.ones(3),)), (solve1, (np.eye(3), np.ones(2))),
    (solve1, (np.ones((2, 3)), np.ones(2))), (chol1, (np.ones((2, 3)),)),
    (tri1, (np.eye(3), np.ones(2))), (bad_calls, (np.eye(3),)),
], ids=["inv 2x3", "inv 1-d", "solve shapes", "solve 2x3", "cholesky 2x3",
        "solve_triangular shapes", "assume_a"])
def test_argument_errors(fn, args):
    same_error(fn, *args)


# --- the staged path: data-dependent branches and loops -----------------------------------------

def branchy(a, b, x):
    if x.sum() > 0:
        y = sl.solve(a, b)
    else:
        lu, piv = sl.lu_factor(a)
        y = -sl.lu_solve((lu, piv), b)
    return y


def inverse_if_positive(a, x):
    if x.sum() > 0:
        return sl.inv(a)
    return a


def test_in_data_dependent_branches():
    a, b = mat((4, 4)), vec((4,))
    check(branchy, a, b, np.ones(3))
    check(branchy, a, b, -np.ones(3))
    check(inverse_if_positive, np.zeros((4, 4)), -np.ones(2))     # not taken: no error
    same_error(inverse_if_positive, np.zeros((4, 4)), np.ones(2))


def refine(a, b, tol):
    """Iterative refinement with a crude triangular preconditioner, until converged."""
    m = np.tril(a)
    x = sl.solve_triangular(m, b, lower=True)
    steps = 0
    while np.max(np.abs(b - a @ x)) > tol and steps < 100:
        r = b - a @ x
        x = x + sl.solve(a, r) if steps % 2 else x + sl.solve_triangular(m, r, lower=True)
        steps += 1
    return x, steps


def column_solves(dl, d, du, rhs):
    out = np.empty_like(rhs)
    for j in range(rhs.shape[1]):
        du2, dd, duu, x, info = lapack.dgtsv(dl, d, du, rhs[:, j])
        if info != 0:
            raise ValueError(f"singular column {j}: info={info}")
        out[:, j] = x
    return out


def test_in_loops():
    a = spd(5)
    check(refine, a, vec((5,)), 1e-12, rtol=1e-9, atol=1e-12)
    n = 6
    dl, d, du = vec((n - 1,)), 4 + vec((n,)), vec((n - 1,))
    check(column_solves, dl, d, du, vec((n, 4)), rtol=0, atol=0)
    d0 = d.copy()
    d0[0] = 0.0
    same_error(column_solves, np.zeros(n - 1), d0, du, vec((n, 4)))


# --- np.linalg parity on singular and ill-conditioned matrices (issue 36, item 4) -------------

def np_inv(a):
    return np.linalg.inv(a)


def np_solve(a, b):
    return np.linalg.solve(a, b)


def np_pinv(a):
    return np.linalg.pinv(a)


def np_svd(a):
    return np.linalg.svd(a)


def np_eigh(a):
    return np.linalg.eigh(a)


def np_qr(a):
    return np.linalg.qr(a)


def np_cholesky(a):
    return np.linalg.cholesky(a)


def _hilbert(n):
    i = np.arange(n)
    return 1.0 / (i[:, None] + i[None, :] + 1)


PARITY = {
    "random": mat((5, 5)),
    "spd": spd(5),
    "hilbert": _hilbert(5),                    # cond 5e5, SPD
    "rank 2": vec((5, 2)) @ vec((2, 5)),       # singular, not exactly in floats
    "exactly singular": np.array([[1.0, 2, 3, 4, 5], [2, 4, 6, 8, 10], [0, 1, 0, 1, 0],
                                  [1, 0, 0, 1, 0], [0, 0, 1, 0, 1]]),
    "zeros": np.zeros((5, 5)),
    "not PD": np.diag([1.0, 2, -1, 3, 4]),
}


def _outcome(fn, *args):
    try:
        return "ok", fn(*args)
    except LinAlgError as e:
        return "LinAlgError", str(e)


def _agree(fn, a, rtol=1e-8):
    args = (a, np.arange(5.0)) if fn is np_solve else (a,)
    (wk, want), (gk, got) = _outcome(fn, *args), _outcome(jit(fn), *args)
    assert gk == wk, (gk, got, wk, want)
    if wk != "ok":
        assert got == want
        return
    if np.linalg.cond(a) > 1e12 and fn in (np_inv, np_solve):
        return          # both finite, both meaningless: no digits to compare
    want = want if isinstance(want, tuple) else (want,)
    got = got if isinstance(got, tuple) else (got,)
    scale = max(1.0, max(float(np.max(np.abs(w))) for w in want))
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
    if fn is np_eigh:       # eigenvectors of close eigenvalues are not unique: V W V^T
        (gw, gv), (ww, wv) = got, want
        np.testing.assert_allclose(gw, ww, rtol=rtol, atol=rtol * scale)
        np.testing.assert_allclose((gv * gw) @ gv.T, (wv * ww) @ wv.T, atol=rtol * scale)
        return
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol * scale)


@pytest.mark.parametrize("name", list(PARITY))
def test_np_linalg_parity(name):
    a = PARITY[name]
    _agree(np_inv, a, rtol=1e-6)
    _agree(np_solve, a, rtol=1e-6)
    _agree(np_cholesky, a)
    _agree(np_eigh, (a + a.T) / 2)
    _agree(np_pinv, a)
    u, s, vh = jit(np_svd)(a)
    want = np.linalg.svd(a)
    np.testing.assert_allclose(s, want[1], rtol=1e-10, atol=1e-12 * max(1, want[1][0]))
    np.testing.assert_allclose((u * s) @ vh, a, atol=1e-12 * max(1, want[1][0]))
    q, r = jit(np_qr)(a)
    np.testing.assert_allclose(np.abs(r), np.abs(np.linalg.qr(a)[1]), atol=1e-10)
    np.testing.assert_allclose(q @ r, a, atol=1e-12)


def test_np_linalg_parity_ill_conditioned():
    h = _hilbert(12)                      # cond 1.7e16
    _agree(np_cholesky, h, rtol=1e-6)
    _agree(np_eigh, h, rtol=1e-8)
    _agree(np_pinv, h, rtol=1e-6)


def test_np_cholesky_borderline_hilbert13():
    """LAPACK potrf (borrowed on the CPU) factors Hilbert(13) where XLA's cholesky met a
    non-positive pivot; the upper factor fails at the 13th minor in NumPy and SciPy.
    The lower factor is SciPy's bit for bit; NumPy's own OpenBLAS build rounds the last
    pivots (square roots of rounding noise, ~1e-9) differently from SciPy's, as NumPy and
    SciPy differ from each other there."""
    h = _hilbert(13)
    want, got = np.linalg.cholesky(h), jit(np_cholesky)(h)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-7)
    np.testing.assert_array_equal(got, sl.cholesky(h, lower=True))
    _agree(np_cholesky_upper, _hilbert(13))
    _agree(sp_cholesky_lower, _hilbert(13))
    _agree(sp_cholesky_upper, _hilbert(13))


def np_cholesky_upper(a):
    return np.linalg.cholesky(a, upper=True)


def sp_cholesky_lower(a):
    return sl.cholesky(a, lower=True)


def sp_cholesky_upper(a):
    return sl.cholesky(a)


def _nonfinite_cases():
    base = np.array([[4.0, 1, 0.5], [1, 3, 0.2], [0.5, 0.2, 2]])
    for v in (np.inf, -np.inf, np.nan):
        for pos in ((0, 0), (1, 1), (2, 2), (0, 1), (1, 0), (2, 0), (0, 2)):
            a = base.copy()
            a[pos] = v
            yield pytest.param(a, id=f"{v}@{pos[0]}{pos[1]}")
    yield pytest.param(np.full((3, 3), np.nan), id="allnan")


def np_solve_vec(a):
    return np.linalg.solve(a, np.array([1.0, 2, 3]))


def sp_cholesky_nocheck(a):
    return sl.cholesky(a, check_finite=False), sl.cholesky(a, lower=True, check_finite=False)


@pytest.mark.parametrize("a", list(_nonfinite_cases()))
def test_np_linalg_nonfinite_parity(a):
    """inf/NaN entries: NumPy's LAPACK (gesv, potrf) decides which entries become NaN and
    whether LinAlgError is raised (potrf flags -inf diagonals, not NaN); npxla borrows the
    same routines on the CPU, so outcome and NaN/inf pattern agree."""
    import warnings
    for fn in (np_inv, np_solve_vec, np_cholesky, np_cholesky_upper, sp_cholesky_nocheck):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want, got = _outcome(fn, a), _outcome(jit(fn), a)
        assert got[0] == want[0], (fn.__name__, got, want)
        if want[0] == "ok":
            w = want[1] if isinstance(want[1], tuple) else (want[1],)
            g = got[1] if isinstance(got[1], tuple) else (got[1],)
            for gi, wi in zip(g, w):
                assert gi.dtype == wi.dtype and gi.shape == wi.shape
                np.testing.assert_allclose(gi, wi, rtol=1e-12, atol=1e-14)


def test_np_svd_nan_raises():
    _agree(np_pinv, np.array([[np.nan, 1.0], [0, 1]]))


def test_np_eigh_nan_agrees():
    """NumPy's eigh of a NaN matrix raises with some LAPACK builds and not with others
    (OpenBLAS here returns NaN): compared with what this NumPy does."""
    a = np.array([[np.nan, 1.0], [1, 1]])
    want, got = _outcome(np_eigh, a), _outcome(jit(np_eigh), a)
    assert got[0] == want[0]
    if want[0] == "ok":
        for g, w in zip(got[1], want[1]):
            np.testing.assert_array_equal(np.isnan(g), np.isnan(w))


def scipy_norms(x, A):
    import scipy.linalg as LA
    return LA.norm(x), LA.norm(A), LA.norm(A, 1), LA.norm(A, axis=0), LA.norm(x, np.inf)


def test_scipy_linalg_norm_agrees_and_checks_finite():
    rng = np.random.default_rng(4)
    x, A = rng.standard_normal(7), rng.standard_normal((4, 5))
    for e, g in zip(scipy_norms(x, A), jit(scipy_norms)(x, A)):
        np.testing.assert_allclose(g, e, rtol=1e-14)
    with pytest.raises(ValueError, match="infs or NaNs"):
        jit(scipy_norms)(np.array([1.0, np.nan]), A)


def lapack_trio(a, l, b, dl, d, du):
    return (sl.cholesky(a), sl.cholesky(a, lower=True), sl.solve_triangular(l, b, lower=True),
            sl.solve_triangular(l.T, b, trans=1), lapack.dgtsv(dl, d, du, b))


def test_cpu_lapack_routines_give_scipys_bits():
    """On the CPU cholesky, solve_triangular and dgtsv call SciPy's own LAPACK/BLAS
    (borrowed through jaxlib): bit-identical results, also for a zero pivot in dgtsv
    (info > 0, arrays as LAPACK leaves them)."""
    import jax
    if jax.default_backend() != "cpu":
        pytest.skip("LAPACK is borrowed on the CPU only")
    n = 60
    x = RNG.normal(size=(n, n))
    a, l = x @ x.T + n * np.eye(n), np.tril(x) + n * np.eye(n)
    b = RNG.normal(size=(n, 3))
    dl, d, du = RNG.normal(size=n - 1), RNG.normal(size=n), RNG.normal(size=n - 1)
    want, got = lapack_trio(a, l, b, dl, d, du), jit(lapack_trio)(a, l, b, dl, d, du)
    flat = lambda v: [w for u in v for w in (u if isinstance(u, tuple) else (u,))]  # noqa
    for g, w in zip(flat(got), flat(want)):
        np.testing.assert_array_equal(g, w)
    d[0], dl[0] = 0.0, 0.0                  # a zero first pivot: info 1
    want, got = lapack.dgtsv(dl, d, du, b), jit(dgtsv_plain)(dl, d, du, b)
    assert want[-1] == got[-1] > 0
    for g, w in zip(got[:-1], want[:-1]):
        np.testing.assert_array_equal(g, w)


def dgtsv_plain(dl, d, du, b):
    return lapack.dgtsv(dl, d, du, b)
