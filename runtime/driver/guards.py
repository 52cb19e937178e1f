"""Everything a staged program depends on besides its arguments, and the per-call guard.

Staging runs the converted function once; whatever Python values it read from its
environment (globals, closure cells, module and class attributes, attributes of `self`
and of other static arguments, the helpers it calls and *their* environments) are baked
into the executable. Reusing the executable after one of them changed would silently
differ from NumPy, so `Environment` captures them before staging and compiles a guard
that each call runs before reusing the executable:

- NumPy arrays become *implicit inputs*: staging sees them as traced parameters (see
  `overlay`), each call passes the current array, so in-place changes are seen and
  in-place writes by the program are written back. The guard checks shape and dtype.
  An array that staging needs by value (a shape, a slice bound) or that the program can
  only reach through something that cannot be substituted (a class attribute) is baked
  in instead and guarded by its bytes.
- Python scalars (and containers of them) are guarded by type and value.
- Functions, modules, classes and other objects are guarded by identity; the guard then
  follows what the code reads through them (a helper's own globals, `conf.SCALE`,
  `Cls.K`, `self.alpha`). Attributes of library modules (`np.exp`) are not followed.

What is read comes from the bytecode (`reads`). The guard is generated Python code
(a few tens of nanoseconds per checked value) because it runs on the dispatch fast path.
"""
from __future__ import annotations

import hashlib
import sys
import types

import numpy as np

from npxla.runtime.driver import reads
from npxla.runtime.driver.guardgen import generate
from npxla.runtime.driver.guardvalues import DATA_MAX, SCALARS, MISSING, is_data
from npxla.transpiler.base.libraries import NOT_CONVERTED
from npxla.runtime.cache.fingerprint import Unstable, function_digest, value_digest
from npxla.runtime.driver.overlay import Overlay
from npxla.transpiler.base.errors import UnsupportedOperationError

MAX_NODES = 2048         # values one function's guard may check (then: refused)
_ARRAY_KINDS = frozenset("biufc")


class Node:
    """One value the staged program may depend on, and how to find it again."""
    __slots__ = ("kind", "key", "parent", "value", "check", "children", "label", "array",
                 "subst", "fn", "pinned", "dirty", "opaque")

    def __init__(self, kind, key, parent, value, label, subst):
        self.kind, self.key, self.parent, self.value = kind, key, parent, value
        self.label, self.subst = label, subst
        self.check = None       # see `_classify`
        self.children: dict = {}
        self.array = None       # _Array, for array values
        self.fn = None          # FunctionInfo, for user functions (and their wrappers)
        self.pinned = self.dirty = self.opaque = False


class _Array:
    """An implicit input: an array, or a Python scalar attribute the program changes
    (`scalar`: `self.steps += 1` makes `self.steps` a traced input rather than a value
    baked in, so the next call, with the new value, reuses the program)."""
    __slots__ = ("value", "nodes", "pinned", "snapshot", "index", "scalar")

    def __init__(self, value, scalar=False):
        self.value, self.nodes, self.pinned, self.index = value, [], False, None
        self.snapshot = None
        self.scalar = scalar


class FunctionInfo:
    """A user function the program may call, with the nodes of what its code reads."""
    __slots__ = ("fn", "globals", "cells", "refs", "pinned", "dirty", "top")

    def __init__(self, fn, top=False):
        self.fn, self.top = fn, top
        self.globals: dict = {}     # name -> Node
        self.cells: dict = {}       # free variable name -> Node
        self.refs: list = []        # nodes whose value is this function (or a wrapper)
        self.pinned = self.dirty = False


# Packages whose attributes and functions are not followed: the ones @jit calls instead
# of converting (NumPy, JAX, npxla itself, ...) and the standard library. Matched by
# top-level package name ("mathutils" is user code, and so is an installed package that
# @jit converts).
_LIBRARIES = NOT_CONVERTED | frozenset(sys.stdlib_module_names) | {"builtins"}


# methods whose result does not depend on the container's contents: a container only
# changed through them is guarded by identity (see `Environment._walk`)
_WRITE_ONLY = {list: frozenset({"append", "extend", "insert", "clear", "reverse"}),
               dict: frozenset({"update", "clear"}),
               set: frozenset({"add", "update", "discard", "clear"})}


def _is_library(module_name):
    return (module_name or "").partition(".")[0] in _LIBRARIES


def _is_library_module(m):
    return _is_library(getattr(m, "__name__", ""))


def _is_library_object(x):
    return _is_library(getattr(type(x), "__module__", ""))


def _is_user_function(f):
    """A Python function whose own reads are followed (and guarded)."""
    return type(f) is types.FunctionType and not _is_library(f.__module__)


def _copyable(obj):
    """Whether a shallow copy with substituted attributes behaves like `obj`."""
    cls = type(obj)
    if not isinstance(getattr(obj, "__dict__", None), dict) or any(
            "__slots__" in c.__dict__ for c in cls.__mro__[:-1]):
        return False
    try:
        object.__new__(cls)
    except TypeError:
        return False
    return True


def _unwrap_jitted(v):
    """The Python function a jitted function stages (converted calls inline it)."""
    inner = getattr(v, "_fn", None) if hasattr(type(v), "lower") else None
    return inner if type(inner) is types.FunctionType else None


class Environment:
    """The captured environment of one function called with one set of arguments."""

    def __init__(self, fn, args=(), kwargs=None):
        self.nodes: list = []
        self.arrays: list = []          # _Array in first-seen order
        self._arrays_by_id: dict = {}
        self._roots: dict = {}          # (kind, id) -> Node, shared between functions
        self.functions: dict = {}       # id(fn) -> FunctionInfo
        self._seen: dict = {}           # id(object) -> attribute chains walked
        self._read_lists: set = set()   # id(node) of containers whose contents are read
        self._stored: set = set()       # attribute names the followed code stores
        self.exhausted = False
        self.arg_nodes: list = []
        self.top = self._function(fn, top=True)     # a Python function (see forwarding)
        self._arguments(fn, args, kwargs or {})
        self._trace_stored_scalars()
        self._settle()

    # --- capture ---------------------------------------------------------------------
    def _node(self, kind, key, parent, value, label, subst):
        if len(self.nodes) >= MAX_NODES:
            self.exhausted = True
            return None
        node = Node(kind, key, parent, value, label, subst)
        self.nodes.append(node)
        if parent is not None:
            parent.children[key] = node
        self._classify(node)
        return node

    def _function(self, fn, top=False):
        info = self.functions.get(id(fn))
        if info is not None:
            return info
        info = self.functions[id(fn)] = FunctionInfo(fn, top)
        self._stored |= reads.stored_attributes(fn.__code__)
        g = fn.__globals__
        module = g.get("__name__", "?")
        cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
        for (kind, name), chains in reads.roots(fn.__code__).items():
            if kind == "global":
                node = self._root("global", (id(g), name), g, name, f"{module}.{name}",
                                  lambda: g.get(name, MISSING))
                if node is not None:
                    info.globals[name] = node
            elif kind == "cell" and name in cells:
                cell = cells[name]
                node = self._root("cell", (id(cell),), cell, name,
                                  f"{module}.{fn.__qualname__}.<{name}>",
                                  lambda: _cell_value(cell))
                if node is not None:
                    info.cells[name] = node
            else:
                continue
            if node is not None:
                self._walk(node, chains)
        return info

    def _root(self, kind, ident, holder, name, label, get):
        node = self._roots.get((kind,) + ident)
        if node is None:
            node = self._node(kind, (holder, name), None, get(), label, True)
            if node is not None:
                self._roots[(kind,) + ident] = node
        return node

    def _arguments(self, fn, args, kwargs):
        """Static arguments (objects, functions) and defaults the code reads through:
        the key holds the object, the guard what the code reads from it."""
        code = fn.__code__
        chains = {idx: c for (kind, idx), c in reads.roots(code).items() if kind == "param"}
        if not chains:
            return
        names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
        defaults = dict(zip(code.co_varnames[code.co_argcount - len(fn.__defaults__ or ()):
                                             code.co_argcount], fn.__defaults__ or ()))
        defaults.update(fn.__kwdefaults__ or {})
        for idx, c in sorted(chains.items()):
            name = names[idx]
            if idx < code.co_argcount and idx < len(args):
                kind, key, value = "arg", idx, args[idx]
            elif name in kwargs:
                kind, key, value = "kwarg", name, kwargs[name]
            elif name in defaults:
                kind, key, value = "const", name, defaults[name]
            else:
                continue
            static = type(value).__name__ == "Static"    # pytree.Static: static_argnums
            if static:
                value = value.value
            key = (key, static)
            if _traced_or_data(value) or (kind != "const" and _only_leaves(value)):
                continue
            node = self._node(kind, key, None, value, f"<arg {name}>", kind != "const")
            if node is not None:
                node.check = None       # the cache key already holds the argument
                self.arg_nodes.append(node)
                self._walk(node, c)

    def _classify(self, node):
        """Decide how the per-call guard checks one captured value: arrays become implicit
        inputs (or are baked in by identity when XLA cannot hold their dtype),
        scalars and small plain data are compared by value, functions and
        modules by identity with their own reads followed. A value that can
        change without the guard seeing it is refused rather than baked in."""
        v, t = node.value, type(node.value)
        if v is MISSING:
            node.check = "missing"
        elif t is np.ndarray:
            node.check = "array"
            if v.dtype.kind not in _ARRAY_KINDS:
                node.check, node.opaque = "is", True
                return
            arr = self._arrays_by_id.get(id(v))
            if arr is None:
                arr = self._arrays_by_id[id(v)] = _Array(v)
                self.arrays.append(arr)
            arr.nodes.append(node)
            node.array = arr
        elif t in SCALARS or isinstance(v, np.generic):
            node.check = "scalar"
        elif t is types.FunctionType:
            node.check = "is"
            if _is_user_function(v):
                node.fn = self._function(v)
                node.fn.refs.append(node)
        elif t is types.MethodType:
            node.check = "method"
            func, obj = v.__func__, v.__self__
            f = self._node("const", "__func__", node, func, node.label + ".__func__", True)
            s = self._node("const", "__self__", node, obj, node.label + ".__self__", True)
            if f is not None and s is not None and type(func) is types.FunctionType:
                self._stored |= reads.stored_attributes(func.__code__)
                self._walk(s, reads.roots(func.__code__).get(("param", 0), ()))
        elif t is types.ModuleType or isinstance(v, type):
            node.check = "is"
        elif t in (tuple, list, dict) or (isinstance(v, tuple) and hasattr(t, "_fields")):
            if is_data(v, [DATA_MAX]):
                node.check = "data"
            else:
                node.check = "container"
                items = v.items() if t is dict else enumerate(v)
                for k, item in items:
                    self._node("item", k, node, item, f"{node.label}[{k!r}]", True)
        elif _unwrap_jitted(v) is not None:
            node.check = "is"
            node.fn = self._function(_unwrap_jitted(v))
            node.fn.refs.append(node)
        elif isinstance(v, types.BuiltinFunctionType) and not isinstance(
                v.__self__, (types.NoneType, types.ModuleType)):
            node.check = "bound"      # a C method bound to an object: new on each access
            node.opaque = True
        else:
            node.check = "is"
            if not _walkable(v) and not (callable(v) and _is_library_object(v)):
                node.opaque = True

    def _walk(self, node, chains):
        """Follow the attribute chains the code reads through `node`'s value."""
        v = node.value
        t = type(v)
        if t in _WRITE_ONLY and node.check in ("data", "container", "is"):
            # a list the code only appends to (`history.append(err)`): the program does
            # not depend on its contents (the appends are replayed, `operators.effects`),
            # so its identity is checked, not its value, which changes on every call
            writes = bool(chains) and all(len(c) == 1 and c[0] in _WRITE_ONLY[t]
                                          for c in chains)
            if writes and node.check != "is" and id(node) not in self._read_lists:
                dropped = {id(c) for c in node.children.values()}
                self.nodes = [n for n in self.nodes if id(n) not in dropped]
                node.children.clear()
                node.check = "is"
            elif not writes and id(node) not in self._read_lists:
                self._read_lists.add(id(node))
                if node.check == "is":
                    self._classify(node)
        if t is types.ModuleType:
            if _is_library_module(v):
                return
            subst = True
        elif isinstance(v, type):
            if _is_library(getattr(v, "__module__", "")):
                return
            subst = False        # a class cannot be replaced by a copy
        elif _walkable(v):
            subst = _copyable(v)
        else:
            return
        # one walk per object and chain, whichever node reached it (nodes that reach
        # the same object check its identity, and methods reach their `self` again)
        done = self._seen.setdefault(id(v), set())
        for chain in sorted(chains):     # (a set: sorted, so the disk key is stable)
            if chain in done:
                continue
            done.add(chain)
            if not chain:
                if t is types.ModuleType or isinstance(v, type):
                    continue
                for name in list(vars(v)):
                    self._attr(node, name, subst, ((),))
                call = getattr(t, "__call__", None)
                if type(call) is types.FunctionType and _is_user_function(call):
                    # a callable object runs as Python: its `__call__` (a class
                    # attribute, never substituted) reads what it reads
                    if self._node("const", "__call__", node, call, node.label + ".__call__",
                                  False) is not None:
                        self._walk(node, reads.roots(call.__code__).get(("param", 0), ()))
                continue
            self._attr(node, chain[0], subst and _plain_attribute(v, chain[0]), (chain[1:],))
        node.opaque = False

    def _attr(self, node, name, subst, chains):
        child = node.children.get(name)
        if child is None:
            try:
                value = getattr(node.value, name)
            except Exception:
                value = MISSING
            child = self._node("attr", name, node, value, f"{node.label}.{name}", subst)
            if child is None:
                return
        self._walk(child, chains)

    # --- which arrays are inputs -----------------------------------------------------
    def _trace_stored_scalars(self):
        """Python int/float attributes of objects that the code also stores (a counter,
        an accumulated loss) become traced implicit inputs, each its own (equal small
        ints are one object): compared by value, every call would compile anew for the
        value the previous call left. One needed as a value is pinned by staging."""
        for node in self.nodes:
            if node.kind == "attr" and node.check == "scalar" and \
                    type(node.value) in (int, float) and node.key in self._stored:
                arr = _Array(node.value, scalar=True)
                arr.nodes.append(node)
                node.array = arr
                node.check = "array"
                self.arrays.append(arr)

    def _settle(self):
        """Pin what staging cannot substitute (its arrays are then baked in by value)
        and mark what has traced arrays below it (its values get substituted)."""
        if self.exhausted:
            raise UnsupportedOperationError(
                f"the function reads more than {MAX_NODES} values from its environment "
                "(globals, closures, attributes of modules and objects), too many to "
                "check before each call",
                hint="pass the arrays and parameters it uses as arguments")
        pinned_objects: set = set()     # objects some code reaches through a pinned path
        changed = True
        while changed:
            changed = False
            for node in self.nodes:
                parent = node.parent
                pin = not node.subst or (parent is not None and (
                    parent.pinned or id(parent.value) in pinned_objects))
                if pin and not node.pinned:
                    node.pinned = changed = True
                if node.pinned and node.children and id(node.value) not in pinned_objects:
                    pinned_objects.add(id(node.value))
                    changed = True
                if node.pinned and node.fn is not None and not node.fn.top \
                        and not node.fn.pinned:
                    node.fn.pinned = changed = True
            for info in self.functions.values():
                if info.pinned:
                    for n in list(info.globals.values()) + list(info.cells.values()):
                        if not n.pinned:
                            n.pinned = changed = True
        for arr in self.arrays:
            arr.pinned = arr.pinned or any(n.pinned for n in arr.nodes)
        self._index()

    def _index(self):
        k = 0
        for arr in self.arrays:
            arr.index = None if arr.pinned else k
            k += not arr.pinned
            if arr.pinned and arr.snapshot is None:
                arr.snapshot = arr.value if arr.scalar else arr.value.tobytes()
        for node in self.nodes:
            node.dirty = node.array is not None and not node.array.pinned
        changed = True
        while changed:
            changed = False
            for node in self.nodes:
                if not node.dirty and (any(c.dirty for c in node.children.values()) or (
                        node.fn is not None and node.fn.dirty)):
                    node.dirty = changed = True
            for info in self.functions.values():
                if not info.dirty and any(n.dirty for n in list(info.globals.values()) +
                                          list(info.cells.values())):
                    info.dirty = changed = True

    def traced(self):
        """The implicit array inputs, in parameter order."""
        return [a.value for a in self.arrays if not a.pinned]

    def pin(self, k):
        """Bake traced implicit input `k` in by value (staging needs it as a value)."""
        [a for a in self.arrays if not a.pinned][k].pinned = True
        self._index()

    def by_value(self):
        return tuple(sorted(a.nodes[0].label for a in self.arrays if a.pinned))

    def pin_labels(self, labels):
        """Pin the arrays named by `labels` (from a disk-cache variant); False when one
        of them is missing."""
        found = {a.nodes[0].label: a for a in self.arrays}
        if not all(label in found for label in labels):
            return False
        for label in labels:
            found[label].pinned = True
        self._index()
        return True

    def contents(self, labels):
        """Digests of the contents of the arrays named by `labels`, or None when one is
        missing (a disk-cache variant that baked them in)."""
        found = {a.nodes[0].label: a for a in self.arrays}
        if not all(label in found for label in labels):
            return None
        return tuple(hashlib.sha256(_bytes_of(found[label])).hexdigest() for label in labels)

    def check_unchanged(self):
        """Staging must not have modified an array it baked in (NumPy would modify it on
        every call; the program would not)."""
        for a in self.arrays:
            if self._restore(a):       # staging ran the write on the user's array
                raise UnsupportedOperationError(
                    f"the function modifies the array {a.nodes[0].label} in place while its "
                    "values are also needed at compile time (or it is a class attribute)",
                    hint="pass the array in as an argument, or copy it before modifying it")

    def restore_pinned(self):
        """Undo what staging wrote into the arrays it bakes in by value (staging runs
        plain Python on them, e.g. in a helper it calls as a library)."""
        for a in self.arrays:
            self._restore(a)

    @staticmethod
    def _restore(a):
        """Put a pinned array's snapshot back; whether it had changed."""
        if not a.pinned or a.snapshot is None or a.scalar or \
                a.value.tobytes() == a.snapshot:
            return False
        if a.value.flags.writeable:
            a.value[...] = np.frombuffer(a.snapshot, a.value.dtype).reshape(a.value.shape)
        return True

    @property
    def trivial(self):
        """Nothing to check: no guard is needed."""
        return all(n.check is None for n in self.nodes) and not self.arrays

    # --- guard -------------------------------------------------------------------------
    def guard(self, writes_implicit=False):
        """A function `(args, kwargs=None) -> tuple | None`: the current implicit array
        inputs when every captured value still holds, else None."""
        return generate(self, writes_implicit)

    # --- overlay for staging ----------------------------------------------------------
    def binder(self, converted):

        def bind(handles, call_args, call_kwargs):
            return Overlay(self, handles).apply(converted, call_args, call_kwargs)
        return bind

    # --- disk cache -------------------------------------------------------------------
    def digest(self, h):
        """Feed a process-independent description into hash `h`; raises
        fingerprint.Unstable when something is only known by identity."""
        if self.exhausted:
            raise Unstable("too many values to guard")
        for node in self.nodes:
            h.update(f"|{node.label}:{node.check}:".encode())
            v = node.value
            if node.opaque:
                raise Unstable(f"{node.label} is only known by identity")
            if node.check == "array":
                arr = node.array
                h.update(f"{np.shape(v)}:{type(v).__name__}:{arr.pinned}".encode()
                         if arr.scalar else f"{v.shape}:{v.dtype.str}:{arr.pinned}".encode())
                if arr.pinned:
                    h.update(hashlib.sha256(_bytes_of(arr)).digest())
            elif node.check in ("scalar", "data"):
                value_digest(v, h)
            elif node.fn is not None:
                h.update(function_digest(node.fn.fn).encode())
            elif node.check in ("is", "bound", "method", "container", None, "missing"):
                h.update(_describe(v).encode())


def _bytes_of(arr):
    """The bytes an implicit input baked in by value is compared and digested by."""
    return repr((type(arr.value).__name__, arr.value)).encode() if arr.scalar else \
        arr.snapshot if arr.snapshot is not None else arr.value.tobytes()


def _cell_value(cell):
    try:
        return cell.cell_contents
    except ValueError:
        return MISSING


def _only_leaves(v, depth=0):
    """A tuple/list/dict argument made only of arrays and scalars: the call's pytree
    flattens it, so its arrays are the program's explicit inputs already (walking it
    would make them implicit inputs too, and a program that writes arrays back would
    be refused for an argument "also read from the environment")."""
    t = type(v)
    if depth > 8 or t not in (tuple, list, dict):
        return False
    items = v.values() if t is dict else v
    return all(_traced_or_data(x) and type(x) not in (tuple, list, dict) or
               _only_leaves(x, depth + 1) for x in items)


def _traced_or_data(v):
    t = type(v)
    if t is np.ndarray or t in SCALARS or isinstance(v, np.generic):
        return True
    if type(v).__name__ == "Static" or is_data(v, [DATA_MAX]):
        return True
    mod = type(v).__module__
    return mod.startswith("jax") and hasattr(v, "shape")


def _walkable(v):
    """A user object whose attributes the guard may follow."""
    return isinstance(getattr(v, "__dict__", None), dict) and not _is_library_object(v) \
        and not isinstance(v, (type, types.ModuleType, types.FunctionType))


def _plain_attribute(obj, name):
    """An attribute a copy of `obj` can replace: instance data, or a class attribute that
    is no descriptor (a property would still compute from the original)."""
    if name in vars(obj):
        return True
    for c in type(obj).__mro__:
        if name in c.__dict__:
            kind = type(c.__dict__[name])
            return not (hasattr(kind, "__set__") or hasattr(kind, "__delete__"))
    return False


def _describe(v):
    if v is MISSING:
        return "missing"
    if isinstance(v, types.ModuleType):
        return f"module:{v.__name__}"
    name = getattr(v, "__qualname__", None) or getattr(v, "__name__", None)
    module = getattr(v, "__module__", None) or type(v).__module__
    if name is None:
        name = type(v).__qualname__
    return f"{module}.{name}:{type(v).__name__}"
