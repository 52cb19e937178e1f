"""Flattening of arguments and results (tuples, lists, dicts of leaves).

Leaf kinds decide staging: arrays and scalars are traced, anything else hashable is
static. The per-call signature is built here, so this path is kept lean.
"""
from __future__ import annotations

import copy

import numpy as np

from npxla.transpiler.base.errors import StaticArgumentError

from npxla.runtime.staging.abstract import AbstractArray

_SCALARS = (bool, int, float, complex)


def is_traceable(x) -> bool:
    return isinstance(x, (np.ndarray, np.generic, AbstractArray)) or \
        type(x) in _SCALARS or _is_device_array(x)


def _is_device_array(x):
    mod = type(x).__module__
    return mod.startswith("jax") and hasattr(x, "shape") and hasattr(x, "dtype")


def element_strides(x):
    """The strides of ndarray `x` in elements (bytes when not a whole number of them)."""
    size = x.itemsize or 1
    if all(st % size == 0 for st in x.strides):
        return tuple(st // size for st in x.strides)
    return ("bytes",) + tuple(x.strides)


def plain_masked(x) -> bool:
    """Whether masked array `x` masks nothing and carries nothing an array made in
    compiled code lacks: its mask is `np.ma.nomask`, it has no fill value or hard mask,
    and it is a MaskedArray itself (not a subclass). Only those compile."""
    return type(x) is np.ma.MaskedArray and x._mask is np.ma.nomask and \
        x._fill_value is None and not x._hardmask


def leaf_key(x):
    """Cache-key component of one traced leaf: shape, dtype and weak-ness."""
    t = type(x)
    if t is np.ndarray:
        if x.flags.c_contiguous:
            return (x.shape, x.dtype)
        # another layout: `ravel`/`reshape` give copies where they give views of a
        # C-contiguous array, so it is another program (`numpy.shape.layout`)
        return (x.shape, x.dtype, element_strides(x))
    if t in _SCALARS:
        return t
    if t is np.ma.MaskedArray:       # a masked array: its own program (or a refusal)
        return (x.shape, x.dtype, t, plain_masked(x)) + (
            () if x.flags.c_contiguous else (element_strides(x),))
    if isinstance(x, np.generic):        # not a 0-d array: `type(x)` differs in the program
        return ((), x.dtype, np.generic)
    if isinstance(x, AbstractArray):
        return (x.shape, x.dtype, x.weak)
    return (tuple(x.shape), np.dtype(x.dtype))


def flatten(tree, leaves: list, everything=False, objects=None):
    """Append traced leaves (with `everything`, every non-container) to `leaves`;
    return a hashable tree definition. `objects(obj)`: whether an object is made anew
    for each call from its attributes (a result object made in the call, whose traced
    attributes are leaves: `make_object`)."""
    t = type(tree)
    if t is tuple or t is list:
        return (t, tuple(flatten(x, leaves, everything, objects) for x in tree))
    if isinstance(tree, tuple) and hasattr(t, "_fields"):     # named tuples (SVDResult)
        return ("namedtuple", t, tuple(flatten(x, leaves, everything, objects)
                                       for x in tree))
    if t is dict:
        keys = tuple(tree)
        return (dict, keys, tuple(flatten(tree[k], leaves, everything, objects)
                                  for k in keys))
    if objects is not None and objects(tree):
        names = tuple(vars(tree))
        return ("object", tree, names, tuple(flatten(getattr(tree, n), leaves, everything,
                                                     objects) for n in names))
    if everything or is_traceable(tree):
        leaves.append(tree)
        return None
    if t is set:        # a set of static values: keyed by content, staged as a fresh set
        return ("set", _Frozen(tree))
    try:
        hash(tree)
    except TypeError:
        raise StaticArgumentError(
            f"argument of type {type(tree).__name__} is neither an array, a scalar nor "
            f"hashable, so it can be neither traced nor static") from None
    return ("static", tree)


class _Frozen(frozenset):
    """A set argument's contents in a tree definition (hashable; unflattened into a new
    set, which the function may change: `operators.effects` replays that on the
    caller's set)."""
    __slots__ = ()


def unflatten(treedef, leaves_iter):
    if treedef is None:
        return next(leaves_iter)
    head = treedef[0]
    if head is tuple:
        return tuple(unflatten(d, leaves_iter) for d in treedef[1])
    if head is list:
        return [unflatten(d, leaves_iter) for d in treedef[1]]
    if head is dict:
        return {k: unflatten(d, leaves_iter) for k, d in zip(treedef[1], treedef[2])}
    if head == "namedtuple":
        return treedef[1](*[unflatten(d, leaves_iter) for d in treedef[2]])
    if head == "set":
        return set(treedef[1])
    if head == "object":
        return make_object(treedef[1], treedef[2],
                           [unflatten(d, leaves_iter) for d in treedef[3]])
    value = treedef[1]  # static
    return value.value if type(value) is Static else value


def make_object(template, names, values):
    """A new object like `template` (the one the staged call made) with its attributes
    `names` set to this call's `values`: each call returns an object of its own, as
    NumPy code does, and no traced value reaches the caller. Attributes that are plain
    data are copied deeply (a list made in the call is the caller's own)."""
    out = copy.copy(template)
    for name, value in zip(names, values):
        if not isinstance(value, np.ndarray):
            try:
                value = copy.deepcopy(value)
            except Exception:       # a lock, a module: shared, as a shallow copy has it
                pass
        object.__setattr__(out, name, value)
    return out


def check_static(value, what):
    """Static arguments must be hashable and must not be arrays."""
    if isinstance(value, (np.ndarray, AbstractArray)) or _is_device_array(value):
        raise StaticArgumentError(f"{what} is an array; arrays cannot be static arguments")
    try:
        hash(value)
    except TypeError:
        raise StaticArgumentError(
            f"{what} of type {type(value).__name__} is not hashable") from None
    return Static(value)


class Static:
    """Marks a value the caller declared static: hashed by value, never traced."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __hash__(self):
        return hash((type(self.value), self.value))

    def __eq__(self, other):
        return type(other) is Static and type(other.value) is type(self.value) \
            and other.value == self.value
