"""Run one corpus case under NumPy and under `npxla.jit`, and classify the outcome.

Every case is run twice on two identical, independent copies of its inputs (and of the
object whose method it calls): once plainly, once through `npxla.jit`. The second call
uses fresh inputs of the same shapes (another seed), so it runs from the jitted
function's cache, and the objects carry their state over from the first call, so
recorded side effects must replay on every call. After each call the return values,
every argument and the object's `__dict__` are compared recursively.

Outcomes (the issue's classes):
  agree               every compared value equal (dtype, shape, values within tolerance)
  refused-located     `npxla.TranspileError` whose `location` names a file and a line
  refused-unlocated   `npxla.TranspileError` without a usable location
  crash               any other exception from the jitted call
  silent-difference   the jitted call returned, but something differs from NumPy
  invalid-case        the plain NumPy call itself failed: a bug in the corpus table
"""
from __future__ import annotations

import copy
import dataclasses
import math
import os
import time
import traceback
import warnings

import numpy as np

RTOL = 1e-12
ATOL = 1e-12

AGREE = "agree"
LOCATED = "refused-located"
UNLOCATED = "refused-unlocated"
CRASH = "crash"
SILENT = "silent-difference"
INVALID = "invalid-case"
ACCEPTED = (AGREE, LOCATED)


@dataclasses.dataclass
class Outcome:
    kind: str
    reason: str = ""
    error: str = ""          # class name of the exception, if any
    call: int = 0            # which call (1 or 2) decided the outcome
    seconds: float = 0.0
    recompiled: bool = False  # the second call did not run from the cache

    def __str__(self):
        head = f"{self.kind}" + (f" (call {self.call})" if self.call else "")
        return f"{head}: {self.reason}" if self.reason else head


# values deepcopy shares between the copies: the same object on both sides
_SHARED_KINDS = ("function", "method", "module", "builtin_function_or_method")


class _Mismatch(Exception):
    pass


# ---------------------------------------------------------------- recursive comparison

def _is_arraylike_scalar(x):
    return isinstance(x, (np.ndarray, np.generic))


def compare(expected, actual, path="result", seen=None):
    """Raise `_Mismatch` naming the first place where `actual` differs from `expected`."""
    seen = set() if seen is None else seen
    key = (id(expected), id(actual))
    if key in seen:
        return
    seen.add(key)
    if type(expected) is not type(actual):
        raise _Mismatch(f"{path}: type {type(actual).__name__}, NumPy gives "
                        f"{type(expected).__name__}")
    if _is_arraylike_scalar(expected):
        if expected.dtype != actual.dtype:
            raise _Mismatch(f"{path}: dtype {actual.dtype}, NumPy gives {expected.dtype}")
        if np.shape(expected) != np.shape(actual):
            raise _Mismatch(f"{path}: shape {np.shape(actual)}, NumPy gives "
                            f"{np.shape(expected)}")
        if expected.dtype.kind in "fc":
            try:
                np.testing.assert_allclose(actual, expected, rtol=RTOL, atol=ATOL,
                                           equal_nan=True)
            except AssertionError as e:
                lines = [ln for ln in str(e).splitlines() if ln.strip()]
                raise _Mismatch(f"{path}: values differ ({'; '.join(lines[1:4])})") from None
        elif expected.dtype.kind == "O":
            for i, (e_, a_) in enumerate(zip(np.ravel(expected), np.ravel(actual))):
                compare(e_, a_, f"{path}.flat[{i}]", seen)
        elif not np.array_equal(expected, actual):
            raise _Mismatch(f"{path}: values differ")
        return
    if isinstance(expected, float):
        if not (expected == actual or (math.isnan(expected) and math.isnan(actual)) or
                math.isclose(expected, actual, rel_tol=RTOL, abs_tol=ATOL)):
            raise _Mismatch(f"{path}: {actual!r}, NumPy gives {expected!r}")
        return
    if isinstance(expected, complex):
        if not (expected == actual or abs(expected - actual) <= ATOL + RTOL * abs(expected)):
            raise _Mismatch(f"{path}: {actual!r}, NumPy gives {expected!r}")
        return
    if isinstance(expected, (int, str, bytes, bool, type(None), range, slice)):
        if expected != actual:
            raise _Mismatch(f"{path}: {actual!r}, NumPy gives {expected!r}")
        return
    if isinstance(expected, (list, tuple)):
        if len(expected) != len(actual):
            raise _Mismatch(f"{path}: length {len(actual)}, NumPy gives {len(expected)}")
        for i, (e_, a_) in enumerate(zip(expected, actual)):
            compare(e_, a_, f"{path}[{i}]", seen)
        if hasattr(expected, "__dict__") and not isinstance(expected, tuple):
            compare(vars(expected), vars(actual), f"{path}.__dict__", seen)
        return
    if isinstance(expected, dict):
        if list(expected) != list(actual):
            raise _Mismatch(f"{path}: keys {list(actual)!r}, NumPy gives {list(expected)!r}")
        for k in expected:
            compare(expected[k], actual[k], f"{path}[{k!r}]", seen)
        return
    if isinstance(expected, (set, frozenset)):
        if expected != actual:
            raise _Mismatch(f"{path}: {actual!r}, NumPy gives {expected!r}")
        return
    if callable(expected) and not hasattr(expected, "__dict__") or \
            isinstance(expected, type) or type(expected).__name__ in _SHARED_KINDS:
        # functions, classes, modules: deepcopy shares them, so they must be the same one
        if expected is not actual and getattr(expected, "__code__", None) is not \
                getattr(actual, "__code__", 0):
            raise _Mismatch(f"{path}: {actual!r}, NumPy gives {expected!r}")
        return
    if isinstance(expected, np.random.Generator):
        compare(expected.bit_generator.state, actual.bit_generator.state, f"{path}.state", seen)
        return
    if hasattr(expected, "__dict__"):
        compare(vars(expected), vars(actual), f"{path}.__dict__", seen)
        return
    if hasattr(type(expected), "__slots__"):
        for name in type(expected).__slots__:
            compare(getattr(expected, name, None), getattr(actual, name, None),
                    f"{path}.{name}", seen)
        return
    if expected != actual:
        raise _Mismatch(f"{path}: {actual!r}, NumPy gives {expected!r}")


# ---------------------------------------------------------------- running a case

def _bound(target):
    """The callable of a built case: a function, or (object, method name)."""
    if isinstance(target, tuple):
        obj, name = target
        return getattr(obj, name), obj
    return target, None


def _short(text, limit=300):
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _where(location):
    file = os.path.relpath(location.file) if not str(location.file).startswith("<") \
        else location.file
    if "site-packages" in str(location.file):
        file = str(location.file).split("site-packages" + os.sep, 1)[1]
    return f"{file}:{location.line}"


def _classify_error(err):
    from npxla import TranspileError
    if isinstance(err, TranspileError):
        loc = getattr(err, "location", None)
        message = _short(err.message.splitlines()[0] if err.message else str(err))
        if loc is not None and getattr(loc, "file", None) and getattr(loc, "line", None):
            return LOCATED, f"{type(err).__name__}: {message} [at {_where(loc)}]"
        return UNLOCATED, f"{type(err).__name__}: {message} [no location]"
    tb = traceback.extract_tb(err.__traceback__)
    where = f" [raised at {os.path.basename(tb[-1].filename)}:{tb[-1].lineno}]" if tb else ""
    return CRASH, f"{type(err).__name__}: {_short(str(err))}{where}"


def _quiet(fn, args, kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            return fn(*args, **kwargs)


def _count_builds(jitted):
    """Count the jitted function's stagings (a private hook; absent -> None)."""
    build = getattr(jitted, "_build", None)
    if build is None:
        return None
    counter = [0]

    def counting(*a, **k):
        counter[0] += 1
        return build(*a, **k)
    try:
        jitted._build = counting
    except Exception:
        return None
    return counter


def run_case(case, calls=2):
    """Run `case` (a corpus.Case) plainly and under `npxla.jit`; return an Outcome."""
    import npxla

    start = time.perf_counter()
    built = case.build(0)
    plain_state = copy.deepcopy(built)
    jit_state = copy.deepcopy(built)
    plain_fn, plain_obj = _bound(plain_state.target)
    jit_fn, jit_obj = _bound(jit_state.target)
    jitted = None
    counter = None
    builds_after_first = None
    for call in range(1, calls + 1):
        if call == 1:
            p_args, p_kwargs = plain_state.args, plain_state.kwargs
            j_args, j_kwargs = jit_state.args, jit_state.kwargs
        else:
            fresh = case.build(1)
            p_args, p_kwargs = copy.deepcopy((fresh.args, fresh.kwargs))
            j_args, j_kwargs = copy.deepcopy((fresh.args, fresh.kwargs))
        try:
            expected = _quiet(plain_fn, p_args, p_kwargs)
        except Exception as e:
            return Outcome(INVALID, f"the plain NumPy call failed: {type(e).__name__}: "
                                    f"{_short(e)}", type(e).__name__, call,
                           time.perf_counter() - start)
        try:
            if jitted is None:
                jitted = npxla.jit(jit_fn)
                counter = _count_builds(jitted)
            actual = _quiet(jitted, j_args, j_kwargs)
        except Exception as e:
            kind, reason = _classify_error(e)
            return Outcome(kind, reason, type(e).__name__, call, time.perf_counter() - start)
        try:
            compare(expected, actual, "return")
            compare(p_args, j_args, "args")
            compare(p_kwargs, j_kwargs, "kwargs")
            if plain_obj is not None:
                compare(plain_obj, jit_obj, "self")
        except _Mismatch as e:
            return Outcome(SILENT, _short(e), "", call, time.perf_counter() - start)
        if call == 1 and counter is not None:
            builds_after_first = counter[0]
    recompiled = counter is not None and builds_after_first is not None and \
        counter[0] > builds_after_first
    return Outcome(AGREE, "second call staged again (no cache hit)" if recompiled else "",
                   "", 0, time.perf_counter() - start, recompiled)
