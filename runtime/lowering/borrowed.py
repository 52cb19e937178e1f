"""Borrowed lowerings: the matrix factorizations StableHLO has no op for.

StableHLO has `cholesky`, `triangular_solve` and `fft`; those are emitted directly
(runtime/lowering/linalg_ops.py). It has no LU, QR, Hermitian eigensolver, SVD or
general eigensolver: XLA runs them only as platform custom calls (LAPACK `?getrf`,
`?geqrf` + `?orgqr`/`?ungqr`, `?syevd`/`?heevd`, `?gesdd`, `?geev` on CPU; cuSOLVER on
GPU) whose calling convention (operand layouts, backend config, batch attributes,
`info` handling) JAX owns and registers with the PJRT client. Rather than copy that
convention, this module -- the only one that uses `jax.lax.linalg` -- lowers ONE JAX
function per operation with `jax.jit(fn).trace(ShapeDtypeStruct...).lower(
lowering_platforms=(platform,))` under x64, and inlines the resulting StableHLO
functions (renamed with a process-unique prefix, made private, Shardy attributes
dropped) into the module being staged; staged code reaches them with `func.call`.

Borrowed operations (`borrow(name, *operands, **params)` -> list of results):
  lu     jax.lax.linalg.lu         (lu, pivots int32 0-based, permutation int32)
  geqrf  jax...linalg.geqrf        (Householder vectors below r, taus)
  qr     jax.lax.linalg.qr         (q, r); params full_matrices
  eigh   jax.lax.linalg.eigh       (vectors, values); params lower; input not symmetrized
  svd    jax.lax.linalg.svd        (u, s, vh) or (s,); params full_matrices, compute_uv
  eig    jax.lax.linalg.eig        (values, right vectors) or (values,); compute_right
On failure (LAPACK `info` != 0) JAX's lowering fills the results with NaN.

CPU only (`has_lapack`): the LAPACK/BLAS routines StableHLO does have ops for, because
XLA's own CPU lowerings of those ops are slower (measured 5-250x against SciPy at
n = 100..1000) and round differently from LAPACK (Cholesky of Hilbert(13), NaN
propagation: BLAS skips zero multipliers, so a NaN does not spread where XLA's
expansions spread it):
  trsm   jax.lax.linalg.triangular_solve (BLAS ?trsm), left side; params lower, unit,
         trans ("N", "T", "C"); same batch shape for both operands
  potrf  LAPACK ?potrf through jaxlib's handler: (factor, info int32 per matrix); params
         lower; the other triangle keeps the input; results as LAPACK leaves them,
         partial factor on failure (no NaN fill)
  gtsv   LAPACK ?gtsv: dl, d, du (..., n) (dl[0] and du[-1] unused), b (..., n, k) ->
         (dl (dl[1:]: LAPACK's DL, the second superdiagonal of U), d, du, x, info)
jaxlib initialises its LAPACK table from SciPy's `cython_lapack`, so these are SciPy's
own routines and give SciPy's bits.

The lowering is platform specific: the platform is the staging trace's `platform`
attribute when the core sets one, else the default device's. Texts are cached per
(operation, parameters, operand types, platform); each trace inlines a text once.
Executables loaded from the disk cache must go through `prepare` first.
"""
from __future__ import annotations

import itertools
import weakref
from functools import lru_cache

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import func

from npxla.transpiler.base.errors import UnsupportedFunctionError

from npxla.runtime.staging.abstract import AbstractArray
from npxla.runtime.staging.types import tensor_type
from npxla.runtime.staging.trace import current_trace


def _jax_op(name, params):
    from jax import lax
    p = dict(params)
    if name == "lu":
        return lax.linalg.lu
    if name == "geqrf":      # not re-exported by jax.lax.linalg
        from jax._src.lax.linalg import geqrf
        return geqrf
    if name == "qr":
        return lambda a: lax.linalg.qr(a, full_matrices=p["full_matrices"])
    if name == "eigh":
        return lambda a: lax.linalg.eigh(a, lower=p["lower"], symmetrize_input=False)
    if name == "svd":
        return lambda a: lax.linalg.svd(a, full_matrices=p["full_matrices"],
                                        compute_uv=p["compute_uv"])
    if name == "eig":
        return lambda a: lax.linalg.eig(a, compute_left_eigenvectors=False,
                                        compute_right_eigenvectors=p["compute_right"])
    if name == "trsm":
        return lambda a, b: lax.linalg.triangular_solve(
            a, b, left_side=True, lower=p["lower"], transpose_a=p["trans"] != "N",
            conjugate_a=p["trans"] == "C", unit_diagonal=p["unit"])
    if name == "potrf":
        return lambda a: _lapack_call("potrf", a.dtype, [a, _info(a.shape[:-2])], [a],
                                      {0: 0}, uplo=np.uint8(ord("L" if p["lower"] else "U")))
    if name == "gtsv":
        return lambda dl, d, du, b: _lapack_call(
            "gtsv", b.dtype, [dl, d, du, b, _info(b.shape[:-2])], [dl, d, du, b],
            {0: 0, 1: 1, 2: 2, 3: 3})
    raise KeyError(name)


def _info(batch):
    import jax
    return jax.ShapeDtypeStruct(batch, np.int32)


def _lapack_call(routine, dtype, outs, args, aliases, **attrs):
    """jaxlib's LAPACK FFI handler `lapack_<prefix><routine>_ffi` on `args`, matrices (the
    operands of the most axes) in column-major layout, as JAX's own lowerings call it;
    `outs`: the results' shapes, `aliases`: operand -> result buffers."""
    import jax
    from jax._src.lax.linalg import initialize_lapack
    initialize_lapack()
    prefix = {"f": "s", "d": "d", "F": "c", "D": "z"}[np.dtype(dtype).char]
    nd = max(len(a.shape) for a in args)

    def layout(x):
        r = len(x.shape)
        return tuple(range(r - 2)) + (r - 1, r - 2) if r == nd else None
    specs = [jax.ShapeDtypeStruct(o.shape, o.dtype) for o in outs]
    call = jax.ffi.ffi_call(f"lapack_{prefix}{routine}_ffi", specs,
                            input_layouts=[layout(a) for a in args],
                            output_layouts=[layout(o) for o in outs],
                            input_output_aliases=aliases)
    return call(*args, **attrs)


_PUBLIC = {"eig": "np.linalg.eig/eigvals", "eigh": "np.linalg.eigh", "svd": "np.linalg.svd",
           "lu": "the LU factorization", "qr": "np.linalg.qr", "geqrf": "np.linalg.qr",
           "trsm": "the triangular solve", "potrf": "the Cholesky factorization",
           "gtsv": "the tridiagonal solver"}
OPS = ("lu", "geqrf", "qr", "eigh", "svd", "eig", "trsm", "potrf", "gtsv")
LAPACK_OPS = ("trsm", "potrf", "gtsv")
_LAPACK_DTYPES = frozenset(np.dtype(t) for t in (np.float32, np.float64, np.complex64,
                                                 np.complex128))


def has_lapack(*dtypes) -> bool:
    """Whether the LAPACK-only operations (LAPACK_OPS) can be borrowed for these dtypes:
    the trace's platform is the CPU (jaxlib's LAPACK handlers, which call the LAPACK
    and BLAS SciPy ships) and every dtype is one LAPACK has."""
    return _platform() == "cpu" and all(np.dtype(d) in _LAPACK_DTYPES for d in dtypes)


def _platform():
    platform = current_trace().platform
    if platform == "gpu":
        from jax._src import xla_bridge
        platform = xla_bridge.canonicalize_platform("gpu")
    return platform


@lru_cache(maxsize=256)
def _lowered(name, params, avals, platform):
    """JAX's StableHLO for one operation as generic MLIR text whose functions carry a
    process-unique prefix, the entry symbol, and the result avals. Shardy attributes
    are dropped (the module is single-device; our contexts do not load that dialect)."""
    import jax
    from jax._src.interpreters import mlir as jax_mlir
    specs = [jax.ShapeDtypeStruct(s, np.dtype(d)) for s, d in avals]
    with jax.enable_x64(True):
        try:
            lowered = jax.jit(_jax_op(name, params)).trace(*specs).lower(
                lowering_platforms=(platform,))
        except Exception as e:      # no lowering of this operation for this platform
            raise UnsupportedFunctionError(
                f"{_PUBLIC.get(name, name)} has no XLA lowering on {platform}: "
                f"{str(e).splitlines()[0] if str(e) else type(e).__name__}",
                hint="compute it with NumPy outside the jitted function") from None
        text = lowered.as_text()
        outs = tuple((tuple(o.shape), np.dtype(o.dtype))
                     for o in jax.tree_util.tree_leaves(lowered.out_info))
    prefix = f"npxla_{name}_{next(_COUNTER)}_"
    with jax_mlir.make_ir_context() as ctx, ir.Location.unknown(ctx):
        module = ir.Module.parse(text)

        def strip(op):
            attrs = op.attributes
            for a in [a for a in attrs if a.startswith("sdy.")]:
                del attrs[a]
            return ir.WalkResult.ADVANCE
        module.operation.walk(strip)
        for f in module.body.operations:
            old = ir.StringAttr(f.attributes["sym_name"]).value
            ir.SymbolTable.set_symbol_name(f, prefix + old)
            ir.SymbolTable.replace_all_symbol_uses(old, prefix + old, module.operation)
            ir.SymbolTable.set_visibility(f, "private")
        text = module.operation.get_asm(print_generic_op_form=True, enable_debug_info=False)
    return text, prefix + "main", outs


_INLINED = weakref.WeakKeyDictionary()   # trace -> {key: (symbol, result avals)}
_COUNTER = itertools.count()


def _inline(trace, key):
    """Copy the lowered functions into `trace.module` (once per trace and key).

    Our trace contexts do not register the `func` dialect (its ops are built as
    unregistered operations and printed generically), so parsing JAX's generic text
    needs unregistered operations allowed."""
    done = _INLINED.setdefault(trace, {})
    if key not in done:
        text, symbol, outs = _lowered(*key)
        trace.context.allow_unregistered_dialects = True
        module = ir.Module.parse(text, trace.context)
        body = ir.InsertionPoint(trace.module.body)
        for f in list(module.body.operations):
            f.operation.detach_from_parent()
            body.insert(f)
        done[key] = (symbol, outs)
    return done[key]


def borrow(name, *operands: AbstractArray, **params):
    """Apply JAX's lowering of operation `name` to `operands`: a list of results."""
    trace = current_trace()
    avals = tuple((tuple(o.shape), np.dtype(o.dtype).str) for o in operands)
    key = (name, tuple(sorted(params.items())), avals, _platform())
    symbol, out_avals = _inline(trace, key)
    types = [tensor_type(s, d) for s, d in out_avals]
    call = func.CallOp(types, ir.FlatSymbolRefAttr.get(symbol), [o.ir for o in operands])
    deps = frozenset().union(*[o.deps for o in operands])
    return [AbstractArray(s, np.dtype(d), ir=v, deps=deps)
            for (s, d), v in zip(out_avals, call.results)]


def prepare(module_text: str, platform: str = "cpu"):
    """Make an executable that was compiled in another process (the disk cache) safe to
    run: JAX fills LAPACK's function table only when it lowers a LAPACK operation, so a
    deserialized executable whose custom calls reach LAPACK would crash the process
    without this. Cheap after the first call."""
    if platform == "cpu" and "lapack_" in module_text:
        from jax._src.lax.linalg import initialize_lapack
        initialize_lapack()
