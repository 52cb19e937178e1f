"""Which handles a staged region changed, so the region can export and undo the changes.

Tracing a branch or a loop body runs Python code that may update handles created before
the region (`a[i] = v`, `x += 1`, a view refreshing itself). Those updates refer to MLIR
values that live inside the region, so they must not leak out: when the region ends, the
handles are restored, and the ones that were *assigned* become extra region results that
the caller writes back. Handles created inside the region (`_born >= scope.serial`) are
the region's own temporaries and are not recorded.

The state (the newest stamp and the open scopes) lives on the current `Trace`, never in
module globals: threads that stage at the same time each have their own trace.
`journal.serial` and `journal._scopes` still read as module attributes (the current
trace's; 0 and no scopes outside any trace).
"""
from __future__ import annotations

from npxla.runtime.staging.trace import current_trace


class _Idle:
    """The state outside any trace: nothing is journaled."""
    serial = 0
    scopes: list = []


def _state():
    trace = current_trace()
    return _Idle if trace is None else trace


def __getattr__(name):
    if name == "serial":          # stamp given to new handles (see AbstractArray._born)
        return _state().serial
    if name == "_scopes":
        return _state().scopes
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class Scope:
    __slots__ = ("serial", "entries", "created")

    def __init__(self, serial):
        self.serial = serial
        self.entries: dict = {}     # id(handle) -> [handle, saved state, assigned?]
        # id -> the Python containers made while this region was traced (its own: a
        # change to one happens on the path that made it, `mutation.made_in_region`)
        self.created: dict = {}

    def assigned(self):
        """Handles (not views) whose value the region replaced, in first-change order."""
        return [h for h, _, assigned in self.entries.values() if assigned and h._view is None]

    def restore(self):
        for handle, state, _ in self.entries.values():
            handle._ir, handle._const, handle.deps, view, handle._version = state
            if view is not None:     # recompute from the base on next use
                view = (view[0], view[1], view[2], -1)
            handle._view = view


def record(handle, assigned: bool):
    """Called by a handle just before its state changes."""
    scopes = _state().scopes
    if not scopes:
        return
    scope = scopes[-1]
    if handle._born >= scope.serial:
        return
    entry = scope.entries.get(id(handle))
    if entry is None:
        scope.entries[id(handle)] = [handle, (handle._ir, handle._const, handle.deps,
                                              handle._view, handle._version), assigned]
    elif assigned:
        entry[2] = True


def stamp() -> int:
    """Start a new generation: every handle created after this call has `_born` >= the
    returned stamp, every handle that exists now has `_born` < it (a loop uses this to
    tell the arrays it was given from the ones its iterations made)."""
    trace = current_trace()
    trace.serial += 1
    return trace.serial


def push() -> Scope:
    trace = current_trace()
    trace.serial += 1
    scope = Scope(trace.serial)
    trace.scopes.append(scope)
    return scope


def pop(scope: Scope):
    trace = current_trace()
    scopes = trace.scopes
    assert scopes and scopes[-1] is scope
    scopes.pop()
    scope.restore()
    # handles born from here to now live in a region that is closed from now on
    trace.closed_regions.close(scope.serial, trace.serial)
    trace.serial += 1


def visible(handle) -> bool:
    """Whether `handle` may be used at the insertion point: it was not made inside a
    region that has closed since (finished, or discarded and retraced)."""
    return handle._born not in current_trace().closed_regions
