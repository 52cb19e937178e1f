"""Large constants written as the few operations that make them, not as their elements.

A value staging knows (`np.arange(len(x))`, `np.linspace(0, 1, n)`, `np.eye(n)` with
static arguments: NumPy computes them while staging) becomes a constant of the module.
As a dense attribute, a million float64 elements are 16 MB of module text, and the first
call spent 1-3 s printing, parsing and compiling it. Most such constants have a
structure NumPy gave them and a few ops rebuild exactly:

- *broadcast*: the same along some axes (a `meshgrid`, `np.ones((n, 1)) * row`):
  the smaller array, then `broadcast_in_dim`;
- *affine* in the flat index (`arange`, `linspace`, `arange(...).reshape`, and
  arithmetic on them that stayed affine): `v0 + i * d`, the product rounded on its own
  as NumPy's fill rounds it (no FMA: `opaque.behind_zero`), the last element
  replaced where `linspace` puts `stop` itself;
- *banded* (2-D, two values): `eye`, `tri`, `triu`/`tril` of ones: a select on
  `j - i` compared with `k`.

Each form is checked bit for bit against the value before it is used (NumPy computes
the same operations), so a constant is never changed: what does not match exactly is
written densely as before. Float forms whose values or step are subnormal are not
used, since XLA:CPU flushes subnormals to zero. The ops go in the entry function's
prelude (`opaque.in_prelude`), once per constant and program, so that a loop body reads them like a
constant instead of making them again.
"""
from __future__ import annotations

import zlib

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from npxla.runtime.staging.opaque import behind_zero, in_prelude
from npxla.runtime.staging.trace import constant, current_trace
from npxla.runtime.staging.types import tensor_type

# below this many elements a dense attribute is small and quick to compile
MIN_ELEMENTS = 4096
# the step of an affine float constant is tried as these many ulps either side of the
# estimate (a `linspace` without its endpoint has a step no element shows exactly)
_STEP_ULPS = 2


def materialise(value: np.ndarray) -> ir.Value:
    """The StableHLO value of a constant array: built from its structure when it is
    large and has one, else `trace.constant`."""
    trace = current_trace()
    if value.size < MIN_ELEMENTS or trace is None or trace.block is None or \
            value.dtype.kind not in "biuf":
        return constant(value)
    memo = trace.structured_constants
    check = zlib.crc32(np.ascontiguousarray(value).view(np.uint8))
    hit = memo.get(id(value))
    if hit is not None and hit[0] is value and hit[1] == check:
        return hit[2]
    plan = _plan(np.asarray(value))
    if plan is None:
        return constant(value)
    result = in_prelude(trace, plan)
    # the array is kept alive, so its id stays its own; the checksum notices an
    # array written in place since
    memo[id(value)] = (value, check, result)
    return result


def _plan(value):
    """A thunk emitting `value` from its structure, or None (write it densely)."""
    bits = _bits(value)
    kept = [ax for ax in range(value.ndim) if not _uniform_along(bits, ax)]
    if not kept:            # a splat: `trace.constant` writes one element already
        return None
    if len(kept) < value.ndim:
        return _broadcast_plan(value, kept)
    return (value.dtype.kind != "b" and _affine_plan(value)) or _banded_plan(value, bits)


def _bits(value):
    """The elements' bit patterns (so -0.0 and 0.0 differ and NaNs compare equal)."""
    flat = np.ascontiguousarray(value)
    return flat.view(np.dtype(f"u{value.dtype.itemsize}"))


def _uniform_along(bits, axis) -> bool:
    return bits.shape[axis] == 1 or \
        bool((bits == np.take(bits, [0], axis=axis)).all())


def _broadcast_plan(value, kept):
    small = value[tuple(slice(None) if ax in kept else 0 for ax in range(value.ndim))]
    inner = _plan(small) if small.size >= MIN_ELEMENTS else None
    ttype = tensor_type(value.shape, value.dtype)

    def emit():
        part = inner() if inner is not None else constant(small)
        return hlo.BroadcastInDimOp(ttype, part, kept).result
    return emit


def _affine_plan(value):
    flat = value.reshape(-1)
    n = flat.size
    probe = np.unique(np.linspace(0, n - 2, 9).astype(np.int64))
    for step in _affine_steps(flat):
        # a few elements first: most misses end here
        if not np.array_equal(_bits(_affine(probe, flat[0], step, value.dtype)),
                              _bits(flat[probe])):
            continue
        made = _affine(np.arange(n), flat[0], step, value.dtype)
        if np.array_equal(_bits(made[:-1]), _bits(flat[:-1])):
            fix = None if _bits(made[-1:])[0] == _bits(flat[-1:])[0] else flat[-1]
            return lambda step=step, fix=fix: _emit_affine(value, flat[0], step, fix)
    return None


def _affine(index, start, step, dtype):
    """What `_emit_affine` computes at `index`, in NumPy: `start + i * step`, each op
    rounded."""
    with np.errstate(all="ignore"):
        return index.astype(dtype) * dtype.type(step) + dtype.type(start)


def _affine_steps(flat):
    """The steps to try: the difference of the first two elements (NumPy's
    `arange` fill), and for floats the mean step and its neighbours (`linspace`)."""
    dtype = flat.dtype
    with np.errstate(all="ignore"):
        first = flat[1] - flat[0]
        if dtype.kind != "f":
            yield first
            return
        if not _normal_or_zero(flat) or not _normal_or_zero(np.array([first])):
            return
        yield first
        mean = (flat[-1] - flat[0]) / dtype.type(flat.size - 1)
        if not np.isfinite(mean) or not _normal_or_zero(np.array([mean])):
            return
        seen = {first.tobytes()}
        for k in range(-_STEP_ULPS, _STEP_ULPS + 1):
            step = _ulps_away(mean, k)
            if step.tobytes() not in seen:
                seen.add(step.tobytes())
                yield step


def _ulps_away(x, k):
    out = x
    direction = np.inf if k > 0 else -np.inf
    for _ in range(abs(k)):
        out = np.nextafter(out, x.dtype.type(direction))
    return out


def _normal_or_zero(values) -> bool:
    tiny = np.finfo(values.dtype).tiny
    a = np.abs(values)
    return bool(np.all(np.isfinite(a) & ((a == 0) | (a >= tiny))))


def _emit_affine(value, start, step, fix):
    dtype = value.dtype
    n = value.size
    flat_t = tensor_type((n,), dtype)
    out = hlo.IotaOp(tensor_type((n,), np.int64), ir.IntegerAttr.get(
        ir.IntegerType.get_signless(64), 0)).result
    out = hlo.ConvertOp(flat_t, out).result if dtype != np.int64 else out
    if step != 1:
        out = hlo.MulOp(out, _splat(step, dtype, n)).result
        if dtype.kind == "f":
            out = behind_zero(out, dtype, hlo.OrOp)
    if start != 0 or dtype.kind == "f":     # + 0.0 turns a product's -0.0 into 0.0
        out = hlo.AddOp(out, _splat(start, dtype, n)).result
    if fix is not None:
        head = hlo.SliceOp(out, [0], [n - 1], [1]).result
        last = constant(np.array([fix], dtype))
        out = hlo.ConcatenateOp([head, last], ir.IntegerAttr.get(
            ir.IntegerType.get_signless(64), 0)).result
    if value.ndim != 1:
        out = hlo.ReshapeOp(tensor_type(value.shape, dtype), out).result
    return out


def _splat(x, dtype, n):
    return hlo.BroadcastInDimOp(tensor_type((n,), dtype),
                                constant(np.array(x, dtype)), []).result


def _banded_plan(value, bits):
    """`value` (2-D) as `inside` where `j - i` compares with `k` as `direction` does,
    `outside` elsewhere (`eye`, `tri`, `triu` of ones), or None."""
    if value.ndim != 2:
        return None
    flat = bits.reshape(-1)
    first = flat[0]
    other = flat[flat != first]
    if other.size == 0 or not (flat[flat != other[0]] == first).all():
        return None
    rows, cols = value.shape
    diff = np.arange(cols)[None, :] - np.arange(rows)[:, None]
    for inside_bits in (first, other[0]):
        mask = bits == inside_bits
        i, j = np.unravel_index(int(np.argmax(mask)), mask.shape)
        for direction, k in (("EQ", j - i), ("GE", int(diff[mask].min())),
                             ("LE", int(diff[mask].max()))):
            if np.array_equal(mask, _compare(diff, k, direction)):
                inside = value.reshape(-1)[int(np.argmax(mask.reshape(-1)))]
                outside = value.reshape(-1)[int(np.argmax(~mask.reshape(-1)))]
                return lambda d=direction, k=k, a=inside, b=outside: \
                    _emit_banded(value, d, k, a, b)
    return None


def _compare(diff, k, direction):
    return {"EQ": diff == k, "GE": diff >= k, "LE": diff <= k}[direction]


def _emit_banded(value, direction, k, inside, outside):
    shape, dtype = value.shape, value.dtype
    index_t = tensor_type(shape, np.int64)
    rows = hlo.IotaOp(index_t, ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 0))
    cols = hlo.IotaOp(index_t, ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 1))
    diff = hlo.SubtractOp(cols.result, rows.result).result
    k_full = hlo.BroadcastInDimOp(index_t, constant(np.array(k, np.int64)), []).result
    mask = hlo.CompareOp(diff, k_full, hlo.ComparisonDirectionAttr.get(direction)).result
    full_t = tensor_type(shape, dtype)
    a = hlo.BroadcastInDimOp(full_t, constant(np.array(inside, dtype)), []).result
    b = hlo.BroadcastInDimOp(full_t, constant(np.array(outside, dtype)), []).result
    return hlo.SelectOp(mask, a, b).result
