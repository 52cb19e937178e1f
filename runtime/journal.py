"""Which handles a staged region changed, so the region can export and undo the changes.

Tracing a branch or a loop body runs Python code that may update handles created before
the region (`a[i] = v`, `x += 1`, a view refreshing itself). Those updates refer to MLIR
values that live inside the region, so they must not leak out: when the region ends, the
handles are restored, and the ones that were *assigned* become extra region results that
the caller writes back. Handles created inside the region (`_born >= scope.serial`) are
the region's own temporaries and are not recorded.
"""
from __future__ import annotations

serial = 0          # stamp given to new handles (see AbstractArray._born)
_scopes: list = []


class Scope:
    __slots__ = ("serial", "entries")

    def __init__(self, serial):
        self.serial = serial
        self.entries: dict = {}     # id(handle) -> [handle, saved state, assigned?]

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
    if not _scopes:
        return
    scope = _scopes[-1]
    if handle._born >= scope.serial:
        return
    entry = scope.entries.get(id(handle))
    if entry is None:
        scope.entries[id(handle)] = [handle, (handle._ir, handle._const, handle.deps,
                                              handle._view, handle._version), assigned]
    elif assigned:
        entry[2] = True


def push() -> Scope:
    global serial
    serial += 1
    scope = Scope(serial)
    _scopes.append(scope)
    return scope


def pop(scope: Scope):
    assert _scopes and _scopes[-1] is scope
    _scopes.pop()
    scope.restore()
