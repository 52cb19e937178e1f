"""Contractions: einsum, tensordot, kron, cross.

`einsum` lowers to pairwise `stablehlo.dot_general` (through `products.contract`, so bool
and float16 follow NumPy's results): repeated labels inside one operand take a diagonal
first, labels that only one operand carries and the output drops are summed out early,
then operand pairs are contracted greedily (smallest intermediate first). Labels of size
1 broadcast against the same label elsewhere, as in NumPy. `optimize=` is accepted and
ignored (the pairwise order is always chosen this way). Result dtypes and subscript
errors are NumPy's own: NumPy is asked on one-element stand-ins.
"""
from __future__ import annotations

import itertools
import string
import warnings
from functools import lru_cache

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from npxla.runtime.numpy.core.coercion import as_array
from npxla.runtime.numpy.core.convert import broadcast_to_shape, cast_to
from npxla.runtime.numpy.arrays.diagonals import diagonal_value
from npxla.runtime.numpy.linalg.products import contract
from npxla.runtime.numpy.reductions.reductions import numpy_error, static
from npxla.runtime.numpy.core.registry import dispatch, implements
from npxla.runtime.numpy.arrays.shape import moveaxis
from npxla.runtime.numpy.ufuncs.ufunc_core import store_out
from npxla.runtime.numpy.core.values import reshape_value, transpose_value


# --- einsum: subscripts ----------------------------------------------------------------------

def _interleaved_to_string(args):
    """`einsum(op0, sublist0, op1, sublist1, ..., [out])` -> ("subscripts", operands)."""
    def letters(sub):
        out = []
        for s in sub:
            if s is Ellipsis:
                out.append("...")
            else:
                s = static(s, "an einsum sublist")
                if not 0 <= s < 52:
                    raise ValueError("subscript is not within the valid range [0, 52)")
                out.append(string.ascii_uppercase[s] if s < 26
                           else string.ascii_lowercase[s - 26])
        return "".join(out)
    ops, subs = list(args[0::2]), [letters(s) for s in args[1::2]]
    out = None
    if len(args) % 2:
        ops = ops[:-1] if len(ops) > len(subs) else ops
        out = letters(args[-1])
    subscripts = ",".join(subs) + ("" if out is None else "->" + out)
    return subscripts, ops


@lru_cache(maxsize=1024)
def _einsum_dtype(subscripts, keys, dtype, casting):
    """NumPy's result dtype (and its subscript/casting errors) on one-element stand-ins."""
    dummies = [np.ones((1,) * nd, dt) for dt, nd in keys]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return np.asarray(np.einsum(subscripts, *dummies, dtype=dtype,
                                    casting=casting)).dtype


def _parse(subscripts, ndims):
    """Per-operand label lists and the output label list; ellipsis dimensions become
    ("...", k) labels counted from the right."""
    subscripts = subscripts.replace(" ", "")
    if "->" in subscripts:
        ins, out = subscripts.split("->")
    else:
        ins, out = subscripts, None
    terms = ins.split(",")
    n_ell = 0
    labels = []
    for term, nd in zip(terms, ndims):
        if "..." in term:
            head, tail = term.split("...")
            k = nd - len(head) - len(tail)
            n_ell = max(n_ell, k)
            labels.append(list(head) + [("...", k - 1 - i) for i in range(k)] + list(tail))
        else:
            labels.append(list(term))
    ell = [("...", n_ell - 1 - i) for i in range(n_ell)]
    if out is None:
        counts: dict = {}
        for lab in labels:
            for c in lab:
                if isinstance(c, str):
                    counts[c] = counts.get(c, 0) + 1
        out_labels = ell + sorted(c for c, n in counts.items() if n == 1)
    elif "..." in out:
        head, tail = out.split("...")
        out_labels = list(head) + ell + list(tail)
    else:
        out_labels = list(out)
    return labels, out_labels


# --- einsum: lowering ---------------------------------------------------------------------------

def _sizes(operands, labels, subscripts):
    sizes: dict = {}
    for x, labs in zip(operands, labels):
        for n, lab in zip(x.shape, labs):
            if n != 1:
                if sizes.get(lab, 1) not in (1, n):
                    numpy_error(np.einsum, subscripts, *operands)
                    raise ValueError(f"einsum: inconsistent size for label {lab!r}")
                sizes[lab] = n
            else:
                sizes.setdefault(lab, 1)
    for x, labs in zip(operands, labels):       # a repeated label needs equal sizes
        for lab in set(labs):
            dims = {x.shape[i] for i, c in enumerate(labs) if c == lab}
            if len(dims) > 1:
                numpy_error(np.einsum, subscripts, *operands)
                raise ValueError(f"einsum: inconsistent size for label {lab!r}")
    return sizes


def _prepare(x, labs, sizes, keep, dtype):
    """Drop broadcast (size-1) axes, take diagonals of repeated labels, sum out labels
    nobody else needs."""
    drop = [i for i, lab in enumerate(labs) if x.shape[i] == 1 and sizes[lab] != 1]
    if drop:
        labs = [lab for i, lab in enumerate(labs) if i not in drop]
        x = reshape_value(x, tuple(n for i, n in enumerate(x.shape) if i not in drop))
    while len(set(labs)) != len(labs):
        lab = next(c for c in labs if labs.count(c) > 1)
        i = labs.index(lab)
        j = labs.index(lab, i + 1)
        x = diagonal_value(x, 0, i, j)
        labs = [c for k, c in enumerate(labs) if k not in (i, j)] + [lab]
    summed = tuple(i for i, lab in enumerate(labs) if lab not in keep)
    if summed:
        x = dispatch(np.sum, (x,), {"axis": summed, "dtype": dtype})
        labs = [lab for i, lab in enumerate(labs) if i not in summed]
    return x, labs


def _pair_cost(a, b, sizes):
    shared = set(a[1]) & set(b[1])
    result = set(a[1]) ^ set(b[1])
    size = 1
    for lab in result:
        size *= sizes[lab]
    return (not shared, size)


def _contract_pair(a, b, needed, dtype):
    (x, la), (y, lb) = a, b
    common = [lab for lab in la if lab in lb]
    batch = [lab for lab in common if lab in needed]
    summed = [lab for lab in common if lab not in needed]
    r = contract(x, y, dtype,
                 batch=(tuple(la.index(c) for c in batch), tuple(lb.index(c) for c in batch)),
                 contract=(tuple(la.index(c) for c in summed),
                           tuple(lb.index(c) for c in summed)))
    labels = batch + [c for c in la if c not in common] + [c for c in lb if c not in common]
    return r, labels


def _einsum_lower(operands, labels, out_labels, sizes, dtype):
    ops = []
    for k, (x, labs) in enumerate(zip(operands, labels)):
        others = set(out_labels).union(*[set(lab) for i, lab in enumerate(labels) if i != k])
        ops.append(_prepare(x, list(labs), sizes, others, dtype))
    while len(ops) > 1:
        i, j = min(itertools.combinations(range(len(ops)), 2),
                   key=lambda p: _pair_cost(ops[p[0]], ops[p[1]], sizes))
        rest = [op for k, op in enumerate(ops) if k not in (i, j)]
        needed = set(out_labels).union(*[set(lab) for _, lab in rest])
        ops = rest + [_contract_pair(ops[i], ops[j], needed, dtype)]
    x, labs = ops[0]
    x, labs = _prepare(x, labs, sizes, set(out_labels), dtype)
    missing = [lab for lab in out_labels if lab not in labs]
    if missing:                                  # only size-1 labels can be missing
        x = reshape_value(x, x.shape + (1,) * len(missing))
        labs = labs + missing
    x = transpose_value(x, [labs.index(lab) for lab in out_labels])
    return cast_to(x, dtype)


@implements(np.einsum, family="products",
            notes="lowered to pairwise dot_general; optimize= is ignored; results are "
                  "copies where NumPy may return a view (e.g. 'ii->i')")
def einsum(*operands, out=None, optimize=False, dtype=None, order="K", casting="safe"):
    if not operands:
        raise ValueError("No input operands")
    if isinstance(operands[0], str):
        subscripts, ops = operands[0], list(operands[1:])
    else:
        subscripts, ops = _interleaved_to_string(operands)
    subscripts = static(subscripts, "einsum subscripts")
    ops = [as_array(x) for x in ops]
    dtype = None if dtype is None else np.dtype(static(dtype, "dtype"))
    dt = _einsum_dtype(subscripts, tuple((x.dtype, x.ndim) for x in ops), dtype,
                       static(casting, "casting"))
    labels, out_labels = _parse(subscripts, [x.ndim for x in ops])
    sizes = _sizes(ops, labels, subscripts)
    ops = [cast_to(x, dt) for x in ops]
    result = _einsum_lower(ops, labels, out_labels, sizes, dt)
    if out is not None:
        return store_out("einsum", out, result, casting=casting)
    return result


# --- tensordot -------------------------------------------------------------------------------

def _axes_list(axes):
    try:
        return list(axes), len(axes)
    except TypeError:
        return [axes], 1


@implements(np.tensordot, family="products")
def tensordot(a, b, axes=2):
    axes = static(axes, "axes")
    try:
        iter(axes)
    except Exception:
        axes_a, axes_b = list(range(-axes, 0)), list(range(0, axes))
    else:
        axes_a, axes_b = axes
    axes_a, na = _axes_list(static(axes_a, "axes"))
    axes_b, nb = _axes_list(static(axes_b, "axes"))
    a, b = as_array(a), as_array(b)
    equal = na == nb
    if equal:
        for k in range(na):
            if a.shape[axes_a[k]] != b.shape[axes_b[k]]:
                equal = False
                break
            axes_a[k] = axes_a[k] + a.ndim if axes_a[k] < 0 else axes_a[k]
            axes_b[k] = axes_b[k] + b.ndim if axes_b[k] < 0 else axes_b[k]
    if not equal:
        raise ValueError("shape-mismatch for sum")
    dt = np.result_type(a.dtype, b.dtype)
    return contract(cast_to(a, dt), cast_to(b, dt), dt,
                    contract=(tuple(axes_a), tuple(axes_b)))


# --- kron ------------------------------------------------------------------------------------

@implements(np.kron, family="products")
def kron(a, b):
    b = as_array(b)
    a = as_array(a)
    if a.ndim < b.ndim:
        a = reshape_value(a, (1,) * (b.ndim - a.ndim) + a.shape)
    if a.ndim == 0 or b.ndim == 0:
        return dispatch(np.multiply, (a, b), {})
    nd = max(a.ndim, b.ndim)
    as_ = (1,) * (nd - a.ndim) + a.shape
    bs = (1,) * (nd - b.ndim) + b.shape
    a_arr = reshape_value(a, tuple(v for n in as_ for v in (n, 1)))
    b_arr = reshape_value(b, tuple(v for n in bs for v in (1, n)))
    result = dispatch(np.multiply, (a_arr, b_arr), {})
    return reshape_value(result, tuple(x * y for x, y in zip(as_, bs)))


# --- cross -----------------------------------------------------------------------------------

@implements(np.cross, family="products",
            notes="2-vectors give NumPy's DeprecationWarning while compiling")
def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """np.cross for 2- and 3-vectors along any axes: the components are moved to the last
    axis, broadcast, combined as NumPy does (2-vectors give the z component) and
    moved to axisc."""
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = as_array(a), as_array(b)
    if a.ndim < 1 or b.ndim < 1:
        raise ValueError("At least one array has zero dimension")
    axisa = normalize_axis_index(static(axisa, "axisa"), a.ndim, msg_prefix="axisa")
    axisb = normalize_axis_index(static(axisb, "axisb"), b.ndim, msg_prefix="axisb")
    a = moveaxis(a, axisa, -1)
    b = moveaxis(b, axisb, -1)
    if a.shape[-1] not in (2, 3) or b.shape[-1] not in (2, 3):
        raise ValueError("incompatible dimensions for cross product\n"
                         "(dimension must be 2 or 3)")
    if a.shape[-1] == 2 or b.shape[-1] == 2:
        warnings.warn("Arrays of 2-dimensional vectors are deprecated. Use arrays of "
                      "3-dimensional vectors instead. (deprecated in NumPy 2.0)",
                      DeprecationWarning, stacklevel=2)
    shape = np.broadcast_shapes(a.shape[:-1], b.shape[:-1])
    dtype = np.promote_types(a.dtype, b.dtype)
    a, b = cast_to(a, dtype), cast_to(b, dtype)
    a0, a1, b0, b1 = a[..., 0], a[..., 1], b[..., 0], b[..., 1]

    def mul(x, y):
        return cast_to(dispatch(np.multiply, (x, y), {}), dtype)

    def sub(x, y):
        return cast_to(dispatch(np.subtract, (x, y), {}), dtype)

    def neg(x):
        return cast_to(dispatch(np.negative, (x,), {}), dtype)

    z = sub(mul(a0, b1), mul(a1, b0))
    if a.shape[-1] == 2 and b.shape[-1] == 2:
        return broadcast_to_shape(z, shape)
    if a.shape[-1] == 2:
        b2 = b[..., 2]
        cp = [mul(a1, b2), neg(mul(a0, b2)), z]
    elif b.shape[-1] == 2:
        a2 = a[..., 2]
        cp = [neg(mul(a2, b1)), mul(a2, b0), z]
    else:
        a2, b2 = a[..., 2], b[..., 2]
        cp = [sub(mul(a1, b2), mul(a2, b1)), sub(mul(a2, b0), mul(a0, b2)), z]
    axisc = normalize_axis_index(static(axisc, "axisc"), len(shape) + 1, msg_prefix="axisc")
    stacked = dispatch(np.stack, ([broadcast_to_shape(c, shape) for c in cp],),
                       {"axis": -1})
    return moveaxis(stacked, -1, axisc) if axisc != len(shape) else stacked


__all__ = ["einsum", "tensordot", "kron", "cross"]
