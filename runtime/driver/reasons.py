"""Why a jitted function compiles again: the line the `npxla` logger and `cache_info`
give for each build after the first.

A loop that recompiles on every call looks like a slow program; the user needs to be
told which argument changed (`x: f64[3] -> f64[4]`, `n (static): 3 -> 4`), which value
a specialised Python int took, or which captured value a guard found changed
(`conf.SCALE changed: 2.0 -> 3.0`). Everything here runs only when a call misses the
in-memory cache, which is about to stage and compile anyway, and only describes: it
decides nothing, so a description that is vaguer than it could be is never wrong.
"""
from __future__ import annotations

import hashlib
import types

import numpy as np

from npxla.runtime.driver.guardvalues import MISSING
from npxla.runtime.driver.lowered import describe_leaf
from npxla.runtime.driver.residency import leaf_name

_MAX_SHOWN = 3           # differences named in one reason
_UNREADABLE = object()   # a value the explanation could not read again


def why(jitted, key, args, kwargs, leaves):
    """Why signature `key` of `jitted` is built now; None for the function's first
    build in this process. `args`, `kwargs`: the call as `_call` keys it."""
    before = jitted._stats.built_before(key)
    variants = jitted._cache.get(key)
    if variants:
        return _variant_failed(jitted, variants, args, kwargs, leaves)
    if before:
        return ("compiled again: its program had been dropped (more than the signatures "
                "kept in memory, a data-bounded slice that needed a longer window, or a "
                "condition on array data it assumed that a run found the other way)")
    previous = list(jitted._cache)
    return _closest(jitted, key, previous) if previous else None


# --- a new signature ---------------------------------------------------------------------
def _closest(jitted, key, previous):
    """The differences between `key` and the previous signature closest to it."""
    names = _positional_names(jitted)
    new = _arguments(key, names)
    best = None
    for old_key in reversed(previous):       # the newest first: it wins a tie
        old = _arguments(old_key, names)
        if old is None or new is None or [a[0] for a in old] != [a[0] for a in new]:
            diffs = None
        else:
            diffs = [_argument_change(a, b) for a, b in zip(old, new)]
            diffs = [d for d in diffs if d]
            if not diffs and old_key[2:] != key[2:]:
                diffs = ["arguments that now share memory, or read-only arrays"]
        if diffs is not None and (best is None or len(diffs) < len(best)):
            best = diffs
    if not best:
        return "new signature: the arguments' number, names or containers changed"
    more = f" (and {len(best) - _MAX_SHOWN} more)" if len(best) > _MAX_SHOWN else ""
    return "new signature: " + "; ".join(best[:_MAX_SHOWN]) + more


def _positional_names(jitted):
    sig = jitted._signature
    if sig is None:
        return []
    return [n for n, p in sig.parameters.items()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]


def _arguments(key, names):
    """[(name, tree definition, leaf keys)] per argument of a signature key, or None
    when the key is not a call's (args, kwargs)."""
    try:
        _, (argsdef, kwdef) = key[0]
        leaf_keys = key[1]
        named = [(names[k] if k < len(names) else f"#{k}", d)
                 for k, d in enumerate(argsdef[1])] + list(zip(kwdef[1], kwdef[2]))
    except (TypeError, ValueError, IndexError):
        return None
    out, pos = [], 0
    for name, d in named:
        n = _count(d)
        out.append((name, d, leaf_keys[pos:pos + n]))
        pos += n
    return out


def _count(d):
    """Leaves under tree definition `d` (see `pytree.flatten`)."""
    if d is None:
        return 1
    head = d[0]
    if head is tuple or head is list:
        kids = d[1]
    elif head is dict or head == "namedtuple":
        kids = d[2]
    elif head == "object":
        kids = d[3]
    else:
        return 0
    return sum(map(_count, kids))


def _argument_change(old, new):
    name, old_def, old_leaves = old
    _, new_def, new_leaves = new
    if old_def == new_def:
        if old_leaves == new_leaves:
            return None
        return f"{name}: {_leaves(old_leaves)} -> {_leaves(new_leaves)}"
    if _is_static(old_def) and _is_static(new_def):
        return f"{name} (static): {_short(_static(old_def))} -> {_short(_static(new_def))}"
    return f"{name}: {_structure(old_def, old_leaves)} -> {_structure(new_def, new_leaves)}"


def _is_static(d):
    return type(d) is tuple and len(d) == 2 and d[0] == "static"


def _static(d):
    return getattr(d[1], "value", d[1])       # pytree.Static holds the caller's value


def _structure(d, leaf_keys):
    if d is None:
        return _leaves(leaf_keys)
    if _is_static(d):
        return f"static {_short(_static(d))}"
    head = d[0]
    if head is tuple or head is list or head is dict:
        kids = d[1] if head is not dict else d[2]
        return f"{head.__name__} of {len(kids)}"
    return getattr(head, "__name__", str(head)) if not isinstance(head, str) else head


def _leaves(leaf_keys):
    text = ", ".join(map(_leaf, leaf_keys))
    return text if len(text) <= 60 else text[:57] + "..."


def _leaf(k):
    """A cache-key leaf (`pytree.leaf_key`) in `--sig` syntax."""
    if isinstance(k, type):
        return k.__name__
    try:
        text = describe_leaf(types.SimpleNamespace(shape=k[0], dtype=k[1]))
    except (TypeError, IndexError):
        return str(k)
    if len(k) > 2 and k[2] is np.generic:
        return text + " (NumPy scalar)"
    if len(k) > 2 and type(k[2]) is tuple:
        return text + " (strided)"
    return text


# --- a known signature whose guard (or specialised value) failed --------------------------
def _variant_failed(jitted, variants, args, kwargs, leaves):
    for v in variants:
        extra = () if v.guard is None else v.guard(args, kwargs)
        table = getattr(v.entry, "table", None)
        if extra is not None and table is not None:     # a specialised value
            names = [leaf_name(i, jitted._signature, args, kwargs)
                     for i in v.entry.positions]
            now = ", ".join(_short(leaves[i]) for i in v.entry.positions)
            were = "; ".join(", ".join(map(_specialised, values)) for values in
                             list(table)[-_MAX_SHOWN:])
            return (f"{', '.join(names)}: a Python value the program needs as a constant "
                    f"is now {now} (compiled for {were})")
    found = explain(variants[0].checks, args, kwargs) if variants[0].checks else None
    return found or ("a value the function reads from its environment changed (or "
                     "became an alias of an argument)")


def _specialised(value):
    """A value of a Specialised table's key (a float is keyed by its hex digits)."""
    return _short(float.fromhex(value) if type(value) is str else value)


def checks(env):
    """What `explain` needs of an Environment's guard: per captured value, how to read
    it again and what it was (arrays by shape, dtype and a digest of contents baked
    in; values the guard does not check are not kept alive)."""
    index = {id(n): i for i, n in enumerate(env.nodes)}
    out = []
    for n in env.nodes:
        value, check = n.value, n.check
        if check == "array":
            arr = n.array
            value = (type(value), None, None, None) if arr.scalar else \
                (np.ndarray, value.shape, value.dtype,
                 _digest(arr.snapshot) if arr.pinned and arr.snapshot is not None else None)
        elif check == "container":
            value = (type(value), len(value), list(value) if type(value) is dict else None)
        elif n.kind != "const" and check not in ("is", "method", "bound", "scalar", "data"):
            value = None          # read again from the call or its parent: not kept alive
        out.append((n.kind, n.key, index.get(id(n.parent)), check, n.label, value))
    return tuple(out)


def explain(checks, args, kwargs):
    """`label changed: old -> new` for the first captured value that no longer holds,
    or None."""
    current: list = []
    for kind, key, parent, check, label, expected in checks:
        try:
            value = _read(kind, key, parent, current, args, kwargs, expected)
        except Exception:     # noqa: BLE001 - the guard failed on this read
            value = _UNREADABLE
        current.append(value)
        if check is None or value is expected:
            continue
        if not _holding(check, value, expected):
            if check == "array" and type(value) is np.ndarray and \
                    (value.shape, value.dtype) == expected[1:3]:
                return f"{label} changed: the contents the program baked in"
            return f"{label} changed: {_show(expected, check)} -> {_show(value, check)}"
    return None


def _read(kind, key, parent, current, args, kwargs, expected):
    if kind == "const":
        return expected
    if kind == "global":
        return key[0].get(key[1], MISSING)
    if kind == "cell":
        try:
            return key[0].cell_contents
        except ValueError:
            return MISSING
    if kind in ("arg", "kwarg"):
        value = args[key[0]] if kind == "arg" else kwargs[key[0]]
        return value.value if key[1] else value
    if kind == "attr":
        return getattr(current[parent], key, MISSING)
    return current[parent][key]


def _holding(check, v, e):
    try:
        return _holds(check, v, e)
    except Exception:     # noqa: BLE001 - a comparison that raises: not the same value
        return False


def _holds(check, v, e):
    if v is _UNREADABLE:
        return False
    if check == "missing":
        return v is MISSING
    if check == "is":
        return v is e
    if check == "method":
        return type(v) is types.MethodType and v.__func__ is e.__func__ and \
            v.__self__ is e.__self__
    if check == "bound":
        return type(v) is type(e) and v.__self__ is e.__self__ and v.__name__ == e.__name__
    if check in ("scalar", "data"):
        return type(v) is type(e) and (bool(v == e) or (v != v and e != e))
    if check == "array":
        t, shape, dtype, digest = e
        if t is not np.ndarray:
            return type(v) is t
        return type(v) is np.ndarray and v.shape == shape and v.dtype == dtype and \
            (digest is None or _digest(v.tobytes()) == digest)
    if check == "container":
        t, n, keys = e
        return type(v) is t and (list(v) == keys if t is dict else len(v) == n)
    return True


def _show(v, check):
    if v is MISSING:
        return "(missing)"
    if v is _UNREADABLE:
        return "(cannot be read)"
    if check == "array" and type(v) is tuple:           # what `checks` kept
        t, shape, dtype, _ = v
        if t is not np.ndarray:
            return t.__name__
        return describe_leaf(types.SimpleNamespace(shape=shape, dtype=dtype))
    if check == "container" and type(v) is tuple:
        return f"{v[0].__name__} of {v[1]}"
    if check == "container":
        return f"{type(v).__name__} of {len(v)}"
    return _short(v)


def _short(v):
    if isinstance(v, (types.FunctionType, types.MethodType, type, types.ModuleType)):
        name = getattr(v, "__qualname__", None) or getattr(v, "__name__", "?")
        return f"<{type(v).__name__} {name} at {id(v):#x}>"
    if isinstance(v, np.ndarray):
        return describe_leaf(v)
    text = repr(v)
    return text if len(text) <= 40 else text[:37] + "..."


def _digest(data):
    return hashlib.sha256(data).digest()
