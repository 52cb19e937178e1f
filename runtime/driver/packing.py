"""Scalar results packed into one output per element type.

Every output buffer of a run costs on both sides of the call: PJRT allocates it and JAX
wraps it (about 1 µs), and the caller's side turns it into a NumPy value (`np.asarray`,
about 0.7 µs more). A function returning five statistics of an array paid that five
times: in `jax.jit`, five 0-d outputs and their conversion cost 16 µs a call against
8 µs for one 5-element output and its five elements. So the 0-d results of one element
type leave the program as one vector, and each result is read from it (a `("packed",
output, position, kind)` slot, see `Finisher.results`). The values are the same: a
reshape and a concatenation move them without arithmetic."""
from __future__ import annotations

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo


def pack_scalars(slots, outputs, kinds) -> None:
    """Rewrite `slots` (result slots, see `staging._result_slots`) and `outputs` (the
    program's output values so far) in place: the "out" slots of 0-d outputs whose kind
    is in `kinds` become "packed" slots of one vector output per element type (where
    there are two or more of that type); the other outputs keep their order."""
    groups: dict = {}
    for n, slot in enumerate(slots):
        if slot[0] == "out" and slot[2] in kinds:
            t = ir.RankedTensorType(outputs[slot[1]].type)
            if t.rank == 0:
                groups.setdefault(str(t.element_type), []).append(n)
    groups = {key: members for key, members in groups.items() if len(members) > 1}
    if not groups:
        return
    packed = {slots[n][1] for members in groups.values() for n in members}
    renumber = {}
    kept = []
    for k, value in enumerate(outputs):
        if k not in packed:
            renumber[k] = len(kept)
            kept.append(value)
    new_slots = list(slots)
    for n, slot in enumerate(slots):
        if slot[0] == "out" and slot[1] in renumber:
            new_slots[n] = ("out", renumber[slot[1]], slot[2])
        elif slot[0] == "bounded":
            new_slots[n] = ("bounded", renumber[slot[1]], renumber[slot[2]], slot[3])
        elif slot[0] == "text":
            new_slots[n] = ("text", slot[1], [renumber[k] for k in slot[2]])
    for members in groups.values():
        element = ir.RankedTensorType(outputs[slots[members[0]][1]].type).element_type
        one = ir.RankedTensorType.get([1], element)
        pieces = [hlo.ReshapeOp(one, outputs[slots[n][1]]).result for n in members]
        k = len(kept)
        kept.append(hlo.ConcatenateOp(pieces, 0).result)
        for position, n in enumerate(members):
            new_slots[n] = ("packed", k, position, slots[n][2])
    slots[:] = new_slots
    outputs[:] = kept
