"""The catalogue of refusals: each thing `@jit` refuses, declared once.

An entry holds the lint code, a stable name, the `TranspileError` class the compiler
raises, the message (a format string) and the hint. The converter and the runtime build
their errors from it (`Refusal.error`), and the lint rule with the same code takes its
message and compiler error from it, so `npxla lint` and `@jit` say the same thing about
the same code and cannot drift apart.
"""
from __future__ import annotations

from dataclasses import dataclass

from npxla.transpiler.base.errors import (Location, TranspileError,
                                          UnsupportedOperationError, UnsupportedSyntaxError)


@dataclass(frozen=True)
class Refusal:
    code: str                  # the lint code (NPX1xx)
    name: str                  # kebab-case, stable
    error: type                # the TranspileError subclass the compiler raises
    message: str               # format string; fields filled by whoever reports it
    hint: str = ""             # format string, same fields

    def text(self, **fields) -> str:
        return _fill(self.message, fields)

    def error_for(self, location: Location | None = None, cls: type | None = None,
                  **fields) -> TranspileError:
        """The compiler's exception for this refusal (`cls`: a subclass that carries
        more, such as the runtime's ContainerMutation)."""
        return (cls or self.error)(self.text(**fields), hint=_fill(self.hint, fields) or None,
                                   location=location)


def _fill(template, fields):
    try:
        return template.format(**fields)
    except (KeyError, IndexError):
        return template


REFUSALS: dict = {}


def _declare(*args, **kwargs) -> Refusal:
    refusal = Refusal(*args, **kwargs)
    assert refusal.code not in REFUSALS, refusal.code
    REFUSALS[refusal.code] = refusal
    return refusal


GENERATOR = _declare(
    "NPX101", "generator-function", UnsupportedSyntaxError,
    "'{what}' makes a generator, which cannot be compiled: XLA programs return once",
    "build the values into an array and return it")
REBIND_OUTSIDE = _declare(
    "NPX102", "global-statement", UnsupportedSyntaxError,
    "'{stmt}' cannot be compiled: a compiled function cannot rebind variables outside it",
    "pass {names} in as an argument and return the new value; assign it outside the "
    "jitted function")
ATTRIBUTE_STORE = _declare(
    "NPX103", "attribute-assignment", UnsupportedSyntaxError,
    "assigning to an attribute ('.{attr} = ...') cannot be compiled: the object lives "
    "outside the compiled program",
    "keep the value in a local variable (or return it) and set the attribute outside the "
    "jitted function")
ASYNC = _declare(
    "NPX104", "async-code", UnsupportedSyntaxError,
    "async code cannot be compiled",
    "use a plain def and plain for/with statements")
MATCH = _declare(
    "NPX105", "match-statement", UnsupportedSyntaxError,
    "match statements cannot be compiled yet",
    "write the cases as an if/elif chain")
WALRUS_IN_WHILE = _declare(
    "NPX106", "walrus-in-while-condition", UnsupportedSyntaxError,
    "an assignment expression (:=) in a while condition cannot be compiled: the condition "
    "is evaluated apart from the loop body",
    "assign the value before the loop and again at the end of the body, and test the "
    "variable")
JUMP_IN_FINALLY = _declare(
    "NPX107", "jump-in-finally", UnsupportedSyntaxError,
    "'{what}' inside 'finally' cannot be compiled: it would silently discard an exception "
    "being raised",
    "move the statement after the try statement")
TRY_AROUND_STAGED_FLOW = _declare(
    "NPX131", "try-around-data-dependent-flow", UnsupportedSyntaxError,
    "a data-dependent {kind} inside try/except cannot be compiled: the compiled program "
    "cannot raise, so the except clause would never run",
    "move the try/except outside the jitted function, or check the condition explicitly "
    "(e.g. with np.where) instead of catching an exception")
ELSE_ON_STAGED_LOOP = _declare(
    "NPX132", "else-on-data-dependent-loop", UnsupportedSyntaxError,
    "the else clause of a data-dependent {kind} loop cannot be compiled",
    "set a flag before 'break' and test it after the loop instead of 'else:'")
CONTAINER_MUTATION = _declare(
    "NPX133", "container-mutation-in-data-dependent-flow", UnsupportedOperationError,
    "{what} inside data-dependent control flow cannot be compiled: it would run once while "
    "compiling, not once per iteration or branch taken",
    "preallocate an array and assign into it (out[i] = ...), or build the list in a loop "
    "over a Python range/list outside data-dependent code")
RANDOM_STATE = _declare(
    "NPX141", "numpy-random-state", UnsupportedOperationError,
    "{what}, which a compiled function cannot reproduce (it cannot advance a random "
    "stream)",
    "draw the random numbers outside the jitted function (with the same generator or "
    "seed) and pass them in as an argument")
