"""Run one program under NumPy and under `jit`, and classify what happened.

Why a real file per program: `jit` reads the source (`inspect.getsource`), and a
located error renders the user's line from that file. Why a fresh module per run: the
jit cache is keyed by code objects and `linecache` by file name, so nothing from one
program can leak into the next. The outcome is one of

- ``agree``    values, dtypes, shapes, scalar types and the caller's arrays all match
               (bit for bit, NaN equal to NaN and the sign of zero counting, when the
               module sets `__fuzz_exact__ = True`; a view argument's base and every
               array's `writeable` flag too), or NumPy raised and `jit` raised the same
               exception class, leaving the caller's arrays untouched or as NumPy left
               them;
- ``refused``  `jit` raised a `TranspileError` that points into the program (by its
               location, or, raised at run time, by a note naming the user's line);
- ``mismatch`` `jit` returned something else, or returned where NumPy raised, or
               raised as NumPy did but left the caller's arrays in a third state;
- ``crash``    any other exception from `jit`, an `InternalCompilerError`, or a
               `TranspileError` with no location (or one outside the program);
- ``hang``     (shrinking only) an edit made the NumPy reference loop forever.

`Outcome.key` is the coarse signature the shrinker must keep while it shrinks.
"""
from __future__ import annotations

import atexit
import copy
import importlib
import importlib.util
import inspect
import itertools
import linecache
import os
import re
import shutil
import signal
import sys
import tempfile
import threading
import traceback
import types
import warnings
from dataclasses import dataclass

import numpy as np

from npxla import jit
from npxla.runtime.staging.abstract import AbstractArray
from npxla.transpiler.base.errors import InternalCompilerError, TranspileError
from npxla.runtime.driver import numpy_tier

# programs are compared with NumPy: never let a signature run as NumPy itself
numpy_tier.ENABLED = False

try:
    from differential import _compare, _copy
except ImportError:  # run as `python -m tests.fuzz` from the repository root
    from tests.differential import _compare, _copy

from .model import PACKAGE, PACKAGE_MARK

# "documented": a difference docs/semantics.md lists (NumPy cast an out-of-range or NaN
# float to an integer, which C leaves undefined and XLA saturates)
KINDS = ("agree", "refused", "documented", "mismatch", "crash")
_DIR = None
_COUNTER = itertools.count()
PROGRAM_TIMEOUT_S = 120     # jit: compile and run (a hang inside XLA is not interruptible)
REFERENCE_TIMEOUT_S = 10    # NumPy: generated programs take milliseconds
WATCHDOG_GRACE_S = 30       # after the alarm: the process is stuck inside XLA
HANG_EXIT_CODE = 70


@dataclass
class Outcome:
    kind: str            # one of KINDS
    key: str             # kind plus a coarse category, kept while shrinking
    detail: str = ""     # human-readable: the difference or the exception

    @property
    def failed(self) -> bool:
        return self.kind in ("mismatch", "crash")


def _tmpdir():
    global _DIR
    if _DIR is None:
        _DIR = tempfile.mkdtemp(prefix="npxla_fuzz_")
        atexit.register(shutil.rmtree, _DIR, True)
    return _DIR


def load_source(source: str, stem: str = "p"):
    """Write `source` to a fresh file and import it; returns (module, path). A program
    with an installed package (feature `helpers_pkg`) has its package written first
    (see `install_package`); `module.__fuzz_files__` lists every file written."""
    n = next(_COUNTER)
    source, package = split_package(source)
    files = []
    if package is not None:
        name, pkg_path = install_package(package, f"{PACKAGE}_{n}")
        source = re.sub(rf"\b{PACKAGE}\b", name, source)
        files.append(pkg_path)
    path = os.path.join(_tmpdir(), f"{stem}_{n}.py")
    with open(path, "w") as fh:
        fh.write(source)
    try:
        module = load_path(path, f"npxla_fuzz_{stem}_{n}")
    except BaseException:
        unload(None, files)
        raise
    module.__fuzz_files__ = [path] + files
    return module, path


def split_package(source: str):
    """(main module source, package source or None): see `model.PACKAGE_MARK`."""
    lines = source.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if line.rstrip() == PACKAGE_MARK:
            return "".join(lines[:i]), "".join(lines[i + 1:])
    return source, None


def install_package(source: str, name: str):
    """Write `source` as the package `name` under the run's `site-packages` folder (on
    sys.path: npxla treats it as an installed package); returns (name, file)."""
    site = os.path.join(_tmpdir(), "site-packages")
    folder = os.path.join(site, name)
    os.makedirs(folder, exist_ok=True)
    if site not in sys.path:
        sys.path.append(site)
    path = os.path.join(folder, "__init__.py")
    with open(path, "w") as fh:
        fh.write(source)
    importlib.invalidate_caches()
    return name, path


def unload(module, files=()):
    """Forget a loaded program: its module (and package) in sys.modules, its files."""
    files = list(files) or list(getattr(module, "__fuzz_files__", []))
    for path in files:
        linecache.checkcache(path)
        linecache.cache.pop(path, None)
        try:
            os.remove(path)
        except OSError:
            pass
        folder = os.path.dirname(path)
        if os.path.basename(os.path.dirname(folder)) == "site-packages":
            sys.modules.pop(os.path.basename(folder), None)
            shutil.rmtree(folder, True)
    if module is not None:
        sys.modules.pop(module.__name__, None)


def load_path(path: str, name: str | None = None):
    """Import the file as module `name`, registered in sys.modules as an import would
    (npxla replays `global` rebinding and finds module-level lists through it)."""
    name = name or "npxla_fuzz_" + re.sub(r"\W", "_", os.path.basename(path)[:-3])
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


# --- feature `effects`: the outside state a program changes ------------------------------
def materialise(args, module):
    """The arguments with each `NewState` built as the module's `State`. (Matched by
    class name: a child process may hold this module under another package name.)"""
    return [module.State(*copy.deepcopy(a.fields)) if type(a).__name__ == "NewState" else a
            for a in args]


_GLOBAL_TYPES = (bool, int, float, list, dict, set, np.ndarray, np.generic)


def _owner(fn):
    """The object a bound method `fn` belongs to (feature `private_attrs`), else None."""
    owner = getattr(fn, "__self__", None)
    if owner is None or isinstance(owner, (type, types.ModuleType)) or \
            not hasattr(owner, "__dict__"):
        return None
    return owner


def _globals_of(fn):
    """The data globals of `fn`'s module and, for a bound method, its object's data
    attributes (as `self.<name>`, mangled names included: `self._Model__w`)."""
    g = getattr(fn, "__globals__", {})
    out = {k: v for k, v in g.items() if not k.startswith("__") and isinstance(v, _GLOBAL_TYPES)}
    owner = _owner(fn)
    if owner is not None:
        out.update({"self." + k: v for k, v in vars(owner).items()
                    if isinstance(v, _GLOBAL_TYPES)})
    return out


class _Saved(dict):
    """Copies of the state `_globals_of` gives, with the original arrays (`originals`):
    an array is put back *in place*, so an array default (`def f(x, w=W)`, feature
    `default_args`) or any other holder of the array keeps seeing it."""

    def __init__(self, fn):
        now = _globals_of(fn)
        super().__init__(copy.deepcopy(now))
        self.originals = {k: v for k, v in now.items() if isinstance(v, np.ndarray)}


def _snapshot(fn):
    return _Saved(fn)


def _set_globals(fn, saved):
    """Put the module's data globals (and a bound method's object's attributes) back
    as `saved` (fresh copies; original arrays refilled in place)."""
    g = fn.__globals__
    owner = _owner(fn)
    for k in list(_globals_of(fn)):
        if k not in saved:
            if k.startswith("self."):
                delattr(owner, k[5:])
            else:
                del g[k]
    originals = getattr(saved, "originals", {})
    for k, v in copy.deepcopy(dict(saved)).items():
        old = originals.get(k)
        if old is not None and isinstance(v, np.ndarray) and old.shape == v.shape and \
                old.dtype == v.dtype:
            _refill(old, v)
            v = old
        if k.startswith("self."):
            setattr(owner, k[5:], v)
        else:
            g[k] = v


def _refill(dst, src):
    writeable = dst.flags.writeable
    try:
        if not writeable:
            dst.setflags(write=True)
        dst[...] = src
    finally:
        if not writeable:
            dst.setflags(write=False)


# --- feature `arg_layouts`: arguments that are views, non-contiguous or read-only --------
def copy_arg(a):
    """A fresh copy of an array argument with its layout: the same strides, the same
    offset into a fresh copy of its base when it is a view (so a write through it lands
    in that base, which the caller holds too), the same `writeable` flag."""
    if not isinstance(a, np.ndarray):
        return _copy(a)
    base = a.base
    if isinstance(base, np.ndarray) and base.dtype.itemsize and base.nbytes:
        nb = np.array(base, order="K", copy=True)
        off = a.__array_interface__["data"][0] - base.__array_interface__["data"][0]
        try:
            out = np.ndarray(a.shape, a.dtype, buffer=nb, offset=off, strides=a.strides)
        except (TypeError, ValueError):
            out = np.array(a, order="K", copy=True)
    else:
        out = np.array(a, order="K", copy=True)
    if not a.flags.writeable:
        out.setflags(write=False)
    return out


def fresh_args(args, deep=False):
    """Fresh copies of the arguments: arrays by `copy_arg` (one copy for an array passed
    twice), everything else by `_copy` or, with `deep` (outside state), `deepcopy`."""
    memo, out = {}, []
    for a in args:
        if isinstance(a, np.ndarray):
            if id(a) not in memo:
                memo[id(a)] = copy_arg(a)
            out.append(memo[id(a)])
        else:
            out.append(copy.deepcopy(a, memo) if deep else _copy(a))
    return out


def _layouts(np_args, actual_args, tol, atol, exact):
    """The caller's view arguments: their bases (which hold the elements around the
    view) and every array's `writeable` flag must be as NumPy left them."""
    for i, (e, a) in enumerate(zip(np_args, actual_args)):
        if not (isinstance(e, np.ndarray) and isinstance(a, np.ndarray)):
            continue
        assert e.flags.writeable == a.flags.writeable, \
            f"arguments after the call[{i}]: writeable {a.flags.writeable} != " \
            f"{e.flags.writeable}"
        if isinstance(e.base, np.ndarray) and isinstance(a.base, np.ndarray) and \
                e.base.shape == a.base.shape:
            _compare(e.base, a.base, tol, atol, f"arguments after the call[{i}].base")
            if exact:
                _zero_signs(e.base, a.base, f"arguments after the call[{i}].base")


# --- features `exact_float`, `float_int_casts`: bit-for-bit comparison -------------------
EXACT_MARK = "__fuzz_exact__"


def _is_exact(fn) -> bool:
    """Whether the program asks for bit-for-bit comparison (module global
    `__fuzz_exact__ = True`): no tolerance, the sign of zero counts, NaN equals NaN,
    and neither the out-of-range-cast nor the ill-conditioned label applies."""
    return bool(getattr(fn, "__globals__", {}).get(EXACT_MARK, False))


def _zero_signs(expected, actual, path="result"):
    """After `_compare` with no tolerance: the zeros' signs must match too."""
    if isinstance(expected, (tuple, list)):
        for i, (e, a) in enumerate(zip(expected, actual)):
            _zero_signs(e, a, f"{path}[{i}]")
        return
    if isinstance(expected, dict):
        for k in expected:
            _zero_signs(expected[k], actual[k], f"{path}[{k!r}]")
        return
    if not isinstance(expected, (float, np.floating, np.ndarray)):
        return
    e, a = np.asarray(expected), np.asarray(actual)
    if e.dtype.kind != "f" or e.shape != a.shape:
        return
    bad = (e == 0) & (a == 0) & (np.signbit(e) != np.signbit(a))
    if np.any(bad):
        at = tuple(int(i[0]) for i in np.nonzero(bad)) if bad.ndim else ()
        raise AssertionError(f"{path}: not equal: the sign of zero differs at {at}: "
                             f"NumPy {e[at]!r}, jit {a[at]!r}")


# --- feature `default_args`: two calls, the module changed in between --------------------
BETWEEN = "__fuzz_between__"


def _two_calls(call, between):
    """`call` twice on the same arguments, `between()` in between (it changes the array
    default `W` in place, or rebinds it); the results as copies taken at once. When the
    second call raises, the exception carries the arguments as that call found them
    (`__fuzz_args_before__`): what "untouched by the raising call" means there."""
    def twice(*args):
        first = copy.deepcopy(call(*args))
        between()
        before = [copy_arg(a) if isinstance(a, np.ndarray) else copy.deepcopy(a)
                  for a in args]
        try:
            second = call(*args)
        except Exception as e:
            e.__fuzz_args_before__ = before
            raise
        return first, copy.deepcopy(second)
    return twice


def has_state(fn, args) -> bool:
    """Whether the program works on outside state (objects, containers, globals)."""
    return bool(_globals_of(fn)) or any(
        isinstance(a, (list, dict, set)) or hasattr(a, "__dict__") for a in args)


def observe(x, seen=None):
    """A comparable tree of `x`: objects as {'__class__': name, attributes...}."""
    seen = set() if seen is None else seen
    if isinstance(x, (list, tuple)):
        return type(x)(observe(v, seen) for v in x)
    if isinstance(x, dict):
        return {k: observe(v, seen) for k, v in x.items()}
    if isinstance(x, set):
        return sorted(map(repr, x))
    if hasattr(x, "__dict__") and not isinstance(x, (type, AbstractArray)) and \
            id(x) not in seen:
        seen.add(id(x))
        return {"__class__": type(x).__name__, **{k: observe(v, seen)
                                                 for k, v in vars(x).items()}}
    return x


def traced_in(tree, seen=None) -> bool:
    """Whether a traced value (an `AbstractArray`) is anywhere in `tree`."""
    seen = set() if seen is None else seen
    if id(tree) in seen:
        return False
    seen.add(id(tree))
    if isinstance(tree, AbstractArray):
        return True
    if isinstance(tree, (list, tuple, set)):
        return any(traced_in(v, seen) for v in tree)
    if isinstance(tree, dict):
        return any(traced_in(v, seen) for v in tree.values())
    if hasattr(tree, "__dict__") and not isinstance(tree, type):
        return any(traced_in(v, seen) for v in vars(tree).values())
    return False


def _forget_jits():
    """Drop the jitted objects of past programs (a 100,000-program run would otherwise
    hold thousands of executables); each program gets a fresh `jit(f)` anyway."""
    try:
        from npxla.runtime.driver import api
        api._JITTED.clear()
    except (ImportError, AttributeError):
        pass


def _float_scale(*trees):
    """(is any float32 involved, largest finite magnitude) over results and arguments."""
    single, biggest = False, 0.0

    def walk(x):
        nonlocal single, biggest
        if isinstance(x, (list, tuple)):
            for i in x:
                walk(i)
            return
        if isinstance(x, dict):
            for i in x.values():
                walk(i)
            return
        a = np.asarray(x) if isinstance(x, (np.ndarray, np.generic, float)) else None
        if a is not None and a.dtype.kind == "f":
            single |= a.dtype == np.float32
            fin = a[np.isfinite(a)]
            if fin.size:
                biggest = max(biggest, float(np.max(np.abs(fin.astype(np.float64)))))
    for t in trees:
        walk(t)
    return single, biggest


def _mismatch_key(message: str) -> str:
    where = "args" if "arguments after the call" in message else \
        "globals" if "globals after the call" in message else "result"
    if "not equal" in message.strip().splitlines()[0].lower() or "tolerance" in message:
        what = "value"
    elif "Python" in message and "expected" in message:
        what = "pytype"
    elif "dtype" in message:
        what = "dtype"
    elif "shape" in message:
        what = "shape"
    elif "length differs" in message or "<class" in message:
        what = "structure"
    else:
        what = "value"
    return f"mismatch:{where}:{what}"


def _normalise(message: str) -> str:
    first = (message.strip().splitlines() or [""])[0]
    first = re.sub(r"\d+", "N", first)
    first = re.sub(r"'[^']*'|\"[^\"]*\"|`[^`]*`", "Q", first)
    return first[:60]


class _Timeout(Exception):
    pass


def _alarm(seconds):
    if seconds and hasattr(signal, "SIGALRM"):
        def handler(signum, frame):
            raise _Timeout(f"no result after {seconds} s")
        try:
            signal.signal(signal.SIGALRM, handler)
            signal.alarm(seconds)
            return True
        except ValueError:  # not the main thread
            pass
    return False


def _hung(fn, path, args):
    """The compiled program never returned (a loop running forever inside XLA cannot be
    interrupted): print the program, so the hang is a bug report, and end the process
    rather than hold a CI machine forever."""
    try:
        source = open(path).read() if path else inspect.getsource(fn)
    except OSError:
        source = "<source unavailable>"
    sys.stderr.write(f"\nnpxla fuzz: jit(f) did not return within "
                     f"{PROGRAM_TIMEOUT_S + WATCHDOG_GRACE_S} s (NumPy did); program:\n"
                     f"{source}\n# args: {args!r}\n")
    sys.stderr.flush()
    os._exit(HANG_EXIT_CODE)


def run_function(fn, args, path=None, rtol=None) -> Outcome:
    """Run `fn(*args)` under NumPy and under a fresh `jit(fn)`; classify the outcome.
    `path`: the program's file, or a list of its files (a refusal must point into one).

    A program that works on outside state (feature `effects`: objects, lists, dicts,
    module globals) runs on deep copies of its arguments, with the module's globals put
    back before each run; the objects and globals after the call are compared too, and
    the jitted function is called a second time (served from its cache: the effects
    must be replayed again). After a refusal they must be as they were before the call,
    with no traced value left anywhere in them."""
    stateful = has_state(fn, args)
    exact = _is_exact(fn)
    between = getattr(fn, "__globals__", {}).get(BETWEEN)
    between = between if callable(between) else None
    call = _two_calls(fn, between) if between else fn
    fresh = lambda: fresh_args(args, deep=stateful)   # noqa: E731
    globals0 = _snapshot(fn) if stateful else None
    np_args = fresh()
    np_exc = expected = None
    armed = _alarm(REFERENCE_TIMEOUT_S)
    with np.errstate(all="ignore", invalid="warn"), warnings.catch_warnings(record=True) \
            as seen:
        warnings.simplefilter("always")
        try:
            expected = call(*np_args)
        except _Timeout as e:  # only a shrinking edit can unbound a loop
            return Outcome("hang", "hang", str(e))
        except Exception as e:  # noqa: BLE001 - the reference may legitimately raise
            np_exc = e
        finally:
            if armed:
                signal.alarm(0)
    np_globals = None
    if stateful:
        np_globals = observe(copy.deepcopy(_globals_of(fn)))
        expected = copy.deepcopy(expected)   # it may hold a global that is put back
        _set_globals(fn, globals0)
    _forget_jits()
    jitted = jit(fn)
    jit_call = _two_calls(jitted, between) if between else jitted
    outcome = None
    try:
        for n_call in range(2 if stateful else 1):
            jit_args = fresh()
            outcome = _run_jitted(jit_call, fn, path, args, jit_args)
            if isinstance(outcome, Outcome):
                return outcome
            jit_exc, actual = outcome
            outcome = _classify(np_exc, expected, np_args, jit_exc, actual, jit_args, path,
                                rtol, np_globals,
                                observe(_globals_of(fn)) if stateful else None,
                                exact=exact, args0=args)
            if stateful:
                outcome = _check_state(outcome, args, jit_args, globals0, fn)
                _set_globals(fn, globals0)
            if outcome.kind != "agree":
                if n_call:
                    outcome.key += ":call2"
                break
    finally:
        _forget_jits()
    if exact:   # no label excuses a difference of bits here
        return outcome
    if outcome.kind == "mismatch" and any("encountered in cast" in str(w.message)
                                          for w in seen):
        return Outcome("documented", "documented:float-to-int cast out of range",
                       outcome.detail)
    if outcome.key.endswith(":value") and _ill_conditioned(call, args, expected, np_args,
                                                           rtol, globals0, fn):
        return Outcome("documented", "documented:ill-conditioned", outcome.detail)
    return outcome


def _run_jitted(jitted, fn, path, args, jit_args):
    """(exception or None, result) of one call of the jitted function, or an Outcome
    when it timed out."""
    jit_exc = actual = None
    armed = _alarm(PROGRAM_TIMEOUT_S)
    watchdog = threading.Timer(PROGRAM_TIMEOUT_S + WATCHDOG_GRACE_S, _hung,
                               (fn, _first(path), args))
    watchdog.daemon = True
    watchdog.start()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            actual = jitted(*jit_args)
    except _Timeout as e:
        return Outcome("crash", "crash:timeout", str(e))
    except Exception as e:  # noqa: BLE001 - classified by the caller
        jit_exc = e
    finally:
        watchdog.cancel()
        if armed:
            signal.alarm(0)
    return jit_exc, actual


def _first(path):
    return path[0] if isinstance(path, (list, tuple)) else path


def _check_state(outcome, args, jit_args, globals0, fn):
    """Feature `effects`: no traced value may reach the objects, containers or globals;
    after a refusal they must be unchanged."""
    now = _globals_of(fn)
    if traced_in(jit_args) or traced_in(now):
        return Outcome("mismatch", f"mismatch:traced-left:{outcome.kind}",
                       f"a traced value was left in the arguments or module globals after "
                       f"the call ({outcome.kind})\n{outcome.detail[:1500]}")
    if outcome.kind == "refused":
        try:
            _compare(observe(list(args)), observe(jit_args), 0, 0, "arguments after the call")
            _compare(observe(globals0), observe(now), 0, 0, "globals after the call")
        except AssertionError as e:
            return Outcome("mismatch", "mismatch:refused-but-changed",
                           f"jit refused, yet changed outside state: {str(e).strip()[:1500]}"
                           f"\n{outcome.detail[:1500]}")
    return outcome
def _ill_conditioned(fn, args, expected, np_args, rtol, globals0=None, owner_fn=None) -> bool:
    """Whether NumPy's own answer moves past the tolerance when every finite nonzero
    float argument element moves by one ulp. Such a program (a product of column sums
    repeated 60 times over float32 data) amplifies rounding: summing the same values in
    another order changes NumPy's result as much as XLA's order does, so a difference
    says nothing about npxla (docs/semantics.md: reductions may round differently)."""
    moved = [_moved(a) if isinstance(a, np.ndarray) and a.dtype.kind == "f" else a
             for a in args]
    moved_args = fresh_args(moved, deep=globals0 is not None)
    armed = _alarm(REFERENCE_TIMEOUT_S)
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            again = fn(*moved_args)
    except Exception:  # noqa: BLE001 - a reference that now raises: not this case
        return False
    finally:
        if armed:
            signal.alarm(0)
        if globals0 is not None:
            _set_globals(owner_fn or fn, globals0)
    try:
        _agree(expected, np_args, again, moved_args, rtol)
    except AssertionError:
        return True
    return False


def _moved(a):
    """`a` with every finite nonzero element one ulp towards zero, in `a`'s layout."""
    out = copy_arg(a)
    _refill(out, np.where(np.isfinite(a) & (a != 0), np.nextafter(a, np.zeros((), a.dtype)),
                          a))
    return out


def _agree(expected, np_args, actual, actual_args, rtol, globals_pair=None, exact=False):
    """Raise AssertionError unless results and arguments after the call (and, feature
    `effects`, the objects in them and the module's globals) match NumPy's within the
    fuzzer's tolerance (relative 1e-9, float32 2e-4; absolute scaled by the largest
    finite magnitude); with `exact`, bit for bit (NaN equals NaN)."""
    raw_np, raw_actual = np_args, actual_args
    np_args, actual_args = observe(np_args), observe(actual_args)
    single, biggest = _float_scale(expected, np_args,
                                   *(globals_pair[:1] if globals_pair else ()))
    tol = 0.0 if exact else rtol or (2e-4 if single else 1e-9)
    atol = tol * (1.0 + biggest)
    _compare(expected, actual, tol, atol)
    _compare(np_args, actual_args, tol, atol, "arguments after the call")
    if globals_pair is not None:
        _compare(globals_pair[0], globals_pair[1], tol, atol, "globals after the call")
    if exact:
        _zero_signs(expected, actual)
        _zero_signs(np_args, actual_args, "arguments after the call")
        if globals_pair is not None:
            _zero_signs(globals_pair[0], globals_pair[1], "globals after the call")
    if isinstance(raw_np, (list, tuple)) and isinstance(raw_actual, (list, tuple)):
        _layouts(raw_np, raw_actual, tol, atol, exact)


def _classify(np_exc, expected, np_args, jit_exc, actual, jit_args, path, rtol,
              np_globals=None, jit_globals=None, exact=False, args0=None):
    np_name = type(np_exc).__name__ if np_exc is not None else None
    if jit_exc is not None:
        desc = f"{type(jit_exc).__name__}: {jit_exc}"
        if isinstance(jit_exc, InternalCompilerError):
            return Outcome("crash", f"crash:{_normalise(str(jit_exc.message))}", desc)
        if np_exc is not None and isinstance(jit_exc, type(np_exc)):
            if args0 is not None:
                # docs/semantics.md: an exception leaves the caller's arrays untouched
                # (or, where NumPy raised after its own writes, as NumPy left them)
                untouched = _agrees(getattr(jit_exc, "__fuzz_args_before__", args0),
                                    jit_args, exact)
                if untouched is not None and _agrees(np_args, jit_args, exact) is not None:
                    return Outcome("mismatch", f"mismatch:args-after-raise:{np_name}",
                                   f"both raised {np_name} ({desc}); the arguments after "
                                   f"the call are neither the caller's nor NumPy's: "
                                   f"{untouched[:1500]}")
            if np_globals is not None:   # the state NumPy left before raising
                try:
                    _agree(None, np_args, None, jit_args, rtol,
                           (np_globals, jit_globals))
                except AssertionError as e:
                    # docs/semantics.md: a program that raises does not write back
                    # what it changed before the exception (NumPy keeps those changes)
                    return Outcome("documented", "documented:raised-after-effects",
                                   f"both raised {np_name}; outside state differs: "
                                   f"{str(e).strip()[:1500]}")
            return Outcome("agree", f"agree:raised:{np_name}", desc)
        if isinstance(jit_exc, TranspileError):
            loc = jit_exc.location
            files = [path] if isinstance(path, str) else path
            if loc is None:
                # raised at run time (a value compiled code cannot hold: `int()` of a
                # float beyond int64, docs/semantics.md): the user's line is in a note
                noted = _noted_file(jit_exc)
                if noted and files and os.path.abspath(noted) in map(os.path.abspath, files):
                    return Outcome("refused", f"refused:{type(jit_exc).__name__}:run-time",
                                   desc + "".join("\n" + n for n in jit_exc.__notes__))
                return Outcome("crash", f"crash:unlocated:{type(jit_exc).__name__}", desc)
            if files and os.path.abspath(loc.file) not in map(os.path.abspath, files):
                return Outcome("crash", f"crash:badloc:{type(jit_exc).__name__}",
                               f"located at {loc.file}:{loc.line}, not in the program\n{desc}")
            return Outcome("refused", f"refused:{type(jit_exc).__name__}", desc)
        tb = "".join(traceback.format_exception(jit_exc)[-6:])
        key = f"crash:{type(jit_exc).__name__}:{_normalise(str(jit_exc))}"
        return Outcome("crash", key + (f":np={np_name}" if np_name else ""), tb)
    if np_exc is not None:
        return Outcome("mismatch", f"mismatch:noraise:{np_name}",
                       f"NumPy raised {np_name}: {np_exc}; jit returned {actual!r}")
    try:
        _agree(expected, np_args, actual, jit_args, rtol,
               None if np_globals is None else (np_globals, jit_globals), exact=exact)
    except AssertionError as e:
        msg = str(e)
        return Outcome("mismatch", _mismatch_key(msg),
                       f"{msg.strip()[:1500]}\nNumPy: {expected!r}\njit:   {actual!r}")
    return Outcome("agree", "agree")


def _noted_file(exc):
    """The file of the first `path:line:col` note of `exc` (run-time errors name the
    user's line in a note), or None."""
    for note in getattr(exc, "__notes__", None) or ():
        m = re.match(r"(.+?):\d+:\d+\n", note)
        if m:
            return m.group(1)
    return None


def _agrees(expected_args, actual_args, exact):
    """None when the arguments agree (as `_agree` compares them), else the message."""
    try:
        _agree(None, list(expected_args), None, list(actual_args), None, exact=exact)
    except AssertionError as e:
        return str(e).strip()
    return None


def run_source(source: str, args, stem: str = "p") -> Outcome:
    """Run a generated program (module source defining `f`) and clean up after it."""
    try:
        module, path = load_source(source, stem)
    except Exception as e:  # noqa: BLE001 - not a program at all (hand-edited input)
        return Outcome("invalid", "invalid", f"{type(e).__name__}: {e}")
    try:
        try:
            args = materialise(args, module)
        except Exception as e:  # noqa: BLE001 - a shrinking edit removed `State`
            return Outcome("invalid", "invalid", f"{type(e).__name__}: {e}")
        fn = getattr(module, "f", None)
        if fn is None:   # a shrinking edit removed `f = OBJ.f` (feature `private_attrs`)
            return Outcome("invalid", "invalid", "no function `f`")
        return run_function(fn, args, module.__fuzz_files__)
    finally:
        unload(module)


def run_isolated(source: str, args, timeout: float = 30.0) -> Outcome:
    """`run_source` in a child process: the way to shrink a program whose compiled form
    never returns (the outcome is then ``crash:hang``). Slow (a fresh interpreter and
    JAX per call), so only for that case."""
    import pickle
    import subprocess
    payload = pickle.dumps((source, list(args)))
    code = ("import pickle, sys; sys.path[:0] = [{tests!r}, {root!r}]; import fuzz; "
            "from fuzz.runner import run_source; s, a = pickle.load(sys.stdin.buffer); "
            "o = run_source(s, a); sys.stdout.write(pickle.dumps(o).hex())")
    tests = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    code = code.format(tests=tests, root=os.path.dirname(tests))
    try:
        done = subprocess.run([sys.executable, "-c", code], input=payload, timeout=timeout,
                              capture_output=True)
    except subprocess.TimeoutExpired:
        finished, raised = _reference_finishes(source, args)
        if not finished:
            return Outcome("hang", "hang", "the NumPy reference does not finish either")
        return Outcome("crash", "crash:hang" + (f":np={raised}" if raised else ""),
                       f"jit: no result after {timeout} s; NumPy "
                       + (f"raised {raised}" if raised else "returned"))
    if done.returncode != 0 or not done.stdout:
        return Outcome("crash", f"crash:exit{done.returncode}", done.stderr.decode()[-2000:])
    return pickle.loads(bytes.fromhex(done.stdout.decode()))


def _reference_finishes(source: str, args):
    """(does NumPy finish, the class name of what it raised or None)."""
    module, path = load_source(source, "ref")
    armed = _alarm(REFERENCE_TIMEOUT_S)
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            module.f(*copy.deepcopy(materialise(args, module)))
    except _Timeout:
        return False, None
    except Exception as e:  # noqa: BLE001 - raising is finishing
        return True, type(e).__name__
    finally:
        if armed:
            signal.alarm(0)
        unload(module)
    return True, None


def encode_args(args):
    """The arguments for pickling: an array with a layout pickle would lose (a view, a
    non-C-contiguous or read-only array: feature `arg_layouts`) as its `literal`."""
    from .regress import literal
    return [("__literal__", literal(a)) if isinstance(a, np.ndarray) and (
        a.base is not None or not a.flags.c_contiguous or not a.flags.writeable) else a
        for a in args]


def decode_args(args):
    return [eval(a[1], {"np": np}) if isinstance(a, tuple) and len(a) == 2
            and a[0] == "__literal__" else a for a in args]


class IsolatedRunner:
    """`run_source` in one long-lived child process, restarted when it dies.

    Why: a native crash (a segfault or abort inside XLA) would end the whole campaign
    and lose which program caused it. Here the child runs one program at a time; if it
    dies, the program it was running is a ``crash:died:<signal or exit code>`` outcome
    (with the tail of the child's stderr, where `faulthandler` writes the native stack)
    and the next program gets a fresh child. Cheaper than `run_isolated` (one interpreter
    and one JAX import per child, not per program)."""

    _CHILD = ("import faulthandler, pickle, struct, sys; faulthandler.enable(); "
              "sys.path[:0] = [{tests!r}, {root!r}]; import fuzz; "
              "from fuzz.runner import run_source, decode_args\n"
              "inp, out = sys.stdin.buffer, sys.stdout.buffer\n"
              "while True:\n"
              "    head = inp.read(8)\n"
              "    if len(head) < 8: break\n"
              "    s, a = pickle.loads(inp.read(struct.unpack('<Q', head)[0]))\n"
              "    o = run_source(s, decode_args(a))\n"
              "    data = pickle.dumps((o.kind, o.key, o.detail))\n"
              "    out.write(struct.pack('<Q', len(data)) + data); out.flush()\n")

    def __init__(self, timeout: float = PROGRAM_TIMEOUT_S + WATCHDOG_GRACE_S + 30):
        self.timeout = timeout
        self.proc = None
        self.err = None

    def _start(self):
        import subprocess
        tests = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        code = self._CHILD.format(tests=tests, root=os.path.dirname(tests))
        self.err = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.err)

    def _stderr_tail(self):
        try:
            self.err.seek(0)
            return self.err.read().decode(errors="replace")[-3000:]
        except (OSError, ValueError):
            return ""

    def run(self, source: str, args) -> Outcome:
        import pickle
        import struct
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        data = pickle.dumps((source, encode_args(args)))
        result = {}

        def talk():
            try:
                self.proc.stdin.write(struct.pack("<Q", len(data)) + data)
                self.proc.stdin.flush()
                head = self.proc.stdout.read(8)
                if len(head) == 8:
                    result["o"] = Outcome(*pickle.loads(self.proc.stdout.read(
                        struct.unpack("<Q", head)[0])))
            except (OSError, EOFError, pickle.UnpicklingError):
                pass
        t = threading.Thread(target=talk, daemon=True)
        t.start()
        t.join(self.timeout)
        if "o" in result:
            return result["o"]
        if t.is_alive():
            self.proc.kill()
        rc = self.proc.wait()
        tail = self._stderr_tail()
        self.proc = None
        if rc == HANG_EXIT_CODE:
            return Outcome("crash", "crash:timeout", tail)
        how = f"signal{-rc}" if rc < 0 else f"exit{rc}"
        return Outcome("crash", f"crash:died:{how}", f"the child process died ({how})\n{tail}")

    def close(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(10)
            except Exception:  # noqa: BLE001
                self.proc.kill()
        self.proc = None
