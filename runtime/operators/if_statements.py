"""The converted `if` statement: the chosen branch as Python, or one staged `if` that
carries the attributes and items its branches store.

An attribute stored in a branch of a data-dependent `if` (`if c: self.count += 1`), or an
existing item of a list or dict (`if c: acc[i] = s`), would be stored once while
staging, not on the path taken. Such a store is refused inside the branch with the
object and the slot named (`effects`); the `if` is then staged again with that slot as
an extra result of both branches, each starting from its value before the `if`, and the
selected value is stored once after it.
"""
from __future__ import annotations

from npxla.runtime.staging import journal
from npxla.runtime.operators import effects
from npxla.runtime.operators.conditionals import is_traced, stage_if, to_pred
from npxla.runtime.operators.mutation import ContainerMutation

_MAX_CARRIED = 32      # attributes one data-dependent `if` may carry


def if_stmt(test, body, orelse, inputs, names):
    if not is_traced(test):
        return (body if test else orelse)(*inputs)
    pred = to_pred(test)
    branches = [lambda: body(*inputs), lambda: orelse(*inputs)]
    carried: list = []
    while True:
        try:
            if not carried:
                return stage_if(pred, branches, names)
            return _stage_if_carrying(pred, branches, names, carried)
        except ContainerMutation as e:
            # an attribute or existing item stored in a branch (`if c: self.count += 1`,
            # `if c: acc[i] = s`): staged again, carrying its value through both
            # branches like a variable
            key = getattr(e, "attribute", None)
            if key is None or any(key[0] is o and key[1] == n for o, n in carried) or \
                    len(carried) >= _MAX_CARRIED or \
                    effects.read_slot(*key) is effects.MISSING:
                raise
            carried.append(key)



def _stage_if_carrying(pred, branches, names, carried):
    """`stage_if` with the attributes `carried` ((object, name) pairs, existing before
    the `if`) as extra results of both branches: each branch starts from the value
    before the `if`, and the selected value is stored once after it (recorded for
    replay by `effects`, or carried again by an enclosing `if`)."""
    recorder = effects.recorder()
    before = [effects.read_slot(o, n) for o, n in carried]

    def carry(fn):
        def run():
            with recorder.carrying(carried, len(journal._scopes)):
                try:
                    out = fn()
                    values = tuple(effects.read_slot(o, n) for o, n in carried)
                finally:
                    for (o, n), v in zip(carried, before):
                        effects.write_slot(o, n, v)
            return tuple(out) + values
        return run

    labels = tuple(names) + tuple(f"{type(o).__name__}{n!r}" if type(n) is effects.Item
                                  else f"{type(o).__name__}.{n}" for o, n in carried)
    result = stage_if(pred, [carry(fn) for fn in branches], labels)
    k = len(names)
    for (o, n), v in zip(carried, result[k:]):
        recorder.store(o, n, v)
    return tuple(result[:k])
