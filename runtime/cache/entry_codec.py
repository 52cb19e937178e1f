"""A data-only serialisation for disk-cache entries: reading one never runs code.

Pickle rebuilds arbitrary objects by calling whatever a file names, so a planted cache
entry would run code as whoever loads it. This codec writes and reads only data:
None, bool, int, float, complex, str, bytes, tuple, list, dict, NumPy arrays, scalars
and dtypes, the container types `tuple`/`list`/`dict` (they appear as values in
`pytree` tree definitions), and exception classes and instances from an allow-list of
modules, looked up by qualified name. Anything else makes `encode` raise
`Unencodable`, so an entry that could not be faithfully rebuilt is never written.

Layout: MAGIC, a header (JSON length, blob count), the JSON text of a tree of tagged
nodes, the blob lengths, then the raw blobs. Bytes, array and scalar contents live in
the blobs (the large executable is stored as is, not base64-inflated); a node refers to
its blob by index. `decode` validates every part and raises `CodecError` on anything
malformed; it never returns a partly built value.
"""
from __future__ import annotations

import importlib
import json
import math
import struct

import numpy as np

MAGIC = b"NPXLA-DATA-1\n"
_HEAD = struct.Struct("<QQ")          # JSON length, blob count
_LEN = struct.Struct("<Q")
_MAX_DEPTH = 64
_CONTAINER_TYPES = {"tuple": tuple, "list": list, "dict": dict}
# modules whose exception classes an entry may name (the errors a staged check raises)
EXCEPTION_MODULES = ("builtins", "numpy.linalg", "numpy.exceptions", "npxla.transpiler.base.errors",
                     "npxla.runtime.staging.bounded")


class CodecError(ValueError):
    """The bytes are not a well-formed entry (truncated, garbled or not ours)."""


class Unencodable(TypeError):
    """The value holds something this codec cannot rebuild exactly: do not persist it."""


# --- encoding ----------------------------------------------------------------------------
def encode(value) -> bytes:
    """The bytes of `value`; raises Unencodable for anything outside the data model."""
    blobs: list = []
    text = json.dumps(_node(value, blobs, 0), ensure_ascii=True,
                      separators=(",", ":")).encode("ascii")
    parts = [MAGIC, _HEAD.pack(len(text), len(blobs)), text]
    parts.extend(_LEN.pack(len(b)) for b in blobs)
    parts.extend(blobs)
    return b"".join(parts)


def _node(value, blobs, depth):
    """The tagged JSON node of `value` (exact types only: a subclass may carry state or
    behaviour the rebuilt value would silently lack)."""
    if depth > _MAX_DEPTH:
        raise Unencodable("nested too deeply")
    t = type(value)
    if value is None:
        return ["N"]
    if t is bool:
        return ["B", value]
    if t is int:
        try:
            return ["I", str(value)]
        except ValueError:        # beyond the interpreter's int-to-str digit limit
            raise Unencodable("integer too large") from None
    if t is float:
        return ["F", value.hex()]
    if t is complex:
        return ["C", value.real.hex(), value.imag.hex()]
    if t is str:
        return ["S", value]
    if t is bytes:
        return ["Y", _blob(blobs, value)]
    if t is tuple or t is list:
        return ["T" if t is tuple else "L", [_node(v, blobs, depth + 1) for v in value]]
    if t is dict:
        return ["D", [[_node(k, blobs, depth + 1), _node(v, blobs, depth + 1)]
                      for k, v in value.items()]]
    if t is np.ndarray:
        return ["A", _dtype_str(value.dtype), list(value.shape),   # C order, any layout
                _blob(blobs, value.tobytes())]
    if isinstance(value, np.generic) and t is value.dtype.type:
        arr = np.asarray(value)      # np.str_("") holds one item of <U1, not <U0
        return ["G", _dtype_str(arr.dtype), _blob(blobs, arr.tobytes())]
    if isinstance(value, np.dtype):
        return ["P", _dtype_str(value)]
    if isinstance(value, type):
        return _class_node(value)
    if isinstance(value, BaseException):
        return _exception_node(value, blobs, depth)
    raise Unencodable(f"cannot store a value of type {t.__module__}.{t.__qualname__}")


def _blob(blobs, data):
    blobs.append(bytes(data))
    return len(blobs) - 1


def _dtype_str(dtype):
    """A dtype string that names `dtype` exactly (no object, structured or subarray
    dtypes: their string loses fields, and object arrays hold references)."""
    text = dtype.str
    if dtype.hasobject or dtype.itemsize == 0 or np.dtype(text) != dtype:
        raise Unencodable(f"cannot store dtype {dtype}")
    return text


def _class_node(cls):
    for name, container in _CONTAINER_TYPES.items():
        if cls is container:
            return ["K", name]
    if issubclass(cls, BaseException) and _allowed_class(cls.__module__, cls.__qualname__) \
            is cls:
        return ["E", cls.__module__, cls.__qualname__]
    raise Unencodable(f"cannot store the class {cls.__module__}.{cls.__qualname__}")


def _exception_node(exc, blobs, depth):
    """(class, args, notes) — only when `class(*args)` rebuilds the same state, so an
    exception with attributes its constructor does not set is refused, not degraded."""
    cls = type(exc)
    head = _class_node(cls)
    notes = getattr(exc, "__notes__", [])
    if type(notes) is not list or not all(type(n) is str for n in notes):
        raise Unencodable("exception notes that are not strings")
    state = {k: v for k, v in vars(exc).items() if k != "__notes__"}
    try:
        clone = cls(*exc.args)
        same = type(clone) is cls and clone.args == exc.args and vars(clone) == state
    except Exception:
        same = False
    if not same:
        raise Unencodable(f"{cls.__qualname__} is not rebuilt by its arguments")
    return ["X", head[1], head[2], _node(exc.args, blobs, depth + 1), list(notes)]


def _allowed_class(module, qualname):
    """The exception class `module.qualname` when the module is allow-listed, else None."""
    if module not in EXCEPTION_MODULES or type(qualname) is not str:
        return None
    try:
        obj = importlib.import_module(module)
    except ImportError:
        return None
    for part in qualname.split("."):
        if not part or part.startswith("_"):
            return None
        obj = getattr(obj, part, None)
    if isinstance(obj, type) and issubclass(obj, BaseException) and \
            obj.__module__ == module and obj.__qualname__ == qualname:
        return obj
    return None


# --- decoding ----------------------------------------------------------------------------
def decode(data) -> object:
    """The value encoded in `data`; raises CodecError on any malformed input."""
    try:
        return _decode(memoryview(data).cast("B"))
    except CodecError:
        raise
    except Exception as e:        # whatever the malformation, one error for the caller
        raise CodecError(f"malformed entry: {type(e).__name__}: {e}") from None


def _decode(view):
    start = len(MAGIC) + _HEAD.size
    if len(view) < start or bytes(view[:len(MAGIC)]) != MAGIC:
        raise CodecError("not an entry (bad magic)")
    text_len, count = _HEAD.unpack(view[len(MAGIC):start])
    table = start + text_len
    blob_start = table + count * _LEN.size
    if blob_start > len(view):
        raise CodecError("truncated header")
    lengths = struct.unpack_from(f"<{count}Q", view, table)
    if blob_start + sum(lengths) != len(view):
        raise CodecError("length mismatch")
    blobs, offset = [], blob_start
    for n in lengths:
        blobs.append(view[offset:offset + n])
        offset += n
    tree = json.loads(bytes(view[start:table]).decode("ascii"))
    reader = _Reader(blobs)
    value = reader.value(tree, 0)
    if len(reader.used) != len(blobs):
        raise CodecError("unreferenced blob")
    return value


class _Reader:
    """Rebuilds values from nodes; every node is checked before it is used."""

    def __init__(self, blobs):
        self.blobs = blobs
        self.used = set()

    def value(self, node, depth):
        if depth > _MAX_DEPTH:
            raise CodecError("nested too deeply")
        _expect(type(node) is list and node and type(node[0]) is str, "bad node")
        method = getattr(self, "_tag_" + node[0], None) if len(node[0]) == 1 else None
        _expect(method is not None, f"unknown tag {node[0]!r}")
        return method(node[1:], depth)

    def _tag_N(self, rest, depth):
        _expect(rest == [], "bad None")

    def _tag_B(self, rest, depth):
        return _only(rest, bool)

    def _tag_I(self, rest, depth):
        text = _only(rest, str)
        _expect(len(text) <= 4000 and text.isascii() and
                text.removeprefix("-").isdigit(), "bad int")
        return int(text)

    def _tag_F(self, rest, depth):
        return _float(_only(rest, str))

    def _tag_C(self, rest, depth):
        _expect(len(rest) == 2, "bad complex")
        return complex(_float(rest[0]), _float(rest[1]))

    def _tag_S(self, rest, depth):
        return _only(rest, str)

    def _tag_Y(self, rest, depth):
        return bytes(self._blob(_only(rest, int)))

    def _tag_T(self, rest, depth):
        return tuple(self._tag_L(rest, depth))

    def _tag_L(self, rest, depth):
        return [self.value(v, depth + 1) for v in _only(rest, list)]

    def _tag_D(self, rest, depth):
        out = {}
        for pair in _only(rest, list):
            _expect(type(pair) is list and len(pair) == 2, "bad dict item")
            key = self.value(pair[0], depth + 1)
            _expect(key not in out, "duplicate dict key")    # TypeError if unhashable
            out[key] = self.value(pair[1], depth + 1)
        return out

    def _tag_A(self, rest, depth):
        _expect(len(rest) == 3 and type(rest[1]) is list, "bad array")
        dtype = _dtype(rest[0])
        shape = tuple(rest[1])
        _expect(all(type(n) is int and n >= 0 for n in shape), "bad shape")
        raw = self._blob(rest[2])
        _expect(len(raw) == math.prod(shape) * dtype.itemsize, "array size mismatch")
        return np.frombuffer(raw, dtype=dtype).copy().reshape(shape)

    def _tag_G(self, rest, depth):
        _expect(len(rest) == 2, "bad scalar")
        dtype = _dtype(rest[0])
        raw = self._blob(rest[1])
        _expect(len(raw) == dtype.itemsize, "scalar size mismatch")
        return np.frombuffer(raw, dtype=dtype)[0]

    def _tag_P(self, rest, depth):
        return _dtype(_only(rest, str))

    def _tag_K(self, rest, depth):
        name = _only(rest, str)
        _expect(name in _CONTAINER_TYPES, "bad container type")
        return _CONTAINER_TYPES[name]

    def _tag_E(self, rest, depth):
        _expect(len(rest) == 2, "bad class")
        cls = _allowed_class(rest[0], rest[1])
        _expect(cls is not None, "class not allowed")
        return cls

    def _tag_X(self, rest, depth):
        _expect(len(rest) == 4 and type(rest[3]) is list, "bad exception")
        cls = self._tag_E(rest[:2], depth)
        args = self.value(rest[2], depth + 1)
        _expect(type(args) is tuple, "bad exception arguments")
        _expect(all(type(n) is str for n in rest[3]), "bad exception notes")
        try:
            exc = cls(*args)
        except Exception as e:
            raise CodecError(f"cannot rebuild {cls.__qualname__}: {e}") from None
        for note in rest[3]:
            exc.add_note(note)
        return exc

    def _blob(self, index):
        _expect(type(index) is int and 0 <= index < len(self.blobs), "bad blob reference")
        _expect(index not in self.used, "blob referenced twice")
        self.used.add(index)
        return self.blobs[index]


def _only(rest, kind):
    """The single operand of a node, of exactly type `kind`."""
    _expect(len(rest) == 1 and type(rest[0]) is kind, f"expected one {kind.__name__}")
    return rest[0]


def _float(text):
    _expect(type(text) is str and len(text) <= 64 and text.isascii(), "bad float")
    return float.fromhex(text)


def _dtype(text):
    _expect(type(text) is str and len(text) <= 32, "bad dtype")
    dtype = np.dtype(text)
    _expect(dtype.str == text and not dtype.hasobject and dtype.itemsize > 0,
            "dtype not allowed")
    return dtype


def _expect(condition, why):
    if not condition:
        raise CodecError(why)
