"""Python side effects on objects that outlive the call: recorded while staging,
replayed with concrete values after every run.

Legacy code keeps state on objects and in containers: `self.x = F @ self.x`,
`self.steps += 1`, `history.append(err)` into a list the caller passed, `stats["max"] =
x.max()`, `global count; count += 1`. A compiled program runs without Python, so such a
change must happen after the run, with the run's values, exactly as NumPy would have
left the objects. While staging, each change to an object that existed before the call
is applied to the staged object at once (later reads in the same call see it), saved
for undoing, and appended to a log: (operation, path, name) plus a payload (the value
stored, or a method's arguments), whose arrays become outputs of the program. When
staging ends, every staged change is undone, so no traced value reaches the user's
objects; the driver replays the log after each run (`replay`).

Objects are named by *path* from the call's roots, not by identity: an argument
(`("arg", 0)`, a keyword), a closure cell of the jitted function, or a module's globals,
followed by attribute and item steps. So a program served for another call (or from
the disk cache, in another process) changes that call's objects. An object found on no
such path was made during the call: changing it is ordinary Python. An attribute stored
in a branch of a data-dependent `if` is carried through the branches like a variable
(`if_statements.if_stmt`) and stored once after it with the selected value. Any other
change inside data-dependent control flow would run once while staging, not once per
iteration or branch taken: it is refused there (located), and the refusal names the
condition, so the driver can specialise the arguments it depends on.
"""
from __future__ import annotations

import collections
import contextlib
import sys
import types

import numpy as np

from npxla.transpiler.base.catalogue import (CONTAINER_MUTATION, EFFECT_VALUE,
                                            UNREGISTERED_MODULE)
from npxla.transpiler.base.origin import is_converted

from npxla.runtime.staging import journal
from npxla.runtime.staging.abstract import AbstractArray
from npxla.runtime.staging.trace import current_trace
from npxla.runtime.operators.mutation import (ContainerMutation, made_in_region,
                                              refuse_container_mutation)
from npxla.runtime.operators.provenance import USER, origin_of_module

MISSING = object()          # an attribute or key that did not exist before the change
MAX_DEPTH = 6               # attribute/item steps searched from a root
MAX_VISITS = 50_000         # objects one search may visit
_ATOMS = (str, bytes, bool, int, float, complex, type(None), np.ndarray, np.generic,
          AbstractArray, types.FunctionType, types.BuiltinFunctionType, range, slice)
_CONTAINERS = (list, dict, set)


class Item:
    """The name of an item slot (`lst[i]`, `d[k]`) beside attribute names: a branch of a
    data-dependent `if` may carry an existing item through, as it carries an attribute."""
    __slots__ = ("key",)

    def __init__(self, key):
        self.key = key

    def __eq__(self, other):
        return type(other) is Item and type(other.key) is type(self.key) and \
            other.key == self.key

    def __hash__(self):
        return hash((Item, self.key))

    def __repr__(self):
        return f"[{self.key!r}]"


def read_slot(obj, name):
    """The value in slot `name` (an attribute name or an `Item`) of `obj`, or MISSING."""
    if type(name) is not Item:
        return getattr(obj, name, MISSING)
    try:
        return obj[name.key]
    except (IndexError, KeyError, TypeError):
        return MISSING


def write_slot(obj, name, value):
    if type(name) is Item:
        obj[name.key] = value
    else:
        setattr(obj, name, value)


def _carriable_key(key) -> bool:
    return type(key) in (int, str, bool, bytes, float, tuple) and \
        not any(isinstance(k, AbstractArray) for k in (key if type(key) is tuple else ()))


def recorder():
    """The current staging run's `Effects`, or None outside staging."""
    trace = current_trace()
    return None if trace is None else getattr(trace, "effects", None)


class Effects:
    """The log of one staging run and how to undo it."""

    def __init__(self, args, kwargs, fn, original=None):
        """`args`/`kwargs`: the staged call's arguments; `fn`: the staged function, whose
        closure cells are roots under the free-variable names of `original` (the user's
        function, which the replay resolves them on)."""
        self.roots = [(("arg", i), a) for i, a in enumerate(args)]
        self.roots += [(("kwarg", k), v) for k, v in kwargs.items()]
        names = set((original or fn).__code__.co_freevars)
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
            if name in names:
                try:
                    self.roots.append((("cell", name), cell.cell_contents))
                except ValueError:      # an empty cell
                    pass
        self._own_globals = (original or fn).__globals__
        self.log: list = []           # (op, path, name)
        self.payloads: list = []      # per log entry: the value or (args, kwargs)
        self._undo: list = []
        self._paths: dict = {}        # id(object) -> path, or None (made in the call)
        self._alive: list = []        # keeps searched objects alive: ids stay unique
        self._saved: set = set()
        # (id(object), name) -> region depth at which a data-dependent `if` carries
        # that attribute as a value of its branches (`carrying`)
        self._carrying: dict = {}

    # --- where an object lives ----------------------------------------------------
    def locate(self, obj):
        """The path of `obj` from the call's roots, or None when it was made in the call
        (reachable from no root)."""
        key = id(obj)
        if key in self._paths:
            return self._paths[key]
        path = _search(obj, self.roots + _module_roots(self._own_globals))
        self._paths[key] = path
        self._alive.append(obj)
        return path

    def made_in_call(self, obj) -> bool:
        """Whether `obj`, found in the function's result, is an object the call made
        whose attributes hold traced values (`r = R(); r.m = x * 2; return r`): each run
        then returns a new one with the run's values (`pytree.make_object`). An object
        from before the call is returned as itself, with the changes replayed."""
        if isinstance(obj, _ATOMS) or isinstance(obj, (type, types.ModuleType)) or \
                not _has_dict(obj) or not _holds_traced(obj):
            return False
        return self.locate(obj) is None

    def _changed(self):
        """An outside object changed: an object made in the call may be reachable now."""
        self._paths = {k: p for k, p in self._paths.items() if p is not None}

    # --- changes ------------------------------------------------------------------
    def set_attr(self, obj, name, value):
        if journal._scopes:
            if self._carrying.get((id(obj), name)) == len(journal._scopes):
                setattr(obj, name, value)     # a branch's value, exported by `if_stmt`
                return
            err = CONTAINER_MUTATION.error_for(
                cls=ContainerMutation, what=f"setting the attribute '.{name}' of an object")
            err.attribute = (obj, name)       # `if_stmt` may carry it through the branch
            raise err
        path = self.locate(obj)
        if path is None:
            setattr(obj, name, value)
            return
        _check_value(value, f"'.{name}'")
        _refuse_unregistered(path, f"setting the attribute '.{name}'")
        if (id(obj), name) not in self._saved:
            self._saved.add((id(obj), name))
            old = vars(obj).get(name, MISSING) if _has_dict(obj) else \
                getattr(obj, name, MISSING)
            self._undo.append(lambda: _restore_attr(obj, name, old))
        setattr(obj, name, value)
        self._append(("setattr", path, name), _snapshot(value))

    def set_global(self, globals_dict, name, value):
        refuse_container_mutation(f"rebinding the global '{name}'")
        root = _module_root(globals_dict, self._own_globals)
        _refuse_unregistered((root,), f"rebinding the global '{name}'")
        _check_value(value, f"the global '{name}'")
        if (id(globals_dict), name) not in self._saved:
            self._saved.add((id(globals_dict), name))
            old = globals_dict.get(name, MISSING)
            self._undo.append(lambda: _restore_item(globals_dict, name, old))
        globals_dict[name] = value
        self._append(("setitem", (root,), name), _snapshot(value))

    def store(self, obj, name, value):
        """Store a carried slot's value after the branches that carried it."""
        if type(name) is Item:
            self.call(obj, "__setitem__", (name.key, value), {})
        else:
            self.set_attr(obj, name, value)

    def call(self, owner, method, args, kwargs):
        """`owner.method(*args, **kwargs)` on a list, dict or set."""
        if made_in_region(owner):     # the region being traced made it: its own
            return getattr(owner, method)(*args, **kwargs)
        if journal._scopes and method == "__setitem__" and len(args) == 2 and \
                type(owner) in (list, dict) and _carriable_key(args[0]):
            slot = (owner, Item(args[0]))
            if self._carrying.get((id(owner), slot[1])) == len(journal._scopes):
                owner[args[0]] = args[1]     # a branch's value, exported by `if_stmt`
                return None
            err = CONTAINER_MUTATION.error_for(
                cls=ContainerMutation,
                what=f"assignment into a Python {type(owner).__name__}")
            err.attribute = slot             # `if_stmt` may carry the item through
            raise err
        refuse_container_mutation(f"{type(owner).__name__}.{method}()", owner)
        path = self.locate(owner)
        if path is None:
            return getattr(owner, method)(*args, **kwargs)
        _check_value((args, kwargs), f"{type(owner).__name__}.{method}()")
        _refuse_unregistered(path, f"{type(owner).__name__}.{method}()")
        if id(owner) not in self._saved:
            self._saved.add(id(owner))
            saved = owner.copy()
            self._undo.append(lambda: _restore_container(owner, saved))
        payload = (_snapshot(tuple(args)), _snapshot(dict(kwargs)))
        result = getattr(owner, method)(*args, **kwargs)
        self._append(("call", path, method), payload)
        return result

    @contextlib.contextmanager
    def carrying(self, keys, depth):
        """Let a branch traced at region depth `depth` store attributes and items `keys`
        ((object, name or Item) pairs) on the staged objects: `if_stmt` exports them as
        branch results."""
        saved = {(id(o), n): self._carrying.get((id(o), n)) for o, n in keys}
        self._carrying.update({k: depth for k in saved})
        try:
            yield
        finally:      # an enclosing `if` carrying the same attribute gets it back
            for k, old in saved.items():
                if old is None:
                    del self._carrying[k]
                else:
                    self._carrying[k] = old

    def _append(self, entry, payload):
        self.log.append(entry)
        self.payloads.append(payload)
        self._changed()

    def restore(self):
        """Undo every change staging made, newest first."""
        for undo in reversed(self._undo):
            undo()
        self._undo.clear()


# --- undo -----------------------------------------------------------------------------
def _has_dict(obj):
    return isinstance(getattr(obj, "__dict__", None), dict)


def _restore_attr(obj, name, old):
    if old is MISSING:
        try:
            delattr(obj, name)
        except AttributeError:
            pass
    else:
        setattr(obj, name, old)


def _restore_item(d, key, old):
    if old is MISSING:
        d.pop(key, None)
    else:
        d[key] = old


def _restore_container(owner, saved):
    if type(owner) is list:
        owner[:] = saved
    elif type(owner) is collections.deque:
        owner.clear()
        owner.extend(saved)
    else:
        owner.clear()
        owner.update(saved)


# --- values ---------------------------------------------------------------------------
def _rebuild(value, leaf):
    """`value` with its lists, tuples and dicts rebuilt and `leaf` applied to the rest."""
    t = type(value)
    if t is list:
        return [_rebuild(v, leaf) for v in value]
    if t is tuple:
        return tuple(_rebuild(v, leaf) for v in value)
    if t is dict:
        return {k: _rebuild(v, leaf) for k, v in value.items()}
    return leaf(value)


def _snapshot(value):
    """The containers of `value` copied (their later changes are logged on their own,
    once reachable); arrays and other objects as they are."""
    return _rebuild(value, lambda v: v)


def _check_value(value, where, depth=0):
    """Refuse a stored value that holds traced arrays inside an object other than a
    list, tuple or dict: only those are rebuilt with the run's values."""
    if depth > 8 or isinstance(value, _ATOMS):
        return
    if isinstance(value, (list, tuple)):
        for v in value:
            _check_value(v, where, depth + 1)
    elif type(value) is dict:
        for v in value.values():
            _check_value(v, where, depth + 1)
    elif _holds_traced(value):
        raise EFFECT_VALUE.error_for(what=where, kind=type(value).__name__)


def _holds_traced(obj, depth=0):
    if type(obj) is AbstractArray or isinstance(obj, AbstractArray):
        return True
    if depth > 4 or isinstance(obj, _ATOMS):
        return False
    if isinstance(obj, (list, tuple, set, frozenset)):
        return any(_holds_traced(v, depth + 1) for v in obj)
    if type(obj) is dict:
        return any(_holds_traced(v, depth + 1) for v in obj.values())
    if _has_dict(obj) and not isinstance(obj, (type, types.ModuleType)):
        return any(_holds_traced(v, depth + 1) for v in vars(obj).values())
    return False


# --- the search for an object's path ---------------------------------------------------
def _registered(globals_dict):
    """The name under which the module owning `globals_dict` is in `sys.modules` (the
    dict itself, or the overlay's copy of it), or None."""
    name = globals_dict.get("__name__")
    module = sys.modules.get(name) if name else None
    if module is None:
        return None
    if vars(module) is globals_dict or globals_dict.get("__file__") == \
            getattr(module, "__file__", None):
        return name
    return None


def _refuse_unregistered(path, what):
    if path[0] == ("module", None):
        raise UNREGISTERED_MODULE.error_for(what=what)


def _same_module(g, other):
    """Whether globals dict `g` is `other` or the overlay's copy of it."""
    return g is other or (g.get("__name__") == other.get("__name__") and
                          g.get("__file__") == other.get("__file__"))


def _module_root(g, own):
    """The root naming globals dict `g`: the jitted function's own module (found from
    the function at replay, even when the module was loaded by hand), a module by its
    name in `sys.modules`, or ("module", None) when a replay could not find it."""
    if _same_module(g, own):
        return ("own-globals", None)
    return ("module", _registered(g))


def _module_roots(own):
    """The globals of the converted functions on the stack (the jitted function's
    module and its helpers' modules)."""
    roots, seen = [], set()
    frame = sys._getframe(2)
    while frame is not None:
        if is_converted(frame.f_code):
            g = frame.f_globals
            if id(g) not in seen:
                seen.add(id(g))
                roots.append(((_module_root(g, own),), g))
        frame = frame.f_back
    return roots


def _search(target, roots):
    """Breadth-first search for `target` from `roots` ((root key or path, value))."""
    frontier = [((key,) if type(key[0]) is str else key, value) for key, value in roots]
    seen: set = set()
    for _ in range(MAX_DEPTH + 1):
        following = []
        for path, value in frontier:
            if value is target:
                return path
            if id(value) in seen or len(seen) >= MAX_VISITS:
                continue
            seen.add(id(value))
            following.extend((path + (step,), child) for step, child in _children(value))
        frontier = following
        if not frontier:
            break
    return None


def _user(cls_or_module_name):
    return origin_of_module(cls_or_module_name) == USER


def _searchable(v):
    return not isinstance(v, _ATOMS) or (type(v) is types.FunctionType and
                                          v.__closure__ is not None)


def _children(value):
    """(step, child) pairs worth searching below `value`."""
    t = type(value)
    if t is dict:
        return [(("item", k), v) for k, v in list(value.items())
                if type(k) in (str, int) and _searchable(v) and
                not (type(k) is str and k.startswith("__"))]
    if t is list or t is tuple:
        return [(("item", i), v) for i, v in enumerate(value) if _searchable(v)]
    if t is types.MethodType:
        return [(("attr", "__self__"), value.__self__)]
    if t is types.FunctionType:      # a helper's closure (`log = make_logger(history)`)
        if not _user(value.__module__) or not value.__closure__:
            return []
        out = []
        for name, cell in zip(value.__code__.co_freevars, value.__closure__):
            try:
                v = cell.cell_contents
            except ValueError:
                continue
            if not isinstance(v, _ATOMS) or type(v) is types.FunctionType:
                out.append((("cell", name), v))
        return out
    if t is types.ModuleType:
        if not _user(value.__name__):
            return []
        return [(("attr", k), v) for k, v in list(vars(value).items())
                if not k.startswith("__") and _searchable(v)]
    if isinstance(value, type):
        if not _user(value.__module__):
            return []
        return [(("attr", k), v) for k, v in list(vars(value).items())
                if not k.startswith("__") and not isinstance(v, _ATOMS + (
                    staticmethod, classmethod, property))]
    if _has_dict(value) and _user(t.__module__):
        return [(("attr", k), v) for k, v in list(vars(value).items()) if _searchable(v)]
    return []


# --- replay ---------------------------------------------------------------------------
def resolve(path, args, kwargs, fn):
    """The object `path` names for one call (`fn`: the user's jitted function)."""
    kind, key = path[0]
    if kind == "arg":
        obj = args[key]
    elif kind == "kwarg":
        obj = kwargs[key]
    elif kind == "cell":
        obj = fn.__closure__[fn.__code__.co_freevars.index(key)].cell_contents
    elif kind == "own-globals":
        obj = fn.__globals__
    else:
        obj = vars(sys.modules[key])
    for step, name in path[1:]:
        if step == "attr":
            obj = getattr(obj, name)
        elif step == "cell":
            obj = obj.__closure__[obj.__code__.co_freevars.index(name)].cell_contents
        else:
            obj = obj[name]
    return obj


def _host(value):
    """Device buffers of a run with output="device" as the NumPy arrays (and scalars)
    NumPy's objects would hold."""
    return _rebuild(value, _host_leaf)


def _host_leaf(value):
    if isinstance(value, (np.ndarray, np.generic)) or not hasattr(value, "__array__") or \
            isinstance(value, _ATOMS):
        return value
    out = np.array(value)
    return out[()] if out.ndim == 0 else out


def replay(log, payloads, args, kwargs, fn):
    """Apply a staged log with one run's payloads, in program order."""
    for (op, path, name), payload in zip(log, _host(tuple(payloads))):
        target = resolve(path, args, kwargs, fn)
        if op == "setattr":
            setattr(target, name, payload)
        elif op == "setitem":
            target[name] = payload
        else:
            call_args, call_kwargs = payload
            getattr(target, name)(*call_args, **call_kwargs)
