"""Loop tokens: a staged loop's index in `AbstractArray.deps`, and the unrolling policy.

A ConcretizationError whose dependencies hold a token tells the driver which loop must
be unrolled for a value to become a Python value (`x[:i]`); the warning names it.
"""
from __future__ import annotations

import warnings

from npxla.runtime.staging.trace import current_trace


class NpxlaPerformanceWarning(UserWarning):
    """Code compiled correctly but slower or larger than it could be."""


class LoopToken:
    """Stands for a staged loop's index in `AbstractArray.deps`: a ConcretizationError
    carrying it means the loop must be unrolled (static trip count) or refused."""
    __slots__ = ("code", "static", "count_deps", "too_long")

    def __init__(self, code, static, count_deps=frozenset(), too_long=False):
        # too_long: a static trip count past the unrolling limit (not `static` then)
        self.code, self.static, self.count_deps = code, static, count_deps
        self.too_long = too_long

    def __hash__(self):
        return hash(self.code)

    def __eq__(self, other):
        return type(other) is LoopToken and other.code is self.code

    @property
    def where(self):
        return f"{self.code.co_filename}:{self.code.co_firstlineno}"


class _Unrolled:
    """The loop bodies to unroll: a policy of the current trace (`Trace.unrolled`, set
    by the caller of `staging.stage`), so threads staging at once never share it."""

    def __contains__(self, code):
        trace = current_trace()
        return trace is not None and code in trace.unrolled


_unrolled = _Unrolled()


def warn_unrolled(token, reason="a value computed in this loop (e.g. its index) is needed "
                                "as a static value (a slice bound or a shape)"):
    warnings.warn_explicit(
        f"{reason}, so the loop is unrolled: the compiled program grows with the trip "
        "count", NpxlaPerformanceWarning, token.code.co_filename, token.code.co_firstlineno)
