"""Arrays that stay in device memory between calls, and that calls may update in place.

A jax Array is immutable, while NumPy code updates its arguments in place
(`u[1:-1] += ...`) and expects the caller to see it. A `DeviceArray` is the mutable
array that makes both true: it holds the current jax Array, and a jitted call that
updates it replaces that buffer with the program's output. The buffer it held is
donated to the program (XLA writes the output into it, so an update of a few elements
costs a few elements), unless something else may still read it: the user's own jax
Array it was made from, or one handed out by `.value`. Then the program gets a device
copy to consume, and the other reference keeps seeing the old, immutable value.

Nothing here moves data to the host except `to_numpy`/`__array__` (and what needs a
Python value: `bool(a)`, `float(a)`, `repr(a)`), which count how often they did
(`host_reads`), so a test can assert that a loop of calls never did.

NumPy's operators and ufuncs on a DeviceArray (`a + 1`, `a < b`, `-a`, `np.sin(a)`) give
a new DeviceArray on the same device with NumPy's result (dtype, promotion, values):
the driver installs the function that compiles each of them once per signature
(`install_operations`); before that they are computed by NumPy on a host copy and put
back on the device.
"""
from __future__ import annotations

import operator
from typing import Any, Callable

import numpy as np

from npxla.runtime.staging.pytree import is_traceable
from npxla.runtime.xla import devices

_host_reads = 0


def host_reads() -> int:
    """How many times a DeviceArray's data was copied to host memory in this process."""
    return _host_reads


def _count_read():
    global _host_reads
    _host_reads += 1


# (NumPy ufunc or operator, DeviceArray, *operands) -> jax Array on that array's device:
# installed by the driver (it compiles the operation with `jit`)
_OPERATE: Callable | None = None


def install_operations(operate: Callable) -> None:
    """Let DeviceArray operators run on the device: `operate(fn, device_array, *args)`
    returns the jax Array of `fn(*args)` computed with NumPy's semantics."""
    global _OPERATE
    _OPERATE = operate


# operands an operator accepts besides DeviceArrays: anything else is NotImplemented
_OPERANDS = (int, float, bool, complex, np.ndarray, np.generic)


def _operate(fn, owner, *args):
    """`fn(*args)` for operands among which `owner` is a DeviceArray: a DeviceArray."""
    for a in args:
        if type(a) is not DeviceArray and not isinstance(a, _OPERANDS) and \
                not is_jax_array(a):
            return NotImplemented
    if _OPERATE is not None:
        return DeviceArray(_OPERATE(fn, owner, *args), owned=True)
    host = fn(*[to_numpy(a) if type(a) is DeviceArray else a for a in args])
    return asarray(host, owner.device)


def _binary(fn, reflected=False):
    if reflected:
        def method(self, other):
            return _operate(fn, self, other, self)
    else:
        def method(self, other):
            return _operate(fn, self, self, other)
    return method


def _inplace(fn):
    """`a += b`: the array's buffer is replaced by the result (aliases see it, as with
    NumPy); a result of another dtype or shape follows NumPy's casting and broadcasting
    rules on a host copy (which raise where NumPy raises)."""
    def method(self, other):
        result = _operate(fn, self, self, other)
        if result is NotImplemented:
            return result
        if result.dtype == self.dtype and result.shape == self.shape:
            self._replace(result._value)
            return self
        host = self.to_numpy()
        fn(host, to_numpy(other) if type(other) is DeviceArray else other, out=host)
        self._replace(asarray(host, self.device)._value)
        return self
    return method


def _unary(fn):
    def method(self):
        return _operate(fn, self, self)
    return method


class _Donated:
    """What a DeviceArray holds once a call it was donated to (`donate_argnums`) took
    its buffer: reading anything of it raises, saying so (as jax's deleted arrays do),
    instead of failing later as a wrong value or an XLA error."""
    __slots__ = ("message",)

    def __init__(self, message):
        self.message = message

    def __getattr__(self, name):
        raise RuntimeError(self.message)


class DeviceArray:
    """A mutable array in device memory: `npxla.asarray(x)`.

    Pass it to jitted functions like a NumPy array: it goes in without a copy, and a
    function that updates it in place replaces its buffer with the result (never via
    the host). `np.asarray(a)` and `a.to_numpy()` copy it to a NumPy array; `a.value`
    is the current jax Array (a snapshot: later in-place updates do not change it)."""
    __slots__ = ("_value", "_owned", "__weakref__")
    __hash__ = None  # type: ignore[assignment]  # mutable like an ndarray: never static

    def __init__(self, value: Any, owned: bool = False) -> None:
        self._value = value
        # whether only this object references the buffer, so a call may donate it
        self._owned = owned

    # --- the buffer -----------------------------------------------------------------
    @property
    def value(self) -> Any:
        """The current jax Array. Once handed out it is never donated: the next
        in-place update writes into a copy, and this one keeps its value."""
        self._live()
        self._owned = False
        return self._value

    def is_deleted(self) -> bool:
        """Whether a call this array was donated to (`jit(f, donate_argnums=...)`)
        consumed it: any use of it then raises RuntimeError."""
        return type(self._value) is _Donated

    def _live(self):
        if type(self._value) is _Donated:
            raise RuntimeError(self._value.message)

    def _give_away(self, fn_name: str) -> None:
        """The array was donated to a call of `fn_name`: drop the buffer (freed now
        unless another reference to it exists) and make every later use raise."""
        buffer, owned = self._value, self._owned
        if type(buffer) is _Donated:
            return
        what = f"{np.dtype(buffer.dtype).name}{list(buffer.shape)}"
        self._value = _Donated(
            f"this DeviceArray ({what}) was donated to a call of {fn_name} "
            "(donate_argnums/donate_argnames) and has been deleted; pass a copy "
            "(`a.copy()`) to keep using it, or leave it out of donate_argnums")
        self._owned = False
        if owned and not buffer.is_deleted():
            buffer.delete()

    def _replace(self, buffer):
        """A call's result becomes the array's value; it is referenced from here only."""
        self._value = buffer
        self._owned = True

    def donatable(self, buffer=None):
        """The buffer a program that updates this array in place may consume: the
        current one when only this object references it, else a device copy."""
        buffer = self._value if buffer is None else buffer
        if buffer is self._value and not self._owned:
            return copy_on_device(buffer)
        return buffer

    # --- array attributes (no transfer) ---------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self._value.shape)

    @property
    def dtype(self) -> np.dtype:
        return np.dtype(self._value.dtype)

    @property
    def ndim(self) -> int:
        return len(self._value.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self._value.shape, dtype=np.int64))

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    @property
    def device(self) -> Any:
        """The jax Device the array lives on."""
        return next(iter(self._value.devices()))

    def __len__(self) -> int:
        if not self._value.shape:
            raise TypeError("len() of unsized object")
        return self._value.shape[0]

    def block_until_ready(self) -> "DeviceArray":
        self._value.block_until_ready()
        return self

    def copy(self) -> "DeviceArray":
        """An independent DeviceArray with the same values, on the same device."""
        return DeviceArray(copy_on_device(self._value), owned=True)

    # --- to the host ------------------------------------------------------------------
    def to_numpy(self) -> np.ndarray:
        """A writable NumPy copy of the current value (a device-to-host transfer)."""
        self._live()
        _count_read()
        return np.array(self._value)

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        if copy is False:
            raise ValueError("a DeviceArray lives in device memory: converting it to a "
                             "NumPy array always copies")
        out = self.to_numpy()
        return out if dtype is None else out.astype(dtype, copy=False)

    def __repr__(self) -> str:
        if self.is_deleted():
            return "DeviceArray(<deleted: donated to a call>)"
        body = np.array2string(self.to_numpy(), separator=", ", prefix="DeviceArray(")
        return f"DeviceArray({body}, dtype={self.dtype}, " \
               f"device={devices.name_of(self.device)!r})"

    # --- Python values (a transfer) ------------------------------------------------
    def __bool__(self) -> bool:
        return bool(self.to_numpy())

    def __float__(self) -> float:
        return float(self.to_numpy())

    def __int__(self) -> int:
        return int(self.to_numpy())

    def __complex__(self) -> complex:
        return complex(self.to_numpy())

    def __index__(self) -> int:
        return operator.index(self.to_numpy())

    # --- NumPy's operators and ufuncs: new DeviceArrays --------------------------------
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        """`np.sin(a)`, `np.add(a, b)`: on the device, as a DeviceArray. Ufunc methods
        (`np.add.reduce`) and `out=`/`where=` arguments run in NumPy on host copies."""
        if method == "__call__" and not kwargs:
            return _operate(ufunc, self, *inputs)
        host = [to_numpy(a) if type(a) is DeviceArray else a for a in inputs]
        if "out" in kwargs:
            out = kwargs["out"]
            if any(type(o) is DeviceArray for o in (out if isinstance(out, tuple) else (out,))):
                return NotImplemented     # a DeviceArray is replaced, not written into
        return getattr(ufunc, method)(*host, **kwargs)


# Python operator -> the NumPy ufunc a DeviceArray computes it with (on its device)
_REFLECTED = {"add": np.add, "sub": np.subtract, "mul": np.multiply,
              "truediv": np.true_divide, "floordiv": np.floor_divide, "mod": np.remainder,
              "pow": np.power, "matmul": np.matmul, "and": np.bitwise_and,
              "or": np.bitwise_or, "xor": np.bitwise_xor, "lshift": np.left_shift,
              "rshift": np.right_shift}
_IN_PLACE = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and", "or", "xor")
_COMPARISONS = {"lt": np.less, "le": np.less_equal, "gt": np.greater,
                "ge": np.greater_equal, "eq": np.equal, "ne": np.not_equal}
_UNARY = {"neg": np.negative, "pos": np.positive, "abs": np.absolute, "invert": np.invert}
for _name, _fn in _REFLECTED.items():
    setattr(DeviceArray, f"__{_name}__", _binary(_fn))
    setattr(DeviceArray, f"__r{_name}__", _binary(_fn, True))
for _name in _IN_PLACE:
    setattr(DeviceArray, f"__i{_name}__", _inplace(_REFLECTED[_name]))
for _name, _fn in _COMPARISONS.items():
    setattr(DeviceArray, f"__{_name}__", _binary(_fn))
for _name, _fn in _UNARY.items():
    setattr(DeviceArray, f"__{_name}__", _unary(_fn))


def copy_on_device(buffer):
    """A new buffer with `buffer`'s value, on its device (no host round trip)."""
    import jax  # lazy: JAX
    with jax.enable_x64(True):
        return jax.device_put(buffer, buffer.sharding, may_alias=False)


def is_jax_array(value) -> bool:
    return hasattr(value, "addressable_data") and hasattr(value, "sharding")


def asarray(x: Any, device: Any = None) -> DeviceArray:
    """`x` (a NumPy array, anything `np.asarray` takes, a jax Array or a DeviceArray)
    as a DeviceArray on `device` ('cpu', 'gpu', 'cuda:1', a jax Device, or None: the
    device `jit` uses without `device=`). Like `np.asarray`, a DeviceArray already on
    that device is returned as it is; anything else becomes a new array that later
    changes to `x` do not reach (a jax Array on that device is shared until the first
    in-place update, which writes into a copy)."""
    import jax  # lazy: JAX
    target = devices.resolve(device)
    if type(x) is DeviceArray:
        if x.device == target and len(x._value.devices()) == 1:
            return x
        return DeviceArray(place(x._value, target), owned=True)
    if is_jax_array(x):
        if _single(x, target):
            return DeviceArray(x, owned=False)
        return DeviceArray(place(x, target), owned=True)
    host = np.array(x, copy=True)      # ours alone: the device buffer may alias it
    if host.dtype.kind in "OUSVMm":
        raise TypeError(f"npxla.asarray: an array of dtype {host.dtype} cannot live on "
                        "an XLA device (numbers and booleans only)")
    with jax.enable_x64(True):
        return DeviceArray(jax.device_put(host, target), owned=True)


def to_numpy(x: Any) -> np.ndarray:
    """A NumPy array with the values of `x`: a DeviceArray or jax Array is copied from
    the device (a writable array of its own); a NumPy array is returned as it is;
    anything else goes through `np.asarray`."""
    if type(x) is np.ndarray:
        return x
    if type(x) is DeviceArray:
        return x.to_numpy()
    if is_jax_array(x):
        return np.array(x)
    return np.asarray(x)


def _single(value, device) -> bool:
    """Whether the jax Array `value` lives whole on `device` alone."""
    try:
        found = value.devices()
    except Exception:  # noqa: BLE001 - a deleted (donated) array
        return False
    return len(found) == 1 and devices.same_memory(next(iter(found)), device)


def place(value, target):
    """A jax Array (or anything device_put takes) moved, whole, onto the `target`
    device or sharding: one explicit device-to-device transfer. A CPU buffer of
    another client goes through its host view (no copy where PJRT can alias it)."""
    import jax  # lazy: JAX
    if host_memory(value) and _on_cpu(target):
        value = np.asarray(value)
    with jax.enable_x64(True):
        return jax.device_put(value, target)


def _on_cpu(target) -> bool:
    """Whether the device or sharding `target` is one CPU device."""
    found = getattr(target, "device_set", None) or (target,)
    return len(found) == 1 and getattr(next(iter(found)), "platform", None) == "cpu"


def host_memory(value) -> bool:
    """Whether the jax Array `value` lives whole on one CPU device (host memory that
    `np.asarray` views without a copy)."""
    try:
        found = value.devices()
    except Exception:  # noqa: BLE001 - a deleted (donated) array, or not an array
        return False
    return len(found) == 1 and next(iter(found)).platform == "cpu"


# --- arguments of one call ---------------------------------------------------------------
def unwrap(tree, holders: dict, pos: int = 0):
    """(`tree` with every DeviceArray replaced by its jax Array, the next flat leaf
    position). `holders` receives {flat leaf position: DeviceArray}; positions count
    the leaves exactly as `pytree.flatten` does. The tree is returned as it is (the same
    object) where it holds no DeviceArray."""
    t = type(tree)
    if t is DeviceArray:
        if type(tree._value) is _Donated:     # given to an earlier call: say so
            raise RuntimeError(tree._value.message)
        holders[pos] = tree
        return tree._value, pos + 1
    if t is tuple or t is list or (isinstance(tree, tuple) and hasattr(t, "_fields")):
        items = []
        for x in tree:
            x2, pos = unwrap(x, holders, pos)
            items.append(x2)
        if all(a is b for a, b in zip(items, tree)):
            return tree, pos
        return (t(*items) if t is not tuple and t is not list else t(items)), pos
    if t is dict:
        out = {}
        for k, v in tree.items():
            out[k], pos = unwrap(v, holders, pos)
        return (tree if all(out[k] is v for k, v in tree.items()) else out), pos
    return tree, pos + (1 if is_traceable(tree) else 0)


def same_pairs(holders: dict) -> tuple:
    """(("same", i, j), ...) for DeviceArrays passed more than once: one array, which
    the program must see as one (an update through one is seen through the other)."""
    items = sorted(holders.items())
    return tuple(("same", i, j) for a, (i, x) in enumerate(items)
                 for j, y in items[a + 1:] if x is y)


def stand_ins(tree):
    """`tree` with jax Arrays replaced by NumPy arrays of their shape and dtype that
    hold no memory (broadcast views): staging reads only shapes and dtypes, and sees
    them as the arrays they stand for, which a program may update in place."""
    t = type(tree)
    if t is tuple or t is list:
        return t(stand_ins(x) for x in tree)
    if isinstance(tree, tuple) and hasattr(t, "_fields"):
        return t(*[stand_ins(x) for x in tree])
    if t is dict:
        return {k: stand_ins(v) for k, v in tree.items()}
    if is_jax_array(tree):
        return np.broadcast_to(np.zeros((), np.dtype(tree.dtype)), tuple(tree.shape))
    return tree


def aliased_module(module_text, pairs, consume=()):
    """`module_text` with parameter p of `main` aliased to output k for each (p, k): XLA
    writes that output into the buffer the parameter consumes (the caller donates it).
    Each parameter in `consume` (a buffer the caller gave up: `donate_argnums`) is
    aliased to the first output left of its type, if any: a donated buffer is worth
    something only when a result can be written into it."""
    from jax._src.interpreters import mlir as jax_mlir  # lazy: JAX's MLIR context
    from jaxlib.mlir import ir
    with jax_mlir.make_ir_context(), ir.Location.unknown():
        module = ir.Module.parse(module_text)
        main = next(op for op in module.body.operations
                    if "sym_name" in op.attributes and
                    ir.StringAttr(op.attributes["sym_name"]).value == "main")
        n_params = len(main.regions[0].blocks[0].arguments)
        attrs = list(ir.ArrayAttr(main.attributes["arg_attrs"])) \
            if "arg_attrs" in main.attributes else []
        attrs += [ir.DictAttr.get({})] * (n_params - len(attrs))
        i32 = ir.IntegerType.get_signless(32)
        pairs = list(pairs) + _free_outputs(main, consume, {k for _, k in pairs})
        for p, k in pairs:
            entries = {a.name: a.attr for a in ir.DictAttr(attrs[p])}
            entries["tf.aliasing_output"] = ir.IntegerAttr.get(i32, k)
            attrs[p] = ir.DictAttr.get(entries)
        main.attributes["arg_attrs"] = ir.ArrayAttr.get(attrs)
        return module.operation.get_asm(enable_debug_info=False)


def _free_outputs(main, params, taken):
    """[(p, k)]: each parameter of `params` with an output of its type not in `taken`."""
    from jaxlib.mlir import ir  # lazy: JAX's MLIR
    if not params:
        return []
    fn_type = ir.FunctionType(ir.TypeAttr(main.attributes["function_type"]).value)
    inputs, results = list(fn_type.inputs), [str(t) for t in fn_type.results]
    out = []
    for p in params:
        wanted = str(inputs[p])
        k = next((k for k, t in enumerate(results) if t == wanted and k not in taken), None)
        if k is not None:
            taken.add(k)
            out.append((p, k))
    return out


def delete_donated(value) -> None:
    """Free a jax Array the caller donated to a call (as `jax.jit` does: later uses
    raise), unless the call already consumed it."""
    if is_jax_array(value) and not value.is_deleted():
        value.delete()


def jax_array_type():
    """The concrete class of jax Arrays (for exact type checks on the per-call path)."""
    from jax._src.array import ArrayImpl  # lazy: JAX
    return ArrayImpl
