"""What scipy.linalg's functions share, and the LAPACK wrappers of `scipy.linalg.lapack`.

SciPy is optional and never imported here: functions are registered by their public
names (`registry.implements_lazy`) and written with npxla's own NumPy functions and
primitives. The scipy.linalg functions themselves are in `linalg`,
`linalg_decompositions` and `expm`.

SciPy's dtype rules differ from np.linalg's (which computes everything in double):
  - `lapack_dtype`: LAPACK's prefix choice (`find_best_lapack_type`): bool, 8/16-bit
    integers and float16 compute in float32 ('s'), wider integers and float64 in
    float64 ('d'), complex64 in complex64 ('c'), complex128 in complex128 ('z');
    float32 stays float32 and is computed in single precision, as SciPy does;
  - `cdsz_dtype` (solve, expm-like routines): NumPy's result type, integers and bool
    to float64, then single or double precision by width.
`check_finite=True` (SciPy's default) is a run-time check that raises SciPy's
ValueError("array must not contain infs or NaNs") after the call.

Loops (the tridiagonal solver, LAPACK pivots to permutations, expm's squarings) are
staged as one `stablehlo.while` each (`while_loop`), so a program does not grow with
the matrix size. On the CPU the tridiagonal solver, Cholesky and triangular solves are
SciPy's own LAPACK/BLAS routines, borrowed through jaxlib (runtime/lowering/borrowed.py);
the staged loops are the other platforms' path.
"""
from __future__ import annotations

import numpy as np
from numpy.linalg import LinAlgError
from jaxlib.mlir.dialects import stablehlo as hlo

from npxla.transpiler.base.errors import UnsupportedFunctionError

from npxla.runtime.staging.abstract import AbstractArray, as_abstract
from npxla.runtime.staging.types import tensor_type
from npxla.runtime.lowering import elementwise as E
from npxla.runtime.lowering import structural as S
from npxla.runtime.lowering.borrowed import borrow, has_lapack
from npxla.runtime.lowering.linalg_ops import solve_triangular
from npxla.runtime.numpy.core import errorflags
from npxla.runtime.numpy.core.loops import region as _region, while_loop
from npxla.runtime.numpy.core.convert import cast_to
from npxla.runtime.numpy.linalg.linalg_common import (apply, bcast_batch, iota,
                                                      matrix_diagonal)
from npxla.runtime.numpy.reductions.reductions import asarray, full, static
from npxla.runtime.numpy.core.registry import implements_lazy


FAMILY = "scipy"
_I64 = np.dtype(np.int64)
_I32 = np.dtype(np.int32)

# --- SciPy's dtype rules ------------------------------------------------------------------

_SCORE = {**{c: 1 for c in "?bBhHef"}, **{c: 2 for c in "iIlLqQdg"}, "F": 3, "D": 4, "G": 4}
_PREFIX = {1: np.dtype(np.float32), 2: np.dtype(np.float64), 3: np.dtype(np.complex64),
           4: np.dtype(np.complex128)}


def lapack_dtype(*arrays):
    """The dtype SciPy's `get_lapack_funcs(names, arrays)` computes in."""
    scores = [_SCORE.get(a.dtype.char, 5) for a in arrays]
    best = max(scores)
    if best == 3 and 2 in scores:       # float64 with complex64: complex128
        best = 4
    return _PREFIX.get(best, np.dtype(np.float64))


def cdsz_dtype(*arrays):
    """SciPy's `_ensure_dtype_cdsz`: NumPy's result type, made single or double."""
    dt = np.result_type(*[a.dtype for a in arrays])
    if dt.kind not in "fc":
        return np.dtype(np.float64)
    bits = np.finfo(dt).bits
    if dt.kind == "c":
        return np.dtype(np.complex64 if bits <= 32 else np.complex128)
    return np.dtype(np.float32 if bits <= 32 else np.float64)


def real_of(dtype):
    return np.dtype(np.float32) if np.dtype(dtype) in (np.float32, np.complex64) \
        else np.dtype(np.float64)


def validated(x, check_finite=True):
    """`x` as an abstract array; with `check_finite` (a Python value), SciPy's ValueError
    for infinities or NaNs, raised after the call."""
    x = asarray(x)
    if x.dtype == object:
        raise ValueError("object arrays are not supported")
    if static(check_finite, "check_finite") and x.dtype.kind in "fc" and x.size:
        bad = apply(np.logical_not, apply(np.all, apply(np.isfinite, x)))
        errorflags.check(bad, "array must not contain infs or NaNs", error=ValueError)
    return x


def zero_size_batch(name, batch):
    """SciPy's `_apply_over_batch` refuses batches with no slices."""
    if batch and 0 in batch:
        raise ValueError(f"`{name}` does not support zero-size batches.")


def int_const(value, dtype=_I64):
    return as_abstract(np.asarray(value, dtype))


# --- staged loops ----------------------------------------------------------------------------

def if_else(pred, true_fn, false_fn, like):
    """`true_fn() if pred else false_fn()` as one stablehlo.if: only the branch taken runs.
    Both return sequences of values cast to the dtypes of `like` (abstract arrays whose
    shapes and dtypes the results take)."""
    bodies = [_region(true_fn), _region(false_fn)]
    op = hlo.IfOp([tensor_type(x.shape, x.dtype) for x in like], pred.ir)
    for body, region in zip(bodies, (op.true_branch, op.false_branch)):
        body.emit(lambda body=body: body.finish(
            [cast_to(as_abstract(v), x.dtype) for v, x in zip(body.leaves, like)]))
        body.move_to(region)
    deps = frozenset().union(pred.deps, *[x.deps for x in like])
    return [AbstractArray(x.shape, x.dtype, ir=r, deps=deps) for x, r in zip(like, op.results)]


def cholesky_info(a, lower):
    """LAPACK potrf's `info` per matrix of (..., n, n) `a` (the `lower` or upper triangle
    read): 0, or the order of the first leading minor that is not positive definite.
    An unblocked Cholesky as a staged loop, run only when XLA's factor `c` failed."""
    n = a.shape[-1]
    batch = a.shape[:-2]
    nb = int(np.prod(batch, dtype=np.int64))
    tri = apply(np.tril if lower else np.triu, a)
    strict = apply(np.tril if lower else np.triu, a, -1 if lower else 1)
    other = apply(np.swapaxes, strict, -1, -2)
    if a.dtype.kind == "c":
        other = apply(np.conjugate, other)
    full_ = S.reshape(apply(np.add, tri, other), shape=(nb, n, n))
    ids = S.iota(shape=(n,), dtype=_I64, dim=0)

    def step(j, m, info):
        zero = int_const(0)
        col = S.reshape(S.dynamic_slice(m, zero, zero, j, sizes=(nb, n, 1)), shape=(nb, n))
        d = S.reshape(S.dynamic_slice(col, zero, j, sizes=(nb, 1)), shape=(nb,))
        d = apply(np.real, d)
        bad = apply(np.logical_not, apply(np.greater, d, 0))
        fresh = apply(np.logical_and, bad, apply(np.equal, info, 0))
        info = where(fresh, cast_to(E.add(j, int_const(1)), _I32), info)
        below = apply(np.greater, ids, j)
        root = apply(np.sqrt, where(bad, 1, d))
        v = where(below, apply(np.divide, col, apply(np.expand_dims, root, -1)), 0)
        vc = apply(np.conjugate, v) if v.dtype.kind == "c" else v
        m = apply(np.subtract, m, apply(np.multiply, apply(np.expand_dims, v, -1),
                                        apply(np.expand_dims, vc, -2)))
        return m, info
    zeros = cast_to(apply(np.zeros, nb), _I32)
    _, info = fori_loop(0, n, step, [full_, zeros])
    return S.reshape(info, shape=batch)


def fori_loop(lo, hi, body, init, step=1):
    """`for i in range(lo, hi, step): v = body(i, *v)` (i an int64 scalar; lo and hi
    Python ints or int64 scalars)."""
    lo, hi = cast_to(as_abstract(lo), _I64), cast_to(as_abstract(hi), _I64)
    direction = "LT" if step > 0 else "GT"
    out = while_loop(lambda i, _hi, *v: E.compare(i, _hi, direction),
                     lambda i, _hi, *v: [E.add(i, int_const(step)), _hi, *body(i, *v)],
                     [lo, hi, *init])
    return out[2:]


def row(x, i, size=1):
    """x[i:i + size] along the first axis (a traced i), keeping the axis."""
    zero = int_const(0)
    return S.dynamic_slice(x, i, *([zero] * (x.ndim - 1)), sizes=(size,) + x.shape[1:])


def put_row(x, value, i):
    zero = int_const(0)
    return S.dynamic_update_slice(x, value, i, *([zero] * (x.ndim - 1)))


def where(c, a, b):
    return apply(np.where, c, a, b)


# --- the tridiagonal solver (LAPACK ?gtsv) --------------------------------------------------

def _expand(c, like):
    """A (B,) flag broadcast against `like` ((1, B) or (1, B, k))."""
    return S.reshape(c, shape=(1,) + c.shape + (1,) * (like.ndim - 2))


def gtsv(dl, d, du, b):
    """LAPACK ?gtsv on a batch: Gaussian elimination with partial pivoting, row by row,
    the same operations in the same order (so the same values) as the reference LAPACK.
    dl, du (B, n-1), d (B, n), b (B, n, k), n >= 2, one dtype. Returns (du2 (B, n-1),
    d, du, x (B, n, k), info (B,) int32): on a zero pivot, info (1-based) and the
    arrays as LAPACK leaves them when it stops. On the CPU: LAPACK's (SciPy's) ?gtsv
    itself."""
    if has_lapack(d.dtype):
        return _lapack_gtsv(dl, d, du, b)
    nb, n = d.shape
    t = d.dtype
    zero = np.zeros((), t)

    def padded(v, rows):
        v = S.transpose(v, perm=(1, 0) + tuple(range(2, v.ndim)))      # (n, B, ...)
        pad = [(0, rows)] + [(0, 0)] * (v.ndim - 1)
        return apply(np.pad, v, pad) if rows else v
    D, DL, DU, X = padded(d, 0), padded(dl, 1), padded(du, 1), padded(b, 2)
    info = cast_to(apply(np.zeros, nb), _I32)
    more = int_const(n - 2)                    # steps before this one: DL(I) is set

    def forward(i, D, DL, DU, X, info):
        di, dn = row(D, i), row(D, E.add(i, int_const(1)))
        dli, dui, dun = row(DL, i), row(DU, i), row(DU, E.add(i, int_const(1)))
        bi, bn = row(X, i), row(X, E.add(i, int_const(1)))
        active = apply(np.equal, info, 0)
        nopiv = apply(np.greater_equal, apply(np.abs, di), apply(np.abs, dli))[0]
        fail = apply(np.logical_and, active,
                     apply(np.logical_and, nopiv, apply(np.equal, di, 0)[0]))
        info = where(fail, cast_to(E.add(i, int_const(1)), _I32), info)
        go = apply(np.logical_and, active, apply(np.logical_not, fail))
        swap = apply(np.logical_and, go, apply(np.logical_not, nopiv))
        keep = apply(np.logical_and, go, nopiv)
        inner = apply(np.less, i, more)
        # no interchange
        fact = apply(np.divide, dli, where(keep, di, 1))
        dn1 = apply(np.subtract, dn, apply(np.multiply, fact, dui))
        bn1 = apply(np.subtract, bn, apply(np.multiply, _expand(fact[0], bn), bi))
        dl1 = where(inner, zero, dli)
        # interchange rows i and i + 1
        fact2 = apply(np.divide, di, where(swap, dli, 1))
        dn2 = apply(np.subtract, dui, apply(np.multiply, fact2, dn))
        dl2 = where(inner, dun, dli)
        dun2 = where(inner, apply(np.multiply, apply(np.negative, fact2), dun), dun)
        bn2 = apply(np.subtract, bi, apply(np.multiply, _expand(fact2[0], bn), bn))
        s1, s2 = _expand(swap, di), _expand(swap, bi)
        k1, k2 = _expand(keep, di), _expand(keep, bi)
        D = put_row(D, S.concatenate(where(s1, dli, di),
                                     where(s1, dn2, where(k1, dn1, dn)), axis=0), i)
        DL = put_row(DL, where(s1, dl2, where(k1, dl1, dli)), i)
        DU = put_row(DU, S.concatenate(where(s1, dn, dui), where(s1, dun2, dun), axis=0), i)
        X = put_row(X, S.concatenate(where(s2, bn, bi),
                                     where(s2, bn2, where(k2, bn1, bn)), axis=0), i)
        return D, DL, DU, X, info

    D, DL, DU, X, info = fori_loop(0, n - 1, forward, [D, DL, DU, X, info])
    last = S.reshape(S.static_slice(D, start=(n - 1, 0), limit=(n, nb), strides=(1, 1)),
                     shape=(nb,))
    info = where(apply(np.logical_and, apply(np.equal, info, 0), apply(np.equal, last, 0)),
                 np.int32(n), info)
    ok = apply(np.equal, info, 0)
    deep = int_const(n - 3)

    def backward(i, Y):
        yi, y1, y2 = row(Y, i), row(Y, E.add(i, int_const(1))), row(Y, E.add(i, int_const(2)))
        di, dui, dli = row(D, i), row(DU, i), row(DL, i)
        y = apply(np.subtract, yi, apply(np.multiply, _expand(dui[0], yi), y1))
        term = apply(np.multiply, _expand(dli[0], yi), y2)
        y = apply(np.subtract, y, where(apply(np.less_equal, i, deep), term, zero))
        return (put_row(Y, apply(np.divide, y, _expand(di[0], yi)), i),)

    (Y,) = fori_loop(n - 1, -1, backward, [X], step=-1)
    X = where(_expand(ok, X), Y, X)

    def back(v, rows):
        v = S.static_slice(v, start=(0,) * v.ndim, limit=(rows,) + v.shape[1:],
                           strides=(1,) * v.ndim)
        return S.transpose(v, perm=(1, 0) + tuple(range(2, v.ndim)))
    return back(DL, n - 1), back(D, n), back(DU, n - 1), back(X, n), info


def _lapack_gtsv(dl, d, du, b):
    nb, n = d.shape
    pad = lambda v, where: apply(np.pad, v, [(0, 0), where])       # noqa: E731
    dl_, d_, du_, x, info = borrow("gtsv", pad(dl, (1, 0)), d, pad(du, (0, 1)), b)
    cut = lambda v, lo: S.static_slice(v, start=(0, lo), limit=(nb, lo + n - 1),  # noqa: E731
                                       strides=(1, 1))
    return cut(dl_, 1), d_, cut(du_, 0), x, info


def _gtsv_wrapper(name, t):
    def wrapper(dl, d, du, b, overwrite_dl=0, overwrite_d=0, overwrite_du=0, overwrite_b=0):
        flags = dict(overwrite_dl=overwrite_dl, overwrite_d=overwrite_d,
                     overwrite_du=overwrite_du, overwrite_b=overwrite_b)
        for flag in [f for f, v in flags.items() if static(v, f)]:   # in-place writes
            raise UnsupportedFunctionError(f"{name}: {flag}=1 is not supported",
                                           hint=f"leave {flag} at 0, use the results")
        dl, d, du, b = [cast_to(asarray(v), t) for v in (dl, d, du, b)]
        if d.ndim != 1:
            raise ValueError(f"{name}: d must be one-dimensional, got shape {d.shape}")
        n = d.shape[0]
        for what, v, pos in (("dl", dl, "1st"), ("du", du, "3rd"), ("b", b, "4th")):
            want = n if what == "b" else n - 1
            if v.ndim not in ((1, 2) if what == "b" else (1,)) or v.shape[0] != want:
                raise ValueError(f"_flapack._flapack.{name}: failed to create array from "
                                 f"the {pos} argument `{what}` -- 0-th dimension must be "
                                 f"fixed to {want} but got {v.shape[:1]}")
        if n < 2:       # f2py's bounds on dl (n - 1 elements) fail for n = 1
            raise ValueError(f"unexpected array size: new_size={max(n, 1)}, got array "
                             "with arr_size=0")
        bm = S.reshape(b, shape=(1, n, b.shape[1] if b.ndim == 2 else 1))
        one = lambda v: S.reshape(v, shape=(1,) + v.shape)      # noqa: E731
        du2, dd, duu, x, info = gtsv(one(dl), one(d), one(du), bm)
        info = cast_to(S.reshape(info, shape=()), np.int64, weak=True)   # a Python int
        return (S.reshape(du2, shape=(n - 1,)), S.reshape(dd, shape=(n,)),
                S.reshape(duu, shape=(n - 1,)), S.reshape(x, shape=b.shape), info)
    wrapper.__name__ = name
    return wrapper


_NOTE = ("LAPACK ?gtsv itself on the CPU (elsewhere its Gaussian elimination with partial "
         "pivoting as one staged loop over the rows, the same operations); info > 0 on a zero "
         "pivot (arrays as LAPACK leaves them); overwrite_* flags refused")
dgtsv = implements_lazy("scipy.linalg.lapack.dgtsv", family=FAMILY, notes=_NOTE)(
    _gtsv_wrapper("dgtsv", np.float64))
sgtsv = implements_lazy("scipy.linalg.lapack.sgtsv", family=FAMILY, notes=_NOTE)(
    _gtsv_wrapper("sgtsv", np.float32))


# --- LU and triangular solves ------------------------------------------------------------

def trsm(a, b, lower, unit=False, trans="NO_TRANSPOSE"):
    return solve_triangular(a, b, lower=lower, unit_diagonal=unit, transpose_a=trans)


def lu_factors(a):
    """(packed LU, LAPACK pivots (0-based int32), permutation: a[perm] = L U)."""
    return borrow("lu", a)


def permute_rows(x, perm):
    return apply(np.take_along_axis, x, apply(np.expand_dims, perm, -1), axis=-2)


def lu_solve_perm(lu, perm, b, trans=0):
    """Solve op(A) x = b from A's LU (A[perm] = L U); lu, perm and b share batch shapes."""
    if trans == 0:
        y = trsm(lu, permute_rows(b, perm), True, True)
        return trsm(lu, y, False)
    kind = "TRANSPOSE" if trans == 1 or lu.dtype.kind != "c" else "ADJOINT"
    z = trsm(lu, b, False, trans=kind)
    w = trsm(lu, z, True, True, trans=kind)
    return permute_rows(w, apply(np.argsort, perm, axis=-1))


def zero_diagonal(a):
    return apply(np.any, apply(np.equal, matrix_diagonal(a), 0), axis=-1)


@implements_lazy("scipy.linalg.solve_banded", family=FAMILY,
                 notes="(1, 1): LAPACK gtsv's own elimination (as scipy.linalg.lapack.dgtsv); "
                       "other bands: dense LU with partial pivoting (gbsv's pivots); a "
                       "singular matrix raises LinAlgError after the call")
def solve_banded(l_and_u, ab, b, overwrite_ab=False, overwrite_b=False, check_finite=True):
    nlower, nupper = (int(static(v, "l_and_u")) for v in l_and_u)
    ab, b = validated(ab, check_finite), validated(b, check_finite)
    ab = cast_to(ab, np.float64) if ab.dtype.kind not in "fc" else ab
    b = cast_to(b, np.float64) if b.dtype.kind not in "fc" else b
    if ab.ndim != 2 or b.ndim not in (1, 2) or ab.shape[-1] != b.shape[0]:
        raise ValueError("shapes of ab and b are not compatible.")
    if nlower + nupper + 1 != ab.shape[0]:
        raise ValueError(
            "invalid values for the number of lower and upper diagonals: l+u+1 "
            f"({nlower + nupper + 1}) does not equal ab.shape[0] ({ab.shape[0]})")
    t = lapack_dtype(ab, b)
    n = ab.shape[-1]
    if b.size == 0:
        return full(0, cdsz_dtype(ab, b), b.shape)
    if n == 1:
        return apply(np.divide, cast_to(b, np.result_type(b.dtype, ab.dtype)),
                     S.reshape(S.static_slice(ab, start=(nupper, 0), limit=(nupper + 1, 1),
                                              strides=(1, 1)), shape=()))
    ab, b = cast_to(ab, t), cast_to(b, t)
    b2 = S.reshape(b, shape=(1, n, b.shape[1] if b.ndim == 2 else 1))
    if nlower == nupper == 1:
        rows = [S.static_slice(ab, start=(r, lo), limit=(r + 1, n - hi), strides=(1, 1))
                for r, lo, hi in ((2, 0, 1), (1, 0, 0), (0, 1, 0))]
        *_, x, info = gtsv(*rows, b2)
        singular = apply(np.not_equal, info, 0)
    else:       # dense: a[i, j] = ab[u + i - j, j]
        i, j = iota((n, n), 0), iota((n, n), 1)
        k = apply(np.subtract, apply(np.add, nupper, i), j)
        inside = apply(np.logical_and, apply(np.greater_equal, k, 0),
                       apply(np.less_equal, k, nlower + nupper))
        dense = apply(np.take_along_axis, ab, apply(np.clip, k, 0, nlower + nupper), axis=0)
        dense = S.reshape(where(inside, dense, 0), shape=(1, n, n))
        lu, _, perm = lu_factors(dense)
        x, singular = lu_solve_perm(lu, perm, b2), zero_diagonal(lu)
    errorflags.check(singular, "singular matrix", error=LinAlgError)
    return S.reshape(x, shape=b.shape)


# --- block_diag ------------------------------------------------------------------------------

@implements_lazy("scipy.linalg.block_diag", family=FAMILY,
                 notes="broadcast batch axes, NumPy's result dtype")
def block_diag(*arrs):
    if arrs == ():
        arrs = ([],)
    arrs = [asarray(a) for a in arrs]
    arrs = [S.reshape(a, shape=(1,) * (2 - a.ndim) + a.shape) if a.ndim < 2 else a
            for a in arrs]
    batch = np.broadcast_shapes(*[a.shape[:-2] for a in arrs])
    dt = np.result_type(*[a.dtype for a in arrs])
    rows = sum(a.shape[-2] for a in arrs)
    cols = sum(a.shape[-1] for a in arrs)
    out = full(0, dt, batch + (rows, cols))
    r = c = 0
    zero = [np.int64(0)] * len(batch)
    for a in arrs:
        a = bcast_batch(cast_to(a, dt), batch, 2)
        if a.size:
            out = S.dynamic_update_slice(out, a, *[asarray(v) for v in
                                                   zero + [np.int64(r), np.int64(c)]])
        r, c = r + a.shape[-2], c + a.shape[-1]
    return out


# --- LAPACK pivots ---------------------------------------------------------------------------

def pivots_to_permutation(piv, m):
    """LAPACK's row interchanges (0-based, (B..., k) int) -> the permutation `perm`
    (B..., m) with A[perm] = L U."""
    batch, k = piv.shape[:-1], piv.shape[-1]
    flat = int(np.prod(batch, dtype=np.int64))
    p = S.transpose(S.reshape(cast_to(piv, _I64), shape=(flat, k)), perm=(1, 0))
    p = apply(np.clip, p, 0, m - 1)
    rows = S.broadcast_in_dim(S.iota(shape=(m,), dtype=_I64, dim=0), shape=(m, flat),
                              dims=(0,))

    def body(i, perm):
        j = row(p, i)                                             # (1, flat)
        hit = apply(np.equal, rows, j)                            # one-hot rows j
        there = apply(np.sum, where(hit, perm, 0), axis=0, keepdims=True)
        perm = where(hit, row(perm, i), perm)                     # perm[j] = perm[i]
        return (put_row(perm, there, i),)                         # perm[i] = old perm[j]
    (perm,) = fori_loop(0, min(k, m), body, [rows])
    return S.reshape(S.transpose(perm, perm=(1, 0)), shape=batch + (m,))
