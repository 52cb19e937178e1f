"""The driver's side of device-resident arguments (`xla.resident`): which device
buffers a call consumes when its caller donates them, and the refusal to update a jax
Array.

How a program that updates DeviceArrays runs is `Compiled` 's (`_execute_resident`: the
module as staged, whose write-back outputs are the whole new arrays, with each such
argument aliased to its output, so XLA writes the new value into the buffer it consumes
and the DeviceArray takes that output; nothing goes through the host; a program with
run-time checks aliases nothing: when a check fails, the arrays keep their old
buffers). The DeviceArrays take their new buffers in `finish` (`Finisher.write`, and
`Finisher.fast` on the fast path), like every other write-back.

A jax Array is immutable: a function that updates its argument in place cannot make
the change visible to a caller who passed one, so such a call is refused with the fix
(`npxla.asarray`, whose DeviceArray takes the new value). Staging sees jax Arrays as
NumPy stand-ins (`resident.stand_ins`), so the program is the one NumPy arguments get
and the refusal names the argument instead of failing inside staging.
"""
from __future__ import annotations

import numpy as np

from npxla.transpiler.base import catalogue
from npxla.transpiler.base.errors import Location

from npxla.runtime.driver import argspec
from npxla.runtime.staging.pytree import flatten
from npxla.runtime.xla import resident


def consumed(entry, leaves, holders, args, kwargs, donate):
    """The flat leaves of the donated parameters (`donate`: positions, names) whose
    device buffers a call consumes: DeviceArrays and jax Arrays. A NumPy array is
    copied to the device for every call anyway, so donating one changes nothing; a
    DeviceArray the program updates in place or returns as itself keeps its (new)
    value, as without donation (NumPy's semantics come first)."""
    positions = argspec.leaf_positions(args, kwargs, donate[0], donate[1])
    if not positions:
        return ()
    st = entry.staged
    kept = {i for i, _ in st.writeback} | {s[1] for s in st.out_slots if s[0] == "arg"}
    return tuple(i for i in positions if i not in kept and i < len(leaves) and
                 (i in holders or resident.is_jax_array(leaves[i])))


def refuse_immutable(fn, signature, writeback, leaves, holders, args, kwargs):
    """Raise when the program updates in place an argument passed as a jax Array."""
    for i, _ in writeback:
        if i < len(leaves) and i not in holders and \
                type(leaves[i]) not in (np.ndarray, np.ma.MaskedArray):
            code = fn.__code__
            raise catalogue.IMMUTABLE_DEVICE_ARGUMENT.error_for(
                Location(code.co_filename, code.co_firstlineno),
                arg=leaf_name(i, signature, args, kwargs), fn=fn.__name__)


def leaf_name(leaf, signature, args, kwargs):
    """How to name flat leaf `leaf` of a call: its parameter, with an element path
    when the parameter holds several leaves."""
    positional = [n for n, p in signature.parameters.items()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)] \
        if signature is not None else []
    pos = 0
    named = [(positional[i] if i < len(positional) else f"#{i}", a)
             for i, a in enumerate(args)] + list(kwargs.items())
    for name, value in named:
        part: list = []
        flatten(value, part)
        if leaf < pos + len(part):
            return name if len(part) == 1 else f"{name} (leaf {leaf - pos})"
        pos += len(part)
    return f"#{leaf}"
