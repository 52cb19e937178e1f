"""Builtins that call a function for the user: `map`, `filter`, `sorted(key=)`,
`functools.reduce`, `itertools.starmap`, and calls of `functools.partial` objects; and
the user's functions handed to NumPy functions that call them (`np.apply_along_axis`,
`np.piecewise`), whose lowerings call them while staging.

Converted code routes every call it makes through `converted_call`, but a function handed
to `map` is called by `map` itself, as plain Python: `map(np.asarray, (a, b))` would run
NumPy's own `asarray` on traced arrays, and a user function passed to `sorted` would run
unconverted. Wrapping the function in `Routed` sends each of those calls back through
`converted_call`, so they behave exactly like the equivalent list comprehension. The
builtins themselves still run as Python (lazily, for `map` and `filter`).
"""
from __future__ import annotations

import functools
import itertools

NOT_HANDLED = object()


class Routed:
    """`fn` called the way converted code calls it (through `call`, i.e. converted_call)."""
    __slots__ = ("fn", "call")

    def __init__(self, fn, call):
        self.fn, self.call = fn, call

    def __call__(self, *args, **kwargs):
        return self.call(self.fn, args, kwargs)


def _routed(fn, call):
    return fn if fn is None or type(fn) is Routed else Routed(fn, call)


def route(f, args, kwargs, call):
    """`f(*args, **kwargs)` with its function argument routed, or NOT_HANDLED."""
    if f is map and len(args) >= 2 and not kwargs:
        return map(_routed(args[0], call), *args[1:])
    if f is filter and len(args) == 2 and not kwargs:
        return filter(_routed(args[0], call), args[1])
    if f is itertools.starmap and len(args) == 2 and not kwargs:
        return itertools.starmap(_routed(args[0], call), args[1])
    if f is functools.reduce and args and not kwargs:
        return functools.reduce(_routed(args[0], call), *args[1:])
    if f is sorted and kwargs.get("key") is not None:
        return sorted(*args, **with_routed_key(kwargs, call))
    if type(f) is functools.partial:
        return call(f.func, f.args + tuple(args), {**f.keywords, **kwargs})
    return NOT_HANDLED


def with_routed_key(kwargs, call):
    """`kwargs` with a `key=` function routed (sorted, list.sort, min, max)."""
    key = kwargs.get("key")
    if key is None:
        return kwargs
    return {**kwargs, "key": _routed(key, call)}


def routed_functions(args, kwargs, call, is_user):
    """`args`, `kwargs` with the user's functions among them (or in a list or tuple
    among them, `np.piecewise`'s funclist) routed; the same objects when there are
    none."""
    def one(a):
        if is_user(a):
            return Routed(a, call)
        if type(a) in (list, tuple) and any(is_user(f) for f in a):
            return type(a)(Routed(f, call) if is_user(f) else f for f in a)
        return a
    if not any(is_user(a) or type(a) in (list, tuple) for a in (*args, *kwargs.values())):
        return args, kwargs
    return tuple(map(one, args)), {k: one(v) for k, v in kwargs.items()}
