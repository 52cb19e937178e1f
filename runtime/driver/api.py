"""`jit`: one JittedFunction per function and options, shared by every `jit(f)` call."""
from __future__ import annotations

import functools
import types

from npxla.runtime.driver.jitted import JittedFunction
from npxla.runtime.driver.sharded import ShardedFunction
from npxla.runtime.driver.shardspec import freeze


_JITTED: dict = {}
_MAX_JITTED = 4096


def _identity_key(fn, options):
    """Functions that would behave the same share one jitted object (and its cache),
    so `jit(f)` applied again, even inside a loop, never recompiles."""
    if isinstance(fn, types.MethodType):        # one per (function, object)
        return ("method", id(fn.__func__), id(fn.__self__), options)
    code = getattr(fn, "__code__", None)
    if code is None:
        return (id(fn), options)
    cells = []
    for cell in fn.__closure__ or ():
        try:
            value = cell.cell_contents
        except ValueError:
            value = None
        try:
            hash(value)
            cells.append((type(value), value) if isinstance(
                value, (int, float, str, bool, complex, type(None))) else id(value))
        except TypeError:
            cells.append(id(value))
    return (code, id(fn.__globals__), tuple(cells), _defaults_key(fn.__defaults__),
            _defaults_key(tuple((fn.__kwdefaults__ or {}).items())), options)


def _defaults_key(values):
    """Default values by value when they are plain, else by identity (checked again by
    `_same_callable`: an id may be reused once its function is gone)."""
    if all(isinstance(d, (int, float, str, bool, type(None))) or (
            type(d) is tuple and len(d) == 2 and type(d[0]) is str and
            isinstance(d[1], (int, float, str, bool, type(None)))) for d in values or ()):
        return values
    return tuple(id(d[1]) if type(d) is tuple else id(d) for d in values)


def jit(fun=None, *, static_argnums=(), static_argnames=(), device=None, output="numpy",
        shard=None, mesh=None, fast_math=False):
    """Compile a NumPy function with XLA; same calling conventions as `jax.jit`.

    `@jit`, `@jit(static_argnums=...)`, `jit(f, static_argnums=0)` all work. Results are
    NumPy arrays (or device arrays with `output="device"`). `device`: 'cpu', 'gpu',
    'cuda:1', a JAX device, or None (the NPXLA_DEVICE environment variable, else the
    best platform). `shard={"x": 0}` splits axis 0 of argument x over every device of
    that platform and lets XLA partition the program; `mesh={"data": 4, ...}` names the
    device axes that `shard={"x": ("data", None)}` refers to (see docs/devices.md).
    `fast_math=True` lets XLA fuse a float product into the sum that uses it (one
    rounding instead of NumPy's two): faster on some kernels, no longer NumPy's bits.
    """
    if fun is None:
        return functools.partial(jit, static_argnums=static_argnums,
                                 static_argnames=static_argnames, device=device,
                                 output=output, shard=shard, mesh=mesh,
                                 fast_math=fast_math)
    if isinstance(fun, JittedFunction):
        fun = fun.__wrapped__
    if shard is None and mesh is not None:
        raise ValueError("mesh= names device axes for shard=, which is not given\n"
                         "hint: add shard={'x': ('AXIS', None)} for the arrays to split")
    options = (_freeze(static_argnums), _freeze(static_argnames), str(device), output,
               freeze(shard), freeze(mesh), bool(fast_math))
    key = _identity_key(fun, options)
    hit = _JITTED.get(key)
    if hit is not None and _same_callable(hit.__wrapped__, fun):
        return hit
    common = dict(static_argnums=static_argnums, static_argnames=static_argnames,
                  device=device, output=output, fast_math=fast_math)
    jitted = JittedFunction(fun, **common) if shard is None else \
        ShardedFunction(fun, shard=shard, mesh=mesh, **common)
    if len(_JITTED) >= _MAX_JITTED:
        _JITTED.clear()
    _JITTED[key] = jitted
    return jitted


def _same_callable(old, new):
    """Whether a cached jitted object wraps `new` (ids in the key may have been reused)."""
    if isinstance(new, types.MethodType):
        return isinstance(old, types.MethodType) and old.__func__ is new.__func__ and \
            old.__self__ is new.__self__
    code = getattr(new, "__code__", None)
    if code is None:
        return old is new
    return getattr(old, "__code__", None) is code and _bound(old) == _bound(new)


def _bound(fn):
    """What a function holds besides its code, by identity: defaults, keyword-only
    defaults and closure cells (two lambdas of one loop share their code)."""
    cells = []
    for cell in fn.__closure__ or ():
        try:
            cells.append(id(cell.cell_contents))
        except ValueError:
            cells.append(None)
    return (tuple(map(id, fn.__defaults__ or ())),
            tuple((k, id(v)) for k, v in (fn.__kwdefaults__ or {}).items()), tuple(cells))


def _freeze(x):
    return tuple(x) if isinstance(x, (list, tuple)) else x
