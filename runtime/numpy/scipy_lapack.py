"""What scipy.linalg's functions share, and the LAPACK wrappers of `scipy.linalg.lapack`.

SciPy is optional and never imported here: functions are registered by their public
names (`registry.implements_lazy`) and written with npxla's own NumPy functions and
primitives. The scipy.linalg functions themselves are in scipy_linalg.py.

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
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from npxla.transpiler.base.errors import InternalCompilerError, UnsupportedFunctionError

from npxla.runtime.staging.abstract import AbstractArray, as_abstract
from npxla.runtime.staging.regions import trace_body
from npxla.runtime.staging.types import tensor_type
from npxla.runtime.lowering import elementwise as E
from npxla.runtime.lowering import structural as S
from npxla.runtime.lowering.borrowed import borrow, has_lapack
from npxla.runtime.lowering.linalg_ops import solve_triangular
from npxla.runtime.numpy import errorflags
from npxla.runtime.numpy.convert import cast_to
from npxla.runtime.numpy.linalg_common import (apply, bcast_batch, eye_like, iota,
                                               matrix_diagonal)
from npxla.runtime.numpy.reductions import asarray, full, static
from npxla.runtime.numpy.registry import implements_lazy

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

def _region(fn, params=()):
    """`fn` traced into a region body; run-time checks there would be lost."""
    body = trace_body(lambda *xs: list(fn(*xs)), list(params))
    if body.checks:
        body.discard()
        raise InternalCompilerError("a run-time check inside a scipy.linalg region")
    return body


def while_loop(cond, body, init):
    """`while cond(*v): v = body(*v)` as one stablehlo.while. `init`: abstract arrays (or
    values); `cond` returns a bool scalar, `body` a sequence like `init` (cast to the
    carried dtypes). Neither may record run-time checks."""
    init = [as_abstract(x) for x in init]
    body_of = _region(body, [(x.shape, x.dtype, False, frozenset()) for x in init])
    types = [tensor_type(x.shape, x.dtype) for x in init]
    op = hlo.WhileOp(types, [x.ir for x in init])
    block = op.cond.blocks.append(*types)
    with ir.InsertionPoint(block):
        args = [AbstractArray(x.shape, x.dtype, ir=a) for x, a in zip(init, block.arguments)]
        hlo.ReturnOp([cond(*args).ir])

    def finish():
        outs = [cast_to(as_abstract(v), x.dtype) for v, x in zip(body_of.leaves, init)]
        body_of.finish(outs)
    body_of.emit(finish)
    body_of.move_to(op.body)
    deps = frozenset().union(*[x.deps for x in init])
    return [AbstractArray(x.shape, x.dtype, ir=r, deps=deps) for x, r in zip(init, op.results)]


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


# --- scipy.linalg.expm ----------------------------------------------------------------------
# Padé approximant with scaling and squaring (Al-Mohy & Higham 2009): degree 13 (degree 7
# in single precision), s halvings chosen from the norms of A's powers (`_scaling`), s
# squarings as a staged loop. As
# SciPy's expm: a diagonal matrix gives exp of its diagonal, a triangular one gets its
# diagonal and first off-diagonal recomputed at each squaring (Al-Mohy & Higham 2009,
# code fragment 2.1) and the other triangle zeroed. SciPy picks the degree from more
# norm estimates, so values agree within rounding, not bit for bit.

_PADE = {
    13: (64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800.,
         129060195264000., 10559470521600., 670442572800., 33522128640., 1323241920.,
         40840800., 960960., 16380., 182., 1.),
    7: (17297280., 8648640., 1995840., 277200., 25200., 1512., 56., 1.),
}
_THETA = {13: 4.25, 7: 3.925724783138660}
# 1 / |c_(2m+1)| of the Padé remainder, and the unit roundoff (Al-Mohy & Higham's ell)
_ELL = {13: (113250775606021113483283660800000000., 2.0 ** -53),
        7: (4487938430976000., 2.0 ** -24)}


def _norm1(x):
    return apply(np.max, apply(np.sum, apply(np.abs, x), axis=-2), axis=-1)


def _scaling(a, m):
    """The number of squarings s per matrix (Al-Mohy & Higham 2009, algorithm 5.1):
    from the norms of A's powers, d_k = ||A^k||^(1/k), then raised by ell(2^-s A, m) where
    the Padé remainder's bound on |A| would exceed the unit roundoff."""
    mm = lambda x, y: apply(np.matmul, x, y)        # noqa: E731
    root = lambda x, k: apply(np.power, _norm1(x), 1.0 / k)   # noqa: E731
    a2 = mm(a, a)
    a4 = mm(a2, a2)
    a6 = mm(a4, a2)
    if m == 13:
        a8 = mm(a4, a4)
        d8 = root(a8, 8)
        eta = apply(np.minimum, apply(np.maximum, root(a6, 6), d8),
                    apply(np.maximum, d8, root(mm(a8, a2), 10)))
    else:
        eta = apply(np.maximum, root(a4, 4), root(a6, 6))
    norm = _norm1(a)
    eta = where(apply(np.isfinite, eta), eta, norm)       # powers overflowed: the norm
    ratio = apply(np.divide, eta, _THETA[m])
    s = apply(np.ceil, apply(np.log2, where(apply(np.greater, ratio, 1), ratio, 1)))
    # ell: log2 of || |A|^(2m+1) ||_1 / || |A| ||_1 by vector products, renormalised
    absa = apply(np.abs, a)

    def times_abs(_, w, logn):
        top = apply(np.max, w, axis=-1, keepdims=True)
        top = where(apply(np.greater, top, 0), top, 1)
        logn = apply(np.add, logn, apply(np.log2, S.reshape(top, shape=top.shape[:-1])))
        w = apply(np.matmul, apply(np.expand_dims, apply(np.divide, w, top), -2), absa)
        return S.reshape(w, shape=w.shape[:-2] + w.shape[-1:]), logn
    w, logn = fori_loop(0, 2 * m, times_abs, [apply(np.sum, absa, axis=-2),   # 1^T |A|
                                               apply(np.zeros_like, norm)])
    logn = apply(np.add, logn, apply(np.log2, apply(np.max, w, axis=-1)))
    c, u = _ELL[m]
    log_alpha = apply(np.subtract, apply(np.subtract, logn, apply(np.log2, norm)),
                      apply(np.multiply, 2 * m, s))
    ell = apply(np.ceil, apply(np.divide, apply(np.subtract, log_alpha, np.log2(c * u)),
                               2 * m))
    ell = where(apply(np.logical_and, apply(np.isfinite, ell), apply(np.greater, ell, 0)),
                ell, 0)
    s = apply(np.add, where(apply(np.isfinite, s), s, 0), ell)
    return cast_to(apply(np.minimum, s, 2000), _I64)


def _mat(x):
    return apply(np.expand_dims, apply(np.expand_dims, x, -1), -1)


def _pade(a, m):
    """(U, V) of the degree-m Padé approximant of exp(a)."""
    b = _PADE[m]
    eye = eye_like(a.shape[:-2], a.shape[-1], a.dtype)
    mm = lambda x, y: apply(np.matmul, x, y)                       # noqa: E731
    lin = lambda *terms: _sum([apply(np.multiply, c, x) for c, x in terms])  # noqa: E731
    a2 = mm(a, a)
    a4 = mm(a2, a2)
    a6 = mm(a4, a2)
    if m == 7:
        u = mm(a, lin((b[7], a6), (b[5], a4), (b[3], a2), (b[1], eye)))
        return u, lin((b[6], a6), (b[4], a4), (b[2], a2), (b[0], eye))
    u = mm(a, _sum([mm(a6, lin((b[13], a6), (b[11], a4), (b[9], a2))),
                    lin((b[7], a6), (b[5], a4), (b[3], a2), (b[1], eye))]))
    v = _sum([mm(a6, lin((b[12], a6), (b[10], a4), (b[8], a2))),
              lin((b[6], a6), (b[4], a4), (b[2], a2), (b[0], eye))])
    return u, v


def _sum(terms):
    out = terms[0]
    for t in terms[1:]:
        out = apply(np.add, out, t)
    return out


def _exp_sinch(x):
    """SciPy's `_exp_sinch` along the last axis: (exp(x[1:]) - exp(x[:-1])) / diff(x),
    exp(x[:-1]) where the difference is zero."""
    e = apply(np.exp, x)
    de, dx = apply(np.diff, e, axis=-1), apply(np.diff, x, axis=-1)
    zero = apply(np.equal, dx, 0)
    head = S.static_slice(e, start=(0,) * e.ndim, limit=e.shape[:-1] + (e.shape[-1] - 1,),
                          strides=(1,) * e.ndim)
    return where(zero, head, apply(np.divide, de, where(zero, 1, dx)))


def _band(n, k):
    """Mask (n, n) of the k-th diagonal."""
    return apply(np.equal, apply(np.subtract, iota((n, n), 1), iota((n, n), 0)), k)


def _triangular_fix(r, diag, sd, scale, lower_tri):
    """Code fragment 2.1: r's diagonal exp(diag * scale), its first off-diagonal on the
    triangle's side exp_sinch(diag * scale) * sd * scale (everything per matrix)."""
    n = r.shape[-1]
    x = apply(np.multiply, diag, apply(np.expand_dims, scale, -1))
    r = where(_band(n, 0), apply(np.expand_dims, apply(np.exp, x), -1), r)
    if n < 2:
        return r
    off = apply(np.multiply, _exp_sinch(x),
                apply(np.multiply, sd, apply(np.expand_dims, scale, -1)))
    off = apply(np.pad, off, [(0, 0)] * (off.ndim - 1) + [(0, 1)])
    upper_vals = apply(np.expand_dims, off, -1)        # r[i, i + 1] = off[i]
    lower_vals = apply(np.expand_dims, off, -2)        # r[j + 1, j] = off[j]
    return where(_mat(lower_tri), where(_band(n, -1), lower_vals, r),
                 where(_band(n, 1), upper_vals, r))


@implements_lazy("scipy.linalg.expm", family=FAMILY,
                 notes="Padé 13 (single precision: 7) with Al-Mohy & Higham's scaling "
                       "(norms of A's powers, ell correction), the squarings a staged loop; "
                       "triangular and diagonal matrices as SciPy treats them; agrees with "
                       "SciPy within rounding")
def expm(A):
    a = asarray(A)
    if a.size == 1 and a.ndim < 2:      # SciPy: np.array([[np.exp(a.item())]])
        kind = a.dtype.kind
        t = np.complex128 if kind == "c" else np.float16 if kind == "b" else np.float64
        return S.reshape(apply(np.exp, cast_to(a, t)), shape=(1, 1))
    if a.ndim < 2:
        raise LinAlgError("The input array must be at least two-dimensional")
    if a.shape[-1] != a.shape[-2]:
        raise LinAlgError("Last 2 dimensions of the array must be square")
    if a.shape[-2:] == (1, 1):
        return apply(np.exp, a)
    t = np.dtype(np.float64) if a.dtype.kind not in "fc" else \
        np.dtype(np.float32) if a.dtype == np.float16 else a.dtype
    if min(a.shape) == 0:
        return full(0, t, a.shape)
    a = cast_to(a, t)
    n = a.shape[-1]
    batch = a.shape[:-2]
    m = 7 if t in (np.float32, np.complex64) else 13
    rt = np.dtype(np.float32) if m == 7 else np.dtype(np.float64)
    # structure, as SciPy's bandwidth: diagonal, lower / upper triangular
    nonzero = apply(np.not_equal, a, 0)
    below = apply(np.any, apply(np.tril, nonzero, -1), axis=(-2, -1))
    above = apply(np.any, apply(np.triu, nonzero, 1), axis=(-2, -1))
    lower_tri = apply(np.logical_not, above)
    tri = apply(np.logical_or, lower_tri, apply(np.logical_not, below))
    diagonal = apply(np.logical_not, apply(np.logical_or, below, above))
    s = _scaling(a, m)
    scale = cast_to(apply(np.ones_like, s), rt)

    def halve(j, sc):
        return (where(apply(np.less, j, s), apply(np.multiply, sc, 0.5), sc),)
    smax = apply(np.max, s)
    (scale,) = fori_loop(0, smax, halve, [scale])
    u, v = _pade(apply(np.multiply, a, cast_to(_mat(scale), t)), m)
    lu, _, perm = lu_factors(apply(np.subtract, v, u))
    r = lu_solve_perm(lu, perm, apply(np.add, u, v))
    diag = apply(np.diagonal, a, 0, -2, -1)
    sd = where(apply(np.expand_dims, lower_tri, -1), apply(np.diagonal, a, -1, -2, -1),
               apply(np.diagonal, a, 1, -2, -1))
    first = apply(np.exp, apply(np.multiply, diag, apply(np.expand_dims, cast_to(scale, t),
                                                        -1)))
    fix = _mat(apply(np.logical_and, tri, apply(np.greater, s, 0)))
    r = where(fix, where(_band(n, 0), apply(np.expand_dims, first, -1), r), r)

    def square(j, r, sc):
        active = apply(np.less, j, s)
        sc = where(active, apply(np.multiply, sc, 2), sc)
        r2 = apply(np.matmul, r, r)
        r2 = where(_mat(tri), _triangular_fix(r2, diag, sd, cast_to(sc, t), lower_tri), r2)
        return where(_mat(active), r2, r), sc
    r, _ = fori_loop(0, smax, square, [r, scale])
    r = where(_mat(lower_tri), apply(np.tril, r), where(_mat(tri), apply(np.triu, r), r))
    exact = apply(np.multiply, eye_like(batch, n, t),
                  apply(np.expand_dims, apply(np.exp, diag), -1))
    return where(_mat(diagonal), exact, r)
