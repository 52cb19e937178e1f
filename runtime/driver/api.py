"""`jit`: one JittedFunction per function and options, shared by every `jit(f)` call.

Importing it also lets `DeviceArray` operators (`a + 1`, `np.sin(a)`) run on the device:
each one is compiled once per signature by `jit` itself, so results are NumPy's.
"""
from __future__ import annotations

import functools
import types
from typing import Any, Callable, Iterable, Literal, Mapping, Optional, Sequence, Union, \
    overload

from npxla.runtime.driver.jitted import JittedFunction
from npxla.runtime.driver.sharded import ShardedFunction
from npxla.runtime.driver.shardspec import freeze
from npxla.runtime.operators.provenance import compiled_original
from npxla.runtime.xla import resident

# the types of `jit`'s options
StaticArgnums = Union[int, Sequence[int]]
StaticArgnames = Union[str, Iterable[str]]
DonateArgnums = Union[int, Sequence[int]]
DonateArgnames = Union[str, Iterable[str]]
Device = Any          # 'cpu', 'gpu', 'cuda:1', 'tpu', a jax Device, or None
Output = Literal["numpy", "device"]


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


@overload
def jit(fun: Callable[..., Any], *, static_argnums: StaticArgnums = (),
        static_argnames: StaticArgnames = (), device: Device = None,
        output: Output = "numpy", shard: Optional[Mapping[str, Any]] = None,
        mesh: Optional[Mapping[str, int]] = None,
        fast_math: bool = False, donate_argnums: DonateArgnums = (),
        donate_argnames: DonateArgnames = (),
        cache: Optional[bool] = None) -> JittedFunction: ...


@overload
def jit(fun: None = None, *, static_argnums: StaticArgnums = (),
        static_argnames: StaticArgnames = (), device: Device = None,
        output: Output = "numpy", shard: Optional[Mapping[str, Any]] = None,
        mesh: Optional[Mapping[str, int]] = None,
        fast_math: bool = False, donate_argnums: DonateArgnums = (),
        donate_argnames: DonateArgnames = (), cache: Optional[bool] = None
        ) -> Callable[[Callable[..., Any]], JittedFunction]: ...


def jit(fun: Optional[Callable[..., Any]] = None, *, static_argnums: StaticArgnums = (),
        static_argnames: StaticArgnames = (), device: Device = None,
        output: Output = "numpy", shard: Optional[Mapping[str, Any]] = None,
        mesh: Optional[Mapping[str, int]] = None, fast_math: bool = False,
        donate_argnums: DonateArgnums = (), donate_argnames: DonateArgnames = (),
        cache: Optional[bool] = None
        ) -> Union[JittedFunction, Callable[[Callable[..., Any]], JittedFunction]]:
    """Compile a NumPy function with XLA; same calling conventions as `jax.jit`.

    `@jit`, `@jit(static_argnums=...)`, `jit(f, static_argnums=0)` all work. Results are
    NumPy arrays (or device arrays with `output="device"`). `device`: 'cpu', 'gpu',
    'cuda:1', a JAX device, or None (the NPXLA_DEVICE environment variable, else the
    best platform). `shard={"x": 0}` splits axis 0 of argument x over every device of
    that platform and lets XLA partition the program; `mesh={"data": 4, ...}` names the
    device axes that `shard={"x": ("data", None)}` refers to (see docs/devices.md).
    `fast_math=True` lets XLA fuse a float product into the sum that uses it (one
    rounding instead of NumPy's two): faster on some kernels, no longer NumPy's bits.
    As with `jax.jit`, a `static_argnums` index or `static_argnames` name that no
    parameter has is a ValueError here (negative indices count from the end), and so
    is one of `donate_argnums`/`donate_argnames`, or a parameter both static and
    donated. Donating a parameter gives its device buffer to the call: a DeviceArray
    or jax Array passed there is deleted by the call (XLA may write a result into its
    memory; not with shard=) unless the function updates it in place or returns it; a
    NumPy array is unaffected (it is copied to the device anyway). `cache=False` keeps
    this function out of the disk cache, `cache=True` uses it even when NPXLA_CACHE_DIR
    says off (None, the default: as NPXLA_CACHE_DIR says; see docs/cache.md); sharded
    programs are never stored there, so `cache=True` with shard= is a ValueError.
    """
    if fun is None:
        return functools.partial(jit, static_argnums=static_argnums,  # type: ignore
                                 static_argnames=static_argnames, device=device,
                                 output=output, shard=shard, mesh=mesh,
                                 fast_math=fast_math, donate_argnums=donate_argnums,
                                 donate_argnames=donate_argnames, cache=cache)
    if isinstance(fun, JittedFunction):
        fun = fun.__wrapped__
    fun = compiled_original(fun) or fun     # `jit(f)` of Numba's `@njit` f: its Python
    if shard is None and mesh is not None:
        raise ValueError("mesh= names device axes for shard=, which is not given\n"
                         "hint: add shard={'x': ('AXIS', None)} for the arrays to split")
    options = (_freeze(static_argnums), _freeze(static_argnames), str(device), output,
               freeze(shard), freeze(mesh), bool(fast_math), _freeze(donate_argnums),
               _freeze(donate_argnames), cache)
    key = _identity_key(fun, options)
    hit = _JITTED.get(key)
    if hit is not None and _same_callable(hit.__wrapped__, fun):
        return hit
    common = dict(static_argnums=static_argnums, static_argnames=static_argnames,
                  device=device, output=output, fast_math=fast_math,
                  donate_argnums=donate_argnums, donate_argnames=donate_argnames,
                  cache=cache)
    if shard is None:
        jitted = JittedFunction(fun, **common)
    else:       # a sharded program is never written to the disk cache (see there)
        jitted = ShardedFunction(fun, shard=shard, mesh=mesh, **common)
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


def _device_operation(fn, owner, *args):
    """A DeviceArray operator (`resident._operate`): `fn(*args)` compiled with NumPy's
    semantics for the device `owner` lives on, its result left there."""
    return jit(fn, device=owner.device, output="device")(*args)


resident.install_operations(_device_operation)
