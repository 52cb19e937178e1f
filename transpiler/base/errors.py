"""One error hierarchy for every refusal, each pointing at the user's source.

Errors are raised deep in the runtime (typing rules, lowering) where the user's
line is unknown; the staging boundary attaches the location afterwards with
`Location.from_traceback`, so rules stay free of bookkeeping.
"""
from __future__ import annotations

import linecache
from dataclasses import dataclass


@dataclass(frozen=True)
class Location:
    """A position in the user's source (1-based line, 0-based column)."""
    file: str
    line: int
    col: int = 0
    end_col: int | None = None

    def source_line(self) -> str:
        return linecache.getline(self.file, self.line).rstrip("\n")

    def render(self) -> str:
        text = self.source_line()
        if not text:
            return f"{self.file}:{self.line}:{self.col + 1}"
        width = max(1, (self.end_col or self.col + 1) - self.col)
        caret = " " * self.col + "^" * width
        return f"{self.file}:{self.line}:{self.col + 1}\n    {text}\n    {caret}"


class TranspileError(Exception):
    """Base of every refusal: a message, an optional hint and the user's location."""

    code = "NPX000"
    default_hint = ""

    def __init__(self, message: str, hint: str | None = None, location: Location | None = None):
        super().__init__(message)
        self.message = message
        self.hint = hint if hint is not None else self.default_hint
        self.location = location

    def with_location(self, location: Location | None) -> "TranspileError":
        if self.location is None and location is not None:
            self.location = location
        return self

    @property
    def file(self):
        return self.location.file if self.location else None

    @property
    def line(self):
        return self.location.line if self.location else None

    @property
    def col(self):
        return self.location.col if self.location else None

    def __str__(self) -> str:
        parts = []
        if self.location is not None:
            parts.append(self.location.render())
        parts.append(f"{type(self).__name__}: {self.message}")
        if self.hint:
            parts.append(f"hint: {self.hint}")
        return "\n".join(parts)


class UnsupportedSyntaxError(TranspileError):
    code = "NPX001"


class UnsupportedFunctionError(TranspileError, TypeError):
    code = "NPX002"
    default_hint = ("compute this part with NumPy outside the jitted function, "
                    "or open an issue asking for the function")


class ConcretizationError(TranspileError, TypeError):
    """A traced value was needed as a Python value (a shape, a bool, a range bound)."""
    code = "NPX003"
    default_hint = ("XLA compiles one program per set of shapes: values that decide a shape "
                    "must be known before the run. Pass them as static arguments "
                    "(static_argnums/static_argnames) or compute them from .shape")

    def __init__(self, message, hint=None, location=None, deps=frozenset()):
        super().__init__(message, hint, location)
        # Argument positions the value was derived from: staging retries with the
        # Python-scalar ones made static (automatic specialisation).
        self.deps = deps


class DataDependentShapeError(TranspileError, ValueError):
    code = "NPX004"
    default_hint = ("XLA needs every array shape at compile time. Keep the shape fixed: "
                    "use np.where(mask, x, fill) instead of x[mask], or reduce with a mask "
                    "(np.sum(np.where(mask, x, 0)))")


class ShapeMismatchError(TranspileError, ValueError):
    code = "NPX005"


class DTypeError(TranspileError, TypeError):
    code = "NPX006"


class UndefinedVariableError(TranspileError, NameError):
    code = "NPX007"


class StaticArgumentError(TranspileError, ValueError):
    code = "NPX008"
    default_hint = "static arguments must be hashable; pass arrays as ordinary (traced) arguments"


class UnsupportedOperationError(TranspileError, ValueError):
    """NumPy semantics that XLA cannot reproduce (aliasing, global random state, ...)."""
    code = "NPX009"


class IntegerOverflowError(TranspileError, OverflowError):
    """A Python integer that does not fit the dtype NumPy would give it."""
    code = "NPX010"


class SourceUnavailableError(UnsupportedFunctionError):
    """A function whose source cannot be read: npxla converts control flow from source."""
    default_hint = ("define the function in a .py file (functions typed into the "
                    "interactive interpreter or created with exec/eval have no source)")


class LibraryCallError(UnsupportedFunctionError, ConcretizationError):
    """A call into code npxla does not compile (another library) was given traced arrays.
    Also a ConcretizationError: when the traced value is a Python int argument, staging
    retries with it specialised (e.g. `math.comb(n, 2)`) before this reaches the user."""
    default_hint = ("npxla compiles NumPy functions and your own Python code, not other "
                    "libraries: compute this outside the jitted function and pass the "
                    "result in, or write it with NumPy functions")


class RecursionDepthError(ConcretizationError):
    """Recursion whose depth depends on traced values (XLA programs cannot recurse).
    Staging retries with the Python int arguments of the recursive call specialised."""
    default_hint = ("rewrite the recursion as a while loop, or make its depth depend only "
                    "on Python ints passed as static arguments (static_argnums)")


class InternalCompilerError(TranspileError):
    code = "NPX999"
    default_hint = "this is a bug in npxla; please report it with the function that triggered it"
