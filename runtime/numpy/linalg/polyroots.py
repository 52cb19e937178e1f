"""`np.roots`: the eigenvalues of the companion matrix, as NumPy computes them.

NumPy trims the polynomial's leading and trailing zero coefficients first: the leading
ones change how many roots there are, the trailing ones become exact zero roots and,
where they leave a constant, a float result. Both depend on the data, so the program is
compiled for the untrimmed polynomial (n - 1 roots) and a zero first coefficient (or,
where it changes the result, a zero last one) is refused when the program runs
(`ROOTS_TRIMMED`), never answered differently.

The dtype: NumPy's eigenvalues of a real matrix are complex only when some root is not
real; the program assumes real roots and checks it when it runs (np.linalg.eigvals of
a real matrix, `linalg._eig`); complex coefficients give complex roots. A linear real
polynomial has one real root, -p[1]/p[0] (0.0 for p[1] == 0, which NumPy trims to an
exact zero), computed as NumPy's 1x1 eigenvalue problem returns it.
"""
from __future__ import annotations

import numpy as np

from npxla.transpiler.base.catalogue import ROOTS_TRIMMED
from npxla.transpiler.base.errors import UnsupportedFunctionError

from npxla.runtime.numpy.core.errorflags import check_raises
from npxla.runtime.numpy.linalg.linalg_common import FAMILY, raise_if
from npxla.runtime.numpy.reductions.reductions import asarray
from npxla.runtime.numpy.core.registry import dispatch, implements


def _d(fn, *args, **kwargs):
    return dispatch(fn, args, kwargs)


@implements(np.roots, family=FAMILY, notes="real roots are assumed for real input and "
            "checked when the program runs (complex ones: staged again); a zero first "
            "(or last) coefficient, which NumPy trims, raises when the program runs")
def roots(p):
    p = asarray(p)
    if p.ndim == 0:
        p = _d(np.reshape, p, (1,))
    if p.ndim != 1:
        raise ValueError("Input must be a rank-1 array.")
    n = p.shape[0]
    if n <= 1:                  # no roots whatever the value (NumPy's float64 empty)
        return asarray(np.array([]))
    complex_ = p.dtype.kind == "c"
    t = p.dtype if p.dtype.kind in "fc" else np.dtype(np.float64)
    if not complex_ and t != np.float64:
        raise UnsupportedFunctionError(
            f"np.roots of {t} coefficients is not supported on traced arrays",
            hint="pass float64 coefficients, np.roots(p.astype(float))")
    p = _d(np.astype, p, t)
    first, last = p[0], p[n - 1]
    kind = "complex" if complex_ else "real"
    _refuse_zero(_d(np.equal, first, 0), "first", "fewer roots", n - 1, kind)
    if complex_ or n > 2:
        _refuse_zero(_d(np.equal, last, 0), "last",
                     "exact zero roots (a float array for a constant)", n - 1, kind)
    row = _d(np.divide, _d(np.negative, p[1:]), first)
    if n == 2 and not complex_:     # the 1x1 companion matrix [[-p1/p0]]
        raise_if(_d(np.logical_and, _d(np.not_equal, last, 0),
                    _d(np.logical_not, _d(np.isfinite, row[0]))),
                 "Array must not contain infs or NaNs")
        return _d(np.where, _d(np.equal, p[1:], 0), 0.0, row)
    companion = _d(np.concatenate, (_d(np.reshape, row, (1, n - 1)),
                                    np.eye(n - 2, n - 1, dtype=t)), axis=0)
    return _d(np.linalg.eigvals, companion)


def _refuse_zero(flag, which, result, count, kind):
    check_raises(flag, ROOTS_TRIMMED.error_for(which=which, result=result, count=count,
                                               kind=kind))

