"""What converted code calls for a user `try` statement (see `staging.tries`).

The body of a `try` with handlers runs inside `user_try`, so the run-time checks staged
there know which exceptions a handler would catch. An `if` inside it is emitted twice
by the converter: `staged_in_try` picks the staged form for a traced test, and
`if_stmt` then refuses, located, a branch that raises while it is staged and that a
handler would catch (NumPy raises it only when that branch is taken; staging runs both).
"""
from __future__ import annotations

from npxla.runtime.staging import tries
from npxla.runtime.staging.trace import current_trace
from npxla.runtime.operators.conditionals import is_traced


def user_try(handler_types):
    """The context of a `try` body: `handler_types` a thunk of what its `except`
    clauses name."""
    return tries.user_try(current_trace(), handler_types)


def staged_in_try(test) -> bool:
    """Whether the `if` inside a user `try` with this test is staged (a traced test)
    rather than run as the Python `if`."""
    return is_traced(test)
