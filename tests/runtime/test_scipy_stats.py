"""scipy.stats.norm and scipy.stats.multivariate_normal under jit against SciPy itself
(runtime/numpy/scipy/stats.py): values, dtypes and scalar/array results, loc/scale as
positional and keyword arguments, frozen distributions, SciPy's errors (bad arguments,
covariances that are not positive (semi)definite), and staged control flow."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

from differential import check
from npxla import jit
from npxla.transpiler.base.errors import LibraryCallError, UnsupportedFunctionError

stats = pytest.importorskip("scipy.stats")
norm, mvn = stats.norm, stats.multivariate_normal

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")
# XLA:CPU flushes subnormal results to zero (densities beyond |x| ~ 37.5)
TINY = np.finfo(np.float64).tiny

RNG = np.random.default_rng(0)
X = np.concatenate([RNG.normal(size=24) * 5, [np.inf, -np.inf, np.nan, 0.0, -0.0, 40, -40,
                                              1e-300, 37.0, -37.0]])
SCALE = np.concatenate([np.abs(RNG.normal(size=24)) + 0.1, [1, 0, -1, 2, 0.5, np.inf, np.nan,
                                                            3, 1, 1]])


def standard(x):
    return norm.pdf(x), norm.logpdf(x), norm.cdf(x), norm.sf(x)


def located(x, m, s):
    return (norm.pdf(x, m, s), norm.logpdf(x, loc=m, scale=s), norm.cdf(x, m, scale=s),
            norm.sf(x=x, loc=m), norm.pdf(x, m))


def frozen(x, m, s):
    rv = norm(m, s)
    return rv.pdf(x), rv.logpdf(x), rv.cdf(x), rv.sf(x), norm(loc=1.5).pdf(x)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_norm_standard(dtype):
    x = X if dtype != np.int64 else np.arange(-40, 41)
    check(standard, x.astype(dtype), rtol=1e-14, atol=TINY)


def test_norm_scalars():
    check(standard, 0.75, rtol=1e-15, atol=TINY)
    check(standard, np.float32(-1.25), rtol=1e-15, atol=TINY)
    check(standard, np.array(2.0), rtol=1e-15, atol=TINY)


def test_norm_loc_scale_and_broadcasting():
    check(located, X, 0.3, SCALE, rtol=1e-14, atol=TINY)
    check(located, X[:, None], X[::-1][None, :6].copy(), 2.0, rtol=1e-14, atol=TINY)
    check(located, X.astype(np.float32), np.float32(0.5), np.float32(2.0), rtol=1e-14, atol=TINY)


def test_norm_frozen():
    check(frozen, X, 0.3, SCALE, rtol=1e-14, atol=TINY)
    check(frozen, X, 0.3, 2.0, rtol=1e-14, atol=TINY)


RV = norm(1.0, 2.0)


def frozen_outside(x):
    return RV.pdf(x)


def too_many(x):
    return norm.pdf(x, 1, 2, 3)


def unknown_keyword(x):
    return norm.cdf(x, foo=1)


def twice(x):
    return norm.logpdf(x, 0, 1, loc=2)


def complex_norm(x):
    return norm.pdf(x * 1j)


def frozen_mean(x):
    return norm(0, 1).mean() + x


def test_norm_errors():
    for f, message in [(too_many, r"_parse_args\(\) takes from 1 to 3 positional arguments "
                                  "but 4 were given"),
                       (unknown_keyword, r"_parse_args\(\) got an unexpected keyword argument "
                                         "'foo'"),
                       (twice, r"_parse_args\(\) got multiple values for argument 'loc'")]:
        with pytest.raises(TypeError, match=message):
            f(np.ones(2))
        with pytest.raises(TypeError, match=message):
            jit(f)(np.ones(2))
    with pytest.raises(UnsupportedFunctionError, match="complex128"):
        jit(complex_norm)(np.ones(2))
    with pytest.raises(UnsupportedFunctionError, match=r"norm\(...\).mean"):
        jit(frozen_mean)(np.ones(2))
    # SciPy's own frozen object, made outside the compiled function: a located refusal
    with pytest.raises(LibraryCallError, match="pdf"):
        jit(frozen_outside)(np.ones(2))


# --- multivariate_normal ------------------------------------------------------------------

A = RNG.normal(size=(3, 3))
COV = A @ A.T + np.eye(3)
MEAN = RNG.normal(size=3)
PTS = RNG.normal(size=(6, 3)) * 2
SINGULAR = np.array([[1.0, 1, 0], [1, 1, 0], [0, 0, 2]])
ON_AND_OFF = np.array([[1.0, 1, 0], [1, 0, 1], [0.5, 0.5, 3], [0, 0, 0]])


def mvn_both(x, mean, cov):
    return mvn.pdf(x, mean, cov), mvn.logpdf(x, mean=mean, cov=cov)


def mvn_frozen(x, mean, cov):
    rv = mvn(mean, cov)
    return rv.pdf(x), rv.logpdf(x), mvn(cov=2.5).logpdf(x[0, 0])


def mvn_singular(x, cov):
    return (mvn.pdf(x, cov=cov, allow_singular=True),
            mvn.logpdf(x, cov=cov, allow_singular=True))


def mvn_shapes(x, var):
    return (mvn.pdf(x[0], MEAN, COV), mvn.logpdf(x, np.zeros(3), cov=var),
            mvn.pdf(x[:, 0], 0.5, 2.0), mvn.logpdf(0.25), mvn.pdf(x[0, :1], cov=var[:1]))


def test_multivariate_normal():
    check(mvn_both, PTS, MEAN, COV, rtol=1e-12, atol=TINY)
    check(mvn_both, PTS.astype(np.float32), MEAN, COV.astype(np.float32), rtol=1e-12, atol=TINY)
    check(mvn_frozen, PTS, MEAN, COV, rtol=1e-12, atol=TINY)
    check(mvn_singular, ON_AND_OFF, SINGULAR, rtol=1e-12, atol=TINY)
    check(mvn_shapes, PTS, np.array([1.0, 2.0, 0.5]), rtol=1e-12, atol=TINY)


def mvn_cdf(x, cov):
    return mvn.cdf(x, cov=cov)


def mvn_pdf(x, cov):
    return mvn.pdf(x, cov=cov)


@pytest.mark.parametrize("cov,error,message", [
    (np.array([[1.0, 2], [2, 1]]), ValueError, "must be symmetric positive semidefinite"),
    (np.array([[1.0, 1], [1, 1]]), np.linalg.LinAlgError, "must be symmetric positive "
                                                           "definite"),
    (np.array([[1.0, np.nan], [0, 1]]), ValueError, "array must not contain infs or NaNs"),
    (np.ones((2, 3)), ValueError, "Array 'cov' must be square"),
])
def test_multivariate_normal_errors(cov, error, message):
    """SciPy's exceptions, raised after the run for traced covariances."""
    x = np.zeros(2)
    with pytest.raises(error, match=message):
        mvn_pdf(x, cov)
    with pytest.raises(error, match=message):
        jit(mvn_pdf)(x, cov)


def mvn_cdf_full(x, mean, cov, lower):
    return (mvn.cdf(x, mean=mean, cov=cov, allow_singular=True),
            mvn.cdf(x, mean, cov, allow_singular=True, lower_limit=lower),
            mvn(mean, cov, allow_singular=True).cdf(x))


def _cov2(rho, s1=1.4, s2=0.7):
    return np.array([[s1 * s1, rho * s1 * s2], [rho * s1 * s2, s2 * s2]])


# every Gauss-Legendre set and both branches of Genz's BVNU, r = 0 and the singular r = +-1
RHOS = [0.0, 0.1, -0.29, 0.5, -0.7, 0.8, 0.924, 0.93, -0.95, 0.999, -0.9999, 1.0, -1.0]


@pytest.mark.parametrize("rho", RHOS)
def test_multivariate_normal_cdf_2d(rho):
    """d = 2: SciPy computes Genz's bivariate algorithm (deterministic); npxla the same,
    vectorised: within 1e-12 of SciPy's (the contract asks 1e-6), infinite limits, limits
    swapped (negative probabilities), one point and many."""
    rng = np.random.default_rng(int(abs(rho) * 1e4))
    x = rng.normal(size=(9, 2)) * 2
    x[0], x[1], x[2], x[3] = [np.inf, 0.3], [-np.inf, 0.2], [0.1, np.inf], [np.inf, np.inf]
    lower = np.array([-0.5, 0.4])           # some points below it: SciPy's sign flips
    mean = np.array([0.2, -0.1])
    cov = _cov2(rho)
    check(mvn_cdf_full, x, mean, cov, lower, rtol=0, atol=1e-12)
    check(mvn_cdf_full, x[5], mean, cov, lower, rtol=0, atol=1e-12)


@pytest.mark.slow          # ~7 s of compiling; the 2-d test keeps the CDF in the default run
def test_multivariate_normal_cdf_1d_and_shapes():
    x = np.array([-np.inf, -1.0, 0.0, 0.3, 2.5, np.inf])
    check(mvn_cdf_full, x, np.array([0.1]), np.array([[2.0]]), np.array([0.5]),
          rtol=1e-15, atol=1e-16)
    check(mvn_cdf, np.array([0.3, -0.2]), np.eye(2), rtol=0, atol=1e-12)
    check(mvn_cdf, RNG.normal(size=(2, 3, 2)), _cov2(0.6), rtol=0, atol=1e-12)
    check(mvn_cdf, 0.7, 2.0, rtol=1e-15, atol=1e-16)


def test_multivariate_normal_cdf_errors():
    """SciPy's covariance checks apply to cdf; d >= 3 (randomised QMC) is refused."""
    with pytest.raises(np.linalg.LinAlgError, match="positive definite"):
        jit(mvn_cdf)(np.zeros(2), np.ones((2, 2)))
    with pytest.raises((LibraryCallError, UnsupportedFunctionError),
                       match="quasi-Monte Carlo"):
        jit(mvn_cdf)(np.zeros(3), np.eye(3))


def branchy_cdf(x, cov):
    total = 0.0
    for i in range(x.shape[0]):
        if x[i, 0] > 0:
            total += mvn.cdf(x[i], cov=cov)
        else:
            total -= mvn(cov=cov).cdf(x[i] * 2)
    return total


@pytest.mark.slow          # ~8 s of compiling (the CDF's program inside a loop's branches)
def test_multivariate_normal_cdf_in_control_flow():
    check(branchy_cdf, RNG.normal(size=(6, 2)), _cov2(0.95), rtol=0, atol=1e-12)


# --- staged control flow, properties --------------------------------------------------------

def branchy(x, s):
    if np.max(x) > 0:
        out = norm.pdf(x, scale=s) + norm(0, s).cdf(x)
    else:
        out = norm.logpdf(x, loc=1.0)
    total = 0.0
    k = 0
    while total < 1.0 and k < 10:
        total = total + norm.cdf(x[k % x.shape[0]] - k)
        k += 1
    return out, total, k


def test_inside_data_dependent_control_flow():
    x = RNG.normal(size=5)
    check(branchy, x, 1.5, rtol=1e-14, atol=TINY)
    check(branchy, -np.abs(x), 1.5, rtol=1e-14, atol=TINY)


def cdf_of(x, m, s):
    return norm.cdf(x, m, s), norm.logpdf(x, m, s)


@settings(max_examples=25, deadline=None)
@given(hnp.arrays(np.float64, 6, elements=st.floats(-1e3, 1e3)),
       st.floats(-10, 10), st.floats(1e-3, 1e3))
def test_property_cdf_logpdf(x, m, s):
    actual = jit(cdf_of)(x, m, s)
    for a, e in zip(actual, cdf_of(x, m, s)):
        np.testing.assert_allclose(a, e, rtol=1e-14, atol=1e-300)


# --- zscore (emd's sift.zscore; refused before) ------------------------------------------

_ZA = np.random.default_rng(23).standard_normal((6, 4))
_ZA[:, 2] = 3.0                               # a constant column: SciPy's NaNs


def _zscores(a):
    return (stats.zscore(a), stats.zscore(a, axis=1, ddof=1), stats.zscore(a, axis=None),
            stats.zscore(a[:, 0]))


@pytest.mark.parametrize("a", [_ZA, _ZA.astype(np.float32), np.arange(12).reshape(4, 3) ** 2,
                               np.where(_ZA > 1.0, np.nan, _ZA)],
                         ids=["float64", "float32", "int", "nan"])
def test_zscore_matches_scipy(a):
    tol = 1e-5 if a.dtype == np.float32 else 1e-12
    check(_zscores, a, rtol=tol, atol=tol)


def test_zscore_other_nan_policies_are_refused():
    with pytest.raises(UnsupportedFunctionError, match="nan_policy"):
        jit(lambda a: stats.zscore(a, nan_policy="omit"))(_ZA)
