"""`scipy.signal.lfilter`, `convolve` and `fftconvolve` on traced arrays, with SciPy's
values, dtypes and errors.

SciPy is optional: the functions are registered by name (`registry.implements_lazy`)
and found once the user's code imports `scipy.signal`; nothing here imports SciPy.

- `lfilter` with a denominator of length one is SciPy's FIR path: `b / a[0]` convolved
  with each line (one `stablehlo.convolution`), `zi` added to the first outputs. Longer
  denominators run SciPy's direct form II transposed recurrence as one `while` over the
  filtered axis (the other axes are the lanes of each step), `UNROLL` samples per
  iteration, with SciPy's operation order and no fused multiply-adds, so float64
  results are SciPy's to the last bit or nearly. A zero `a[0]` raises SciPy's
  ValueError (after the call when `a` is traced).
- `convolve(method='direct')` is one N-d `stablehlo.convolution` (1-d inputs go through
  `np.convolve`, as SciPy does); integers accumulate in 64 bits and wrap. 'fft' and
  'auto' follow SciPy: `auto` makes SciPy's choice from the (static) shapes, integer
  and bool inputs are always computed directly (exact, where SciPy's FFT result is
  rounded back to integers).
- `fftconvolve` is `np.fft.rfftn`/`fftn` of both inputs padded to SciPy's fast lengths,
  their product and the inverse transform: values agree with SciPy's to FFT rounding.
"""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo
from numpy.lib.array_utils import normalize_axis_index

from npxla.runtime.staging.abstract import AbstractArray, as_abstract
from npxla.runtime.staging.regions import trace_body
from npxla.runtime.staging.types import tensor_type
from npxla.runtime.lowering import elementwise as E
from npxla.runtime.lowering import structural as S
from npxla.runtime.lowering.core import Primitive
from npxla.runtime.numpy.core import errorflags
from npxla.runtime.numpy.core.coercion import as_array
from npxla.runtime.numpy.core.convert import broadcast_to_shape, cast_to
from npxla.runtime.numpy.reductions.reductions import static
from npxla.runtime.numpy.core.registry import dispatch, implements_lazy

UNROLL = 32                # lfilter samples per `while` iteration (at most)
_I64 = np.dtype(np.int64)
_MODES = ("full", "same", "valid")


def d(fn, *args, **kwargs):
    return dispatch(fn, args, kwargs)


def const(value, dtype=None):
    return as_abstract(np.asarray(value, dtype))


def zeros(shape, dtype):
    return broadcast_to_shape(const(0, dtype), tuple(shape))


def take_slice(x, axis, start, stop):
    """x[..., start:stop, ...] along `axis` (static bounds)."""
    lo = [0] * x.ndim
    hi = list(x.shape)
    lo[axis], hi[axis] = start, stop
    return S.static_slice(x, start=tuple(lo), limit=tuple(hi), strides=(1,) * x.ndim)


def move_axis(x, src, dst):
    if src == dst:
        return x
    perm = [i for i in range(x.ndim) if i != src]
    perm.insert(dst, src)
    return S.transpose(x, perm=tuple(perm))


# --- N-d correlation: one stablehlo.convolution -------------------------------------------

def _corr_typing(x, w, *, padding, highest):
    if x[1] != w[1]:
        raise ValueError(f"correlate_nd: operand dtypes differ ({x[1]}, {w[1]})")
    return (tuple(n + lo + hi - k + 1 for n, k, (lo, hi) in zip(x[0], w[0], padding)), x[1])


def _corr_lowering(t, x, w, *, padding, highest):
    xs = ir.RankedTensorType(x.type)
    ws = ir.RankedTensorType(w.type)
    out = ir.RankedTensorType(t)
    nd = len(xs.shape)
    as_nd = [ir.RankedTensorType.get([1, 1] + list(v.shape), v.element_type)
             for v in (xs, ws, out)]
    spatial = list(range(2, nd + 2))
    dims = hlo.ConvDimensionNumbers.get(
        input_batch_dimension=0, input_feature_dimension=1, input_spatial_dimensions=spatial,
        kernel_input_feature_dimension=1, kernel_output_feature_dimension=0,
        kernel_spatial_dimensions=spatial, output_batch_dimension=0,
        output_feature_dimension=1, output_spatial_dimensions=spatial)
    precision = None
    if highest:
        highest = hlo.PrecisionAttr.get("HIGHEST")
        precision = ir.ArrayAttr.get([highest, highest])
    pad = ir.DenseIntElementsAttr.get(np.asarray(padding, np.int64).reshape(nd, 2),
                                      type=ir.IntegerType.get_signless(64))
    lhs = hlo.ReshapeOp(as_nd[0], x).result
    rhs = hlo.ReshapeOp(as_nd[1], w).result
    res = hlo.ConvolutionOp(as_nd[2], lhs, rhs, dims, 1, 1, padding=pad,
                            precision_config=precision).result
    return hlo.ReshapeOp(out, res).result


_correlate_nd = Primitive("correlate_nd", typing=_corr_typing, lowering=_corr_lowering)


def correlate_nd(x, w, padding):
    """`out[k] = sum_m xpad[k + m] * w[m]` over every axis, `xpad` being `x` with
    `padding[i] = (lo, hi)` zeros around axis i. No flip, no conjugation."""
    return _correlate_nd(x, w, padding=tuple((int(lo), int(hi)) for lo, hi in padding),
                         highest=x.dtype.kind in "fc")


# --- convolve -----------------------------------------------------------------------------

def _wide(dtype):
    """Integer convolutions accumulate in 64 bits (wrapping as SciPy's loops do)."""
    if dtype.kind in "bi":
        return _I64
    return np.dtype(np.uint64) if dtype.kind == "u" else dtype


def _swap_needed(mode, s1, s2, axes=None):
    """SciPy's `_inputs_swap_needed`: 'valid' needs one input at least as large as the
    other along every (convolved) axis."""
    if mode != "valid" or not s1:
        return False
    axes = range(len(s1)) if axes is None else axes
    ok1 = all(s1[i] >= s2[i] for i in axes)
    ok2 = all(s2[i] >= s1[i] for i in axes)
    if not (ok1 or ok2):
        raise ValueError("For 'valid' mode, one must be at least as large as the other in "
                         "every dimension")
    return not ok1


def _direct(volume, kernel, mode):
    """SciPy's method='direct' (after its 'valid' swap)."""
    dtype = np.result_type(volume.dtype, kernel.dtype)
    if mode not in _MODES:
        raise ValueError("Acceptable mode flags are 'valid', 'same', or 'full'.")
    if volume.ndim == 1 and (mode != "same" or volume.shape[0] >= kernel.shape[0]):
        return d(np.convolve, volume, kernel, mode=mode)        # SciPy's fast path
    if dtype == np.bool_ or dtype == np.float16:
        raise ValueError("Unsupported type")
    if volume.size == 0 or kernel.size == 0:
        raise ValueError("could not broadcast input array from shape "
                         f"{tuple(kernel.shape)} into shape {tuple(volume.shape)}")
    work = _wide(dtype)
    v = cast_to(volume, work)
    k = S.reverse(cast_to(kernel, work), axes=tuple(range(kernel.ndim)))
    pads = []
    for n, m in zip(volume.shape, kernel.shape):
        if mode == "full":
            pads.append((m - 1, m - 1))
        elif mode == "valid":
            pads.append((0, 0))
        else:                                   # SciPy's centring of the full result
            lo = m - 1 - (m - 1) // 2
            pads.append((lo, m - 1 - lo))
    return cast_to(correlate_nd(v, k, pads), dtype)


def _prod(shape):
    return int(np.prod(shape, dtype=np.int64))


def _conv_ops(s1, s2, mode):
    """SciPy's `_conv_ops` operation counts (for method='auto')."""
    full = [n + k - 1 for n, k in zip(s1, s2)]
    out = {"full": full, "valid": [abs(n - k) + 1 for n, k in zip(s1, s2)], "same": s1}[mode]
    if len(s1) == 1:
        a, b = s1[0], s2[0]
        direct = {"full": a * b,
                  "valid": (b - a + 1) * a if b >= a else (a - b + 1) * b,
                  "same": a * b if a < b else a * b - (b // 2) * ((b + 1) // 2)}[mode]
    else:
        direct = min(_prod(s1), _prod(s2)) * _prod(out) if mode != "same" else \
            _prod(s1) * _prod(s2)
    n = _prod(full)
    return 3 * n * np.log(n), direct


def _fft_faster(s1, s2, mode):
    """SciPy's `_fftconv_faster`: its fitted cost model, on static shapes."""
    fft_ops, direct_ops = _conv_ops(s1, s2, mode)
    one = len(s1) == 1
    offset = -1e-3 if one else -1e-4
    if one:
        small = int(np.prod(s2)) <= int(np.prod(s1))
        table = {"valid": (1.89095737e-9, 2.1364985e-10, offset),
                 "full": (1.7649070e-9, 2.1414831e-10, offset),
                 "same": (3.2646654e-9, 2.8478277e-10, offset) if small
                 else (3.21635404e-9, 1.1773253e-8, -1e-5)}
    else:
        table = {"valid": (1.85927e-9, 2.11242e-8, offset),
                 "full": (1.99817e-9, 1.66174e-8, offset),
                 "same": (2.04735e-9, 1.55367e-8, offset)}
    o_fft, o_direct, o_offset = table[mode]
    return o_fft * fft_ops < o_direct * direct_ops + o_offset


@implements_lazy("scipy.signal.convolve", notes="mode= and method= must be static; integer "
                 "inputs are convolved exactly whatever the method")
def convolve(in1, in2, mode="full", method="auto"):
    volume, kernel = as_array(in1), as_array(in2)
    mode, method = static(mode, "mode"), static(method, "method")
    if volume.ndim == kernel.ndim == 0:
        return d(np.multiply, volume, kernel)
    if volume.ndim != kernel.ndim:
        raise ValueError("volume and kernel should have the same dimensionality")
    if _swap_needed(mode, volume.shape, kernel.shape):
        volume, kernel = kernel, volume
    if method == "auto":                # SciPy's choice: only two bools go direct
        bools = volume.dtype.kind == kernel.dtype.kind == "b"
        if mode not in _MODES and not bools:
            raise ValueError("Acceptable mode flags are 'valid', 'same', or 'full', not "
                             f"mode={mode}")
        method = "fft" if not bools and volume.size and kernel.size and _fft_faster(
            volume.shape, kernel.shape, mode) else "direct"
    if method == "fft":
        dtype = np.result_type(volume.dtype, kernel.dtype)
        if dtype.kind in "biu":             # exact: SciPy rounds its FFT result to these
            if mode not in _MODES:
                raise ValueError("acceptable mode flags are 'valid', 'same', or 'full'")
            return _direct_any(volume, kernel, mode)
        return cast_to(fftconvolve(volume, kernel, mode), dtype)
    if method == "direct":
        return _direct(volume, kernel, mode)
    raise ValueError("Acceptable method flags are 'auto', 'direct', or 'fft'.")


def _direct_any(volume, kernel, mode):
    """Exact integer/bool convolution for method='fft' (no 'Unsupported type' refusal)."""
    dtype = np.result_type(volume.dtype, kernel.dtype)
    if volume.ndim == 1 and (mode != "same" or volume.shape[0] >= kernel.shape[0]):
        return d(np.convolve, volume, kernel, mode=mode)
    out = _direct(cast_to(volume, _wide(dtype)), cast_to(kernel, _wide(dtype)), mode)
    return cast_to(out, dtype)


# --- fftconvolve --------------------------------------------------------------------------

def next_fast_len(n, real):
    """SciPy's `next_fast_len`: the least 5-smooth (real) or 11-smooth (complex) number
    >= n."""
    primes = (2, 3, 5) if real else (2, 3, 5, 7, 11)
    m = max(int(n), 1)
    while True:
        k = m
        for p in primes:
            while k % p == 0:
                k //= p
        if k == 1:
            return m
        m += 1


def _fft_axes(in1, in2, mode, axes):
    """SciPy's `_init_freq_conv_axes`: the transformed axes and the 'valid' swap."""
    s1, s2 = in1.shape, in2.shape
    if axes is None:
        axes = list(range(in1.ndim))
    else:
        axes = [axes] if np.ndim(axes) == 0 else list(axes)
        if not axes:
            raise ValueError("when provided, axes cannot be empty")
        if any(a < -in1.ndim or a >= in1.ndim for a in axes):
            raise ValueError("axes exceeds dimensionality of input")
        axes = [a % in1.ndim for a in axes]
        if len(set(axes)) != len(axes):
            raise ValueError("all axes must be unique")
    axes = [a for a in axes if s1[a] != 1 and s2[a] != 1]
    if not all(s1[a] == s2[a] or s1[a] == 1 or s2[a] == 1
               for a in range(in1.ndim) if a not in axes):
        raise ValueError(f"incompatible shapes for in1 and in2: {s1} and {s2}")
    if _swap_needed(mode, s1, s2, axes):
        in1, in2 = in2, in1
    return in1, in2, axes


def _centered(x, shape):
    start = [(n - m) // 2 for n, m in zip(x.shape, shape)]
    return S.static_slice(x, start=tuple(start), limit=tuple(s + m for s, m in zip(start, shape)),
                          strides=(1,) * x.ndim)


@implements_lazy("scipy.signal.fftconvolve", notes="mode= and axes= must be static")
def fftconvolve(in1, in2, mode="full", axes=None):
    in1, in2 = as_array(in1), as_array(in2)
    mode, axes = static(mode, "mode"), static(axes, "axes")
    if in1.ndim == in2.ndim == 0:
        return d(np.multiply, in1, in2)
    if in1.ndim != in2.ndim:
        raise ValueError("in1 and in2 should have the same dimensionality")
    if in1.size == 0 or in2.size == 0:
        return zeros((0,), np.float64)
    in1, in2, axes = _fft_axes(in1, in2, mode, axes)
    s1, s2 = in1.shape, in2.shape
    shape = [max(s1[i], s2[i]) if i not in axes else s1[i] + s2[i] - 1
             for i in range(in1.ndim)]
    if not axes:
        ret = d(np.multiply, in1, in2)
    else:
        complex_result = in1.dtype.kind == "c" or in2.dtype.kind == "c"
        fshape = [next_fast_len(shape[a], not complex_result) for a in axes]
        fwd, inv = (np.fft.fftn, np.fft.ifftn) if complex_result else \
            (np.fft.rfftn, np.fft.irfftn)
        if in1.dtype.kind in "iu":
            in1 = cast_to(in1, np.float64)
        if in2.dtype.kind in "iu":
            in2 = cast_to(in2, np.float64)
        sp1 = d(fwd, in1, s=fshape, axes=axes)
        sp2 = d(fwd, in2, s=fshape, axes=axes)
        ret = d(inv, d(np.multiply, sp1, sp2), s=fshape, axes=axes)
        ret = S.static_slice(ret, start=(0,) * ret.ndim, limit=tuple(shape),
                             strides=(1,) * ret.ndim)
    if mode == "full":
        return ret
    if mode == "same":
        return _centered(ret, s1)
    if mode == "valid":
        return _centered(ret, [ret.shape[a] if a not in axes else s1[a] - s2[a] + 1
                               for a in range(ret.ndim)])
    raise ValueError("acceptable mode flags are 'valid', 'same', or 'full'")


# --- lfilter ------------------------------------------------------------------------------

def _coefficients(b, a):
    b, a = as_array(b), as_array(a)
    b = S.reshape(b, shape=(1,)) if b.ndim == 0 else b
    a = S.reshape(a, shape=(1,)) if a.ndim == 0 else a
    for name, v in (("b", b), ("a", a)):
        if not (v.ndim == 1 and v.size > 0):
            raise ValueError(f"Parameter {name} is not a non-empty 1d array, since "
                             f"{name}.shape={v.shape}!")
    return b, a


def _fir_zi(zi, x, axis, k):
    """SciPy's FIR-path checks of zi: its shape, or a broadcast along the other axes."""
    if zi.ndim != x.ndim:
        raise ValueError("Dimensions of parameters x and zi must match, but "
                         f"x.ndim={x.ndim}, zi.ndim={zi.ndim}!")
    expected = list(x.shape)
    if not -x.ndim <= axis < x.ndim:
        raise IndexError("list assignment index out of range")
    axis %= x.ndim
    expected[axis] = k - 1
    for i, (got, want) in enumerate(zip(zi.shape, expected)):
        if got != want and (i == axis or got != 1):
            raise ValueError("Unexpected shape for parameter zi: expected "
                             f"{tuple(expected)}, found {zi.shape}.")
    return broadcast_to_shape(zi, tuple(expected))


def _iir_zi(zi, x, axis, k):
    """The IIR path's (C) checks of zi, with its messages."""
    if zi.ndim != x.ndim:
        raise ValueError("object too deep for desired array" if zi.ndim > x.ndim
                         else "object of too small depth for desired array")
    expected = list(x.shape)
    expected[axis] = k - 1
    for i, (got, want) in enumerate(zip(zi.shape, expected)):
        if got != want and (i == axis or got != 1):
            if x.ndim == 1:
                raise ValueError(f"Unexpected shape for zi: expected ({want},), "
                                 f"found ({got},).")
            raise ValueError("Unexpected shape for zi:  expected (" +
                             ",".join(map(str, expected)) + "), found (" +
                             ",".join(map(str, zi.shape)) + ").")
    return broadcast_to_shape(zi, tuple(expected))


def _fir(b, a, x, axis, zi):
    dt = x.dtype
    k = b.shape[0]
    b = d(np.true_divide, cast_to(b, dt), S.reshape(take_slice(cast_to(a, dt), 0, 0, 1),
                                                    shape=()))
    n = x.shape[axis]
    if n == 0:
        raise ValueError("v cannot be empty")
    if x.size == 0:
        raise ValueError("Cannot apply_along_axis when any iteration dimensions are 0")
    shape = [1] * x.ndim
    shape[axis] = k
    kernel = S.reshape(S.reverse(b, axes=(0,)), shape=tuple(shape))
    pads = [(k - 1, k - 1) if i == axis else (0, 0) for i in range(x.ndim)]
    full = correlate_nd(x, kernel, pads)
    if zi is not None and k > 1:
        head = d(np.add, take_slice(full, axis, 0, k - 1), cast_to(zi, dt))
        full = S.concatenate(head, take_slice(full, axis, k - 1, n + k - 1), axis=axis)
    y = take_slice(full, axis, 0, n)
    return y if zi is None else (y, take_slice(full, axis, n, n + k - 1))


def _iir_step(xi, z, bs, as_):
    """One sample of SciPy's direct form II transposed (z: the k - 1 state rows, each
    (1, lanes)): y = z[0] + b[0] x;  z[j] = (z[j + 1] + x b[j + 1]) - y a[j + 1]."""
    y = E.add(z[0], E.multiply(bs[0], xi))
    last = len(z) - 1
    z = [E.subtract(E.add(z[j + 1], E.multiply(xi, bs[j + 1])), E.multiply(y, as_[j + 1]))
         for j in range(last)] + \
        [E.subtract(E.multiply(xi, bs[last + 1]), E.multiply(y, as_[last + 1]))]
    return y, z


def fori_loop(count, body, init, deps=frozenset()):
    """`for i in range(count): vals = body(i, *vals)` as one `stablehlo.while`; `init`
    and the results are AbstractArrays (the body may read values from outside)."""
    avals = [((), _I64)] + [(v.shape, v.dtype) for v in init]

    def step(i, *vals):
        return (E.add(i, const(1, _I64)),) + tuple(body(i, *vals))

    traced = trace_body(step, [(s, t, False, frozenset()) for s, t in avals])
    types = [tensor_type(s, t) for s, t in avals]
    op = hlo.WhileOp(types, [const(0, _I64).ir] + [v.ir for v in init])
    cond = op.cond.blocks.append(*types)
    with ir.InsertionPoint(cond):
        more = E.compare(AbstractArray((), _I64, ir=cond.arguments[0]),
                         const(count, _I64), "LT")
        hlo.ReturnOp([more.ir])
    traced.emit(lambda: traced.finish(traced.leaves))
    traced.move_to(op.body)
    deps = deps.union(*[v.deps for v in init])
    return [AbstractArray(s, t, ir=r, deps=deps) for (s, t), r in zip(avals[1:],
                                                                      op.results[1:])]


def _iir_loop(x, b, a, z):
    """y, zf of the recurrence over axis 0 of x (n, lanes); z (k - 1, lanes)."""
    n, lanes = x.shape
    k1 = z.shape[0]
    coef = [[broadcast_to_shape(S.reshape(take_slice(v, 0, j, j + 1), shape=()), (1, lanes))
             for j in range(k1 + 1)] for v in (b, a)]
    z = [take_slice(z, 0, j, j + 1) for j in range(k1)]
    unroll = min(UNROLL, max(1, n // 64))
    steps = n // unroll
    y = zeros((n, lanes), x.dtype)
    zero = const(0, _I64)
    if steps > 1:
        def body(i, y, *z):
            start = E.multiply(i, const(unroll, _I64))
            xs = S.dynamic_slice(x, start, zero, sizes=(unroll, lanes))
            rows = []
            for u in range(unroll):
                yi, z = _iir_step(take_slice(xs, 0, u, u + 1), z, *coef)
                rows.append(yi)
            block = rows[0] if unroll == 1 else S.concatenate(*rows, axis=0)
            return [S.dynamic_update_slice(y, block, start, zero)] + z

        y, *z = fori_loop(steps, body, [y] + z, x.deps | b.deps | a.deps)
    else:
        steps = 0
    rows = []
    for i in range(steps * unroll, n):
        yi, z = _iir_step(take_slice(x, 0, i, i + 1), z, *coef)
        rows.append(yi)
    if rows:
        tail = rows[0] if len(rows) == 1 else S.concatenate(*rows, axis=0)
        y = S.dynamic_update_slice(y, tail, const(steps * unroll, _I64), zero)
    return y, S.concatenate(*z, axis=0) if k1 > 1 else z[0]


def _a0_is_zero(a0):
    """SciPy compares a[0]'s bytes with zero's: -0.0 passes (and divides by it)."""
    parts = [a0] if a0.dtype.kind != "c" else [d(np.real, a0), d(np.imag, a0)]
    flag = None
    for p in parts:
        zero = d(np.logical_and, d(np.equal, p, 0), d(np.logical_not, d(np.signbit, p)))
        flag = zero if flag is None else d(np.logical_and, flag, zero)
    return flag


def _iir(b, a, x, axis, zi):
    dt = x.dtype
    k = max(a.shape[0], b.shape[0])
    b = cast_to(b, dt)
    a = cast_to(a, dt)
    if b.shape[0] < k:
        b = S.concatenate(b, zeros((k - b.shape[0],), dt), axis=0)
    if a.shape[0] < k:
        a = S.concatenate(a, zeros((k - a.shape[0],), dt), axis=0)
    a0 = S.reshape(take_slice(a, 0, 0, 1), shape=())
    errorflags.check(_a0_is_zero(a0), "BUG: filter coefficient a[0] == 0 not supported yet",
                     error=ValueError)
    b, a = d(np.true_divide, b, a0), d(np.true_divide, a, a0)
    z = zeros(tuple(k - 1 if i == axis else n for i, n in enumerate(x.shape)), dt) \
        if zi is None else cast_to(zi, dt)
    if x.size == 0:
        return x if zi is None else (x, z)
    moved = move_axis(x, axis, 0)
    rest = moved.shape[1:]
    lanes = int(np.prod(rest, dtype=np.int64))
    zm = move_axis(z, axis, 0)
    y, zf = _iir_loop(S.reshape(moved, shape=(x.shape[axis], lanes)), b, a,
                      S.reshape(zm, shape=(k - 1, lanes)))
    y = move_axis(S.reshape(y, shape=moved.shape), 0, axis)
    if zi is None:
        return y
    return y, move_axis(S.reshape(zf, shape=zm.shape), 0, axis)


@implements_lazy("scipy.signal.lfilter", notes="IIR filters run as a sequential loop in SciPy's "
                 "operation order; axis= must be static")
def lfilter(b, a, x, axis=-1, zi=None):
    b, a = _coefficients(b, a)
    x = as_array(x)
    axis = static(axis, "axis")
    zi = None if zi is None else as_array(zi)
    dt = np.result_type(*[v.dtype for v in (b, a, x, zi) if v is not None])
    if a.shape[0] == 1:
        if x.ndim == 0:
            raise ValueError("x must be at least 1-D")
        if zi is not None:
            zi = _fir_zi(zi, x, axis, b.shape[0])
        if dt.char not in "fdgFDG":
            raise NotImplementedError(f"Parameter's dtypes produced result type '{dt}', "
                                      "which is not supported!")
        axis = normalize_axis_index(axis, x.ndim)
        return _fir(b, a, cast_to(x, dt), axis, zi)
    if not -x.ndim <= axis < max(x.ndim, 1) or x.ndim == 0:
        raise ValueError("selected axis is out of range")
    axis %= x.ndim
    if dt.char not in "fdgFDG" or dt.char == "g":
        raise NotImplementedError(f"input type '{dt}' not supported\n")
    if zi is not None:
        zi = _iir_zi(zi, x, axis, max(a.shape[0], b.shape[0]))
    return _iir(b, a, cast_to(x, dt), axis, zi)
