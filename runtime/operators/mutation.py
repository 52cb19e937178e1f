"""Python containers changed inside staged control flow, found while tracing.

A list `append` inside a data-dependent branch or loop would run once while the program
is built, not once per iteration taken: it is refused (`ContainerMutation`), and the
refusal carries what the staged condition depends on, so the driver can retry with
those arguments specialised (the control flow then runs as Python). Branches and loops
both raise and attribute it, so it lives below both.
"""
from __future__ import annotations

import contextlib

from npxla.transpiler.base.catalogue import CONTAINER_MUTATION
from npxla.transpiler.base.errors import UnsupportedOperationError

from npxla.runtime.staging import journal


class ContainerMutation(UnsupportedOperationError):
    """A Python list/dict/set is changed inside staged control flow. `deps`: what the
    staged conditions depend on (specialising those arguments makes the flow Python)."""
    deps = frozenset()


@contextlib.contextmanager
def staged_on(pred):
    """Attribute refusals inside a staged region to the condition that staged it."""
    try:
        yield
    except ContainerMutation as e:
        e.deps = e.deps | pred.deps
        raise


def refuse_container_mutation(what, target=None):
    """Called before a Python list/dict/set changes: refused inside staged regions,
    where the change would happen once while tracing instead of once per run, unless
    the region being traced made `target` itself (`args = list(args); args[i] = ...`
    in a helper called in a branch: each path makes and changes its own)."""
    if journal._scopes and not made_in_region(target):
        raise CONTAINER_MUTATION.error_for(cls=ContainerMutation, what=what)


def note_created(obj):
    """Record that the innermost region being traced made the container `obj`."""
    scopes = journal._scopes
    if scopes:
        scopes[-1].created[id(obj)] = obj
    return obj


def made_in_region(obj) -> bool:
    scopes = journal._scopes
    return bool(scopes) and obj is not None and scopes[-1].created.get(id(obj)) is obj
