"""`jit`'s per-parameter options (`static_argnums`/`static_argnames`, `donate_argnums`/
`donate_argnames`), checked against the function's signature when `jit` is applied.

As with `jax.jit`, an option that names no parameter is a ValueError at once rather than
a silent no-op found (or not) at the first call, and a parameter may not be both static
and donated: a static value is baked into the program, so there is no buffer to give.
"""
from __future__ import annotations

import inspect
from typing import Any, Optional

import numpy as np

from npxla.runtime.staging.pytree import flatten
from npxla.transpiler.base.errors import StaticArgumentError


def parameters(signature: Optional[inspect.Signature], fn_name: str, argnums: Any,
               argnames: Any, option: str = "static") -> tuple[frozenset, frozenset]:
    """(positions, names) of the parameters `option`_argnums/_argnames name, each set
    completed from the other. An index or name that no parameter has is a ValueError
    (any index with *args, any name with **kwargs); a negative index counts from the
    end of the positional parameters."""
    argnums = (argnums,) if isinstance(argnums, (int, np.integer)) else \
        tuple(argnums or ())
    argnames = (argnames,) if isinstance(argnames, str) else tuple(argnames or ())
    for i in argnums:
        if not isinstance(i, (int, np.integer)) or isinstance(i, bool):
            raise TypeError(f"{option}_argnums must be ints, got {i!r}")
    for name in argnames:
        if not isinstance(name, str):
            raise TypeError(f"{option}_argnames must be strings, got {name!r}")
    argnums = tuple(int(i) for i in argnums)
    if signature is None:             # builtins without a signature: nothing to check
        return frozenset(argnums), frozenset(argnames)
    params = signature.parameters.values()
    kinds = {p.kind for p in params}
    named = [p.name for p in params if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    positional = [p.name for p in params
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    n = len(positional)
    for i in argnums:
        if not -n <= i < n and (i < 0 or inspect.Parameter.VAR_POSITIONAL not in kinds):
            raise ValueError(
                f"{option}_argnums={argnums!r}: {fn_name} takes {n} positional "
                f"argument{'s' if n != 1 else ''}, so index {i} names none of them")
    for name in argnames:
        if name not in named and inspect.Parameter.VAR_KEYWORD not in kinds:
            raise ValueError(
                f"{option}_argnames {name!r} is not a parameter of {fn_name} "
                f"(parameters: {', '.join(named) or 'none'})")
    nums = {i % n if i < 0 else i for i in argnums}
    names = set(argnames)
    for name in argnames:
        if name in positional:
            nums.add(positional.index(name))
    for i in nums:
        if i < n:
            names.add(positional[i])
    return frozenset(nums), frozenset(names)


def check_disjoint(fn_name: str, static: tuple[frozenset, frozenset],
                   donated: tuple[frozenset, frozenset]) -> None:
    """A donated parameter that is also static is a ValueError (as in `jax.jit`)."""
    nums = sorted(static[0] & donated[0])
    names = sorted(static[1] & donated[1])
    if nums or names:
        which = f"argument {nums[0]}" if nums else f"argument {names[0]!r}"
        if nums and names:
            which += f" ({names[0]!r})"
        raise ValueError(
            f"{fn_name}: {which} is both static and donated; a static value is part of "
            "the program, so there is no buffer to donate\n"
            "hint: remove it from donate_argnums/donate_argnames or from static_argnums/"
            "static_argnames")


def int_beyond(signature: Optional[inspect.Signature], args: tuple, kwargs: dict,
               static_nums: frozenset, static_names: frozenset, low: int,
               high: int) -> Optional[tuple[int, str]]:
    """(value, "argument 'name'") of the first Python int leaf of a traced argument
    outside [low, high] (a traced Python int is an int64 in the program), or None."""
    params = [n for n, p in signature.parameters.items()
              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)] \
        if signature else []
    named: list = [(params[i] if i < len(params) else None, i, a)
                   for i, a in enumerate(args)]
    named += [(k, None, v) for k, v in kwargs.items()]
    for name, i, value in named:
        if i in static_nums or name in static_names:
            continue
        leaves: list = []
        try:
            flatten(value, leaves)
        except StaticArgumentError:     # a DeviceArray (unwrapped later): no Python int
            continue
        for leaf in leaves:
            if type(leaf) is int and not low <= leaf <= high:
                return leaf, f"argument {name!r}" if name else f"argument {i}"
    return None


def leaf_positions(args: tuple, kwargs: dict, nums: frozenset, names: frozenset) -> list:
    """Flat leaf positions (as `pytree.flatten((args, kwargs))` counts them) of the
    arguments passed at positions `nums` or by the keywords `names`."""
    out: list = []
    pos = 0
    for items, wanted in ((enumerate(args), nums), (kwargs.items(), names)):
        for k, value in items:
            part: list = []
            flatten(value, part)
            if k in wanted:
                out.extend(range(pos, pos + len(part)))
            pos += len(part)
    return out
