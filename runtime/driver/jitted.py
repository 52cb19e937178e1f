"""The compiled callable: signature -> cached executable -> NumPy results.

The per-call path does only: flatten, build the key, one dict lookup, run the
variant's guard (see `guards`: what the program read from its environment still holds;
it returns the implicit array inputs), upload, execute, download. Everything else
happens once per signature and environment in `_build`, under a per-signature lock so
that threads calling a fresh function at once compile it once.
"""
from __future__ import annotations

import inspect
import threading
import time
import types

from typing import Any

import numpy as np

from npxla.transpiler.base.errors import (ConcretizationError, InternalCompilerError,
                                          Location, TranspileError,
                                          UnsupportedOperationError)

from npxla.runtime import numpy as _np_registry  # noqa: F401  (registers the NumPy API)
from npxla.runtime.staging.pytree import check_static, flatten, leaf_key
from npxla.runtime.driver.forwarding import forwarder
from npxla.runtime.driver import argspec, cacheinfo, guards, reasons, residency, runpath
from npxla.runtime.driver.byteorder import native_order
from npxla.runtime.driver.compiled import Compiled
from npxla.runtime.driver import log
from npxla.runtime.driver.lowered import Lowered, call_key, describe
from npxla.runtime.driver import numpy_tier
from npxla.runtime.cache import persist
from npxla.runtime import operators
from npxla.runtime.operators import loops
from npxla.runtime.operators.conditionals import raises_at_run_time
from npxla.runtime.operators.mutation import ContainerMutation
from npxla.runtime.driver import staging
from npxla.runtime.driver.staging import (READ_ONLY, key_parts, memory_sharing, stage,
                                          read_only_leaves)
from npxla.runtime.numpy.indexing.bounded_window import speculates, widened
from npxla.runtime.staging.bounded import WindowOverflow
from npxla.runtime.staging.speculation import RerunSignal, assumes
from npxla.runtime.driver.assumed import Assumptions
from npxla.runtime.lowering.callbacks import redo_unsafe
from npxla.runtime.driver.failures import classify, hidden_concretization, located
from npxla.runtime.staging.trace import current_trace
from npxla.runtime.xla import devices, resident
from npxla.runtime.xla.resident import DeviceArray
from npxla.transpiler.base.catalogue import INT_ARGUMENT_OVERFLOW
from npxla.transpiler.conversion import convert, refuse_generator

_np_registry.load_all()
_INT64_MIN, _INT64_MAX = -2 ** 63, 2 ** 63 - 1
_SPECIALISABLE = (int, bool, float)
_PY_SCALARS = frozenset({int, float, bool, complex})
_NDARRAY = np.ndarray
_MAX_SPECIALISE_RETRIES = 24     # specialisations, unrollings and assumptions flipped
_MAX_VARIANTS = 8              # environments kept per signature
# signatures kept per function (each holds an executable, ~0.4 MB on the CPU): a caller
# that keeps changing shapes recompiles the old ones instead of growing without bound
MAX_SIGNATURES = 512
_LOCKS = threading.Lock()      # creates the per-function lock tables
_JAX_ARRAY = None              # jax's array class, once a call has passed one


def _values(leaves, positions):
    """The key of specialised scalar values: a float by its bits, so that -0.0 and 0.0
    (equal, one hash) get their own programs and a NaN finds its own again; a bool
    apart from the int of its value (`True == 1`, but NumPy takes only the int as a
    length)."""
    return tuple(leaves[i].hex() if type(leaves[i]) is float else
                 (bool, leaves[i]) if type(leaves[i]) is bool else leaves[i]
                 for i in positions)


class Specialised:
    """Signature whose Python scalar leaves at `positions` are keyed by value."""
    __slots__ = ("positions", "table")

    def __init__(self, positions):
        self.positions = tuple(sorted(positions))
        self.table = {}


class ByValue:
    """The fast runner of a `Specialised` signature: the runner of each set of values
    of the Python numbers at `positions` (argument positions: the fast path takes
    positional arguments, one leaf each) seen so far; `miss(args)` (the general path,
    which installs the runner of new values) for others."""
    __slots__ = ("positions", "runners", "miss")

    def __init__(self, positions, miss):
        self.positions, self.miss = positions, miss
        self.runners: dict = {}

    def __call__(self, args):
        runner = self.runners.get(_values(args, self.positions))
        return self.miss(args) if runner is None else runner(args)


_FAST_ENTRIES = (Compiled, Specialised)
# runners kept per specialised signature (values beyond take the general path)
_MAX_BY_VALUE = 64


class Variant:
    """One environment a signature was compiled for: its guard (None when the program
    reads nothing from its environment) and the Compiled (or Specialised table);
    `checks` says which captured value failed when the guard does (`reasons`)."""
    __slots__ = ("guard", "entry", "by_value", "checks")

    def __init__(self, guard, entry, by_value, checks=None):
        self.guard, self.entry, self.by_value = guard, entry, by_value
        self.checks = checks


class JittedFunction:
    """A NumPy function compiled per signature, with `jax.jit`'s calling conventions.

    It holds the converted function, the in-memory executables by signature (bounded)
    and the disk cache's keys; each call checks the guards of what the program baked
    in, uploads the arguments, runs and rebuilds NumPy results and write-backs. Calls
    from other compiled code (`__npxla_jitted__`) inline its converted function."""
    __npxla_jitted__ = True
    # a result that is an array argument is the caller's object, as in NumPy
    _returns_arguments = True
    # lowerings may call NumPy's routines back on the host (`lowering.callbacks`)
    _host_library = True

    def __init__(self, fn, *, static_argnums=(), static_argnames=(), device=None,
                 output="numpy", fast_math=False, donate_argnums=(), donate_argnames=(),
                 cache=None):
        if output not in ("numpy", "device"):
            raise ValueError("output must be 'numpy' or 'device'")
        self.__wrapped__ = fn
        self.__name__ = getattr(fn, "__name__", "jitted")
        self.__qualname__ = getattr(fn, "__qualname__", self.__name__)
        self.__doc__ = getattr(fn, "__doc__", None)
        if not callable(fn):
            raise TypeError(f"jit expects a function, got {type(fn).__name__}")
        # bound methods, NumPy functions, ufuncs, builtins, partials: staged through a
        # Python function calling them (see `forwarding`)
        self._fn = fn if isinstance(fn, types.FunctionType) else forwarder(fn)
        self._device_spec = device
        # whether XLA may contract float products into fused multiply-adds
        self._fast_math = bool(fast_math)
        self._output = output
        self._converted = None
        self._global_names = None
        self._cache: dict = {}
        self._fast: dict = {}       # (globals key, shape, dtype, ...) -> Compiled
        # {site: length} of the speculative windows of data-bounded slices (see
        # `numpy/bounded_window`): they only grow, when a run finds one too short
        self._windows: dict | None = {}
        self._assumed = Assumptions()     # bools assumed where nothing can be staged
        try:
            self._signature = inspect.signature(fn)
        except (TypeError, ValueError):
            self._signature = None
        static = argspec.parameters(self._signature, self.__name__, static_argnums,
                                    static_argnames)
        self._static_argnums, self._static_argnames = static
        # donated parameters: (positions, names); see `residency.consumed`
        self._donate = argspec.parameters(self._signature, self.__name__, donate_argnums,
                                          donate_argnames, "donate")
        argspec.check_disjoint(self.__name__, static, self._donate)
        if cache not in (None, True, False):
            raise TypeError(f"cache must be True, False or None, got {cache!r}")
        self._disk = cache         # the disk cache: None follows NPXLA_CACHE_DIR
        self._hits = self._misses = 0
        self._stats = cacheinfo.Stats()
        self._fast_ok = not (self._static_argnums or self._static_argnames)
        # parameters whose default is an array: passed explicitly when left out, so the
        # program reads the array's current values (and writes back into it) instead of
        # baking in its values at the first call
        self._array_defaults = tuple(
            (k, name, p.default) for k, (name, p) in enumerate(
                self._signature.parameters.items() if self._signature else ())
            if isinstance(p.default, np.ndarray) and
            p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))

    # --- static arguments ----------------------------------------------------------
    def _with_array_defaults(self, args, kwargs):
        """`kwargs` with the array defaults of the parameters the call left out."""
        missing = [(name, value) for k, name, value in self._array_defaults
                   if k >= len(args) and name not in kwargs]
        if not missing:
            return kwargs
        return {**kwargs, **dict(missing)}

    def _mark_static(self, args, kwargs):
        if self._static_argnums:
            args = tuple(check_static(a, f"argument {i}") if i in self._static_argnums else a
                         for i, a in enumerate(args))
        if self._static_argnames and kwargs:
            kwargs = {k: (check_static(v, f"argument {k!r}") if k in self._static_argnames
                          else v) for k, v in kwargs.items()}
        return args, kwargs

    def _overflow(self, err, args, kwargs):
        """The located error for a Python int argument beyond int64 (a traced Python int
        is an int64 in the program, and JAX refuses to convert it), else `err` (the
        OverflowError raised, or None when checking before a call)."""
        if isinstance(err, TranspileError):
            return err
        found = argspec.int_beyond(self._signature, args, kwargs, self._static_argnums,
                                   self._static_argnames, _INT64_MIN, _INT64_MAX)
        if found is not None:
            leaf, what = found
            return self._at_definition(INT_ARGUMENT_OVERFLOW.error_for(
                value=leaf if abs(leaf) < 10 ** 30 else f"{leaf:.3e}", arg=what,
                fn=self.__name__))
        return err

    # --- conversion ----------------------------------------------------------------
    @property
    def converted(self) -> Any:
        if self._converted is None:
            if getattr(self._fn, "__code__", None) is not None and \
                    self._fn.__code__.co_flags & inspect.CO_GENERATOR:
                raise refuse_generator(self._fn)
            with staging.LOCK:
                started = time.perf_counter()
                self._converted = convert(self._fn, operators)
                self._convert_seconds = time.perf_counter() - started
                log.converted(self, self._convert_seconds)
        return self._converted

    @property
    def device(self) -> Any:
        return devices.resolve(self._device_spec)

    # --- calling ---------------------------------------------------------------------
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """A call: the fast path when positional NumPy arguments hit an installed runner
        (a few dict lookups, then JAX's C++ dispatch), inlining when called from code
        being staged, else the general path (`_call`)."""
        try:
            # Fast path: positional NumPy arrays only (the common legacy call), keyed by
            # shapes and dtypes without building a tree definition. The entry's guard (None:
            # the program reads nothing from its environment) re-checks what the program
            # baked in and gives the implicit array inputs.
            fast = self._fast       # empty until a call installs a runner
            if fast and not kwargs:
                key = []
                for a in args:         # a loop: faster than a comprehension here
                    t = type(a)
                    if t is _NDARRAY:
                        flags = a.flags
                        if not flags.c_contiguous:
                            break            # another layout: the general path's key
                        key.append(a.shape)
                        key.append(a.dtype)
                        if not flags.writeable:      # another program (`_call`)
                            key.append(READ_ONLY)
                    elif t in _PY_SCALARS:
                        key.append(t)
                    elif t is DeviceArray or t is _JAX_ARRAY:     # device data (`resident`)
                        v = a._value if t is DeviceArray else a
                        key += [t, v.shape, v.dtype, v.sharding]
                    else:
                        break
                else:
                    entry = fast.get(tuple(key))
                    if entry is not None:
                        guard, runner = entry
                        if guard is None:
                            self._hits += 1
                            return runner(args)
                        extra = guard(args)
                        if extra is not None:
                            self._hits += 1
                            return runner(args + extra)
            if current_trace() is not None:      # called from code being staged: inline it
                return self.converted(*args, **kwargs)
            return self._call(args, kwargs)
        except OverflowError as e:      # a Python int beyond int64 (see `_overflow`)
            err = self._overflow(e, args, kwargs)
            if err is e:
                raise
            raise err from None

    def _call_native(self, args, kwargs):
        """The call with arrays in non-native byte order replaced by native copies
        (rare: the tree is rebuilt only then), and what the program wrote copied back."""
        swapped: list = []          # (caller's array, native-order copy)
        args, kwargs = native_order((args, kwargs), swapped)
        out = self._call(args, kwargs, fast_ok=False)
        for orig, copy in swapped:     # what the program wrote, in the caller's order
            if orig.flags.writeable:
                np.copyto(orig, copy)
        return out

    def _call(self, given_args, given_kwargs, fast_ok=True):
        """The general path: static and device arguments unwrapped, the signature key
        (tree, leaf kinds, arguments that share memory), a cached or newly built
        program, and its run; a run whose speculative windows were too short widens
        them, drops this signature's programs and calls again (nothing was written
        back). `fast_ok`: whether to install a fast-path runner for later calls."""
        if self._array_defaults:
            given_kwargs = self._with_array_defaults(given_args, given_kwargs)
        args, kwargs = self._mark_static(given_args, given_kwargs)
        holders: dict = {}     # flat leaf position -> DeviceArray passed there
        (args, kwargs), _ = resident.unwrap((args, kwargs), holders)
        leaves: list = []
        treedef = flatten((args, kwargs), leaves)
        for leaf in leaves:
            if type(leaf) is np.ndarray and not leaf.dtype.isnative:
                return self._call_native(given_args, given_kwargs)
        key = (treedef, tuple(map(leaf_key, leaves)))
        sharing = memory_sharing(leaves)
        if holders:                    # a DeviceArray passed twice is one array too
            sharing += resident.same_pairs(holders)
        if sharing:                    # a program for these arguments being one array
            key += (sharing,)
        read_only = read_only_leaves(leaves)
        if read_only:      # a write into one raises NumPy's ValueError where it happens
            key += ((READ_ONLY, read_only),)
        hit = self._lookup(key, args, kwargs, leaves)
        if hit is None:
            self._misses += 1
            hit = self._build(key, args, kwargs, leaves)
        else:
            self._hits += 1
        variant, entry, extra = hit
        consumed = () if not (self._donate[0] or self._donate[1]) else \
            residency.consumed(entry, leaves, holders, args, kwargs, self._donate)
        if entry.staged.writeback:
            residency.refuse_immutable(self._fn, self._signature, entry.staged.writeback,
                                       leaves, holders, args, kwargs)
        # (a program compiled for arguments that are one array reads one parameter for
        # both: never the fast path's, which is keyed by shapes only)
        if fast_ok and not sharing and not kwargs and type(entry) is Compiled and \
                type(variant.entry) in _FAST_ENTRIES and self._fast_ok and not consumed and \
                runpath.may_run_fast(entry, given_args):
            self._install_fast(variant, entry, given_args, len(extra))
        all_leaves = leaves + list(extra) if extra else leaves
        try:
            return runpath.run(entry, all_leaves, self._output, holders, consumed,
                               self.__qualname__, (given_args, given_kwargs, self._fn))
        except RerunSignal as e:
            # the run wrote nothing back: widen the windows or flip the assumption,
            # build again, run again (below: outside the handler, so that what the
            # rerun raises does not show the signal as its context)
            if isinstance(e, WindowOverflow):
                self._windows = widened(self._windows, e.needs)
            else:
                self._assumed.flip(e.sites)
            self._cache.pop(key, None)
            self._fast.clear()
        return self._call(given_args, given_kwargs, fast_ok)

    def _install_fast(self, variant, entry, args, n_extra):
        """Let later calls with positional arguments of these kinds take the fast path."""
        global _JAX_ARRAY
        if any(type(a) is not np.ndarray and type(a) not in _PY_SCALARS for a in args):
            _JAX_ARRAY = resident.jax_array_type()
        key = runpath.fast_key(args, _JAX_ARRAY)
        if key is None:
            return
        n = len(args)       # the runner's arguments: these, then the implicit arrays
        guard, fast = variant.guard, self._fast
        if type(variant.entry) is not Specialised:
            runner = runpath.fast_runner(entry, args, n_extra, self._output,
                                         lambda a: self._call(tuple(a[:n]), {},
                                                              fast_ok=False))
            values, slot = key, fast
        else:
            # the program baked in the values of some Python numbers: one runner per
            # values, in a table that the signature's fast entry holds
            positions = variant.entry.positions
            runner = self._specialised_runner(positions, entry, args, n_extra)
            held = fast.get(key)
            table = held[1] if held is not None and held[0] is guard and \
                type(held[1]) is ByValue and held[1].positions == positions else None
            if runner is not None and table is None:
                table = ByValue(positions, self._by_value_miss(n))
                fast[key] = (guard, table)
            if table is None or len(table.runners) >= _MAX_BY_VALUE:
                return
            values, slot = _values(args, positions), table.runners
        if runner is None:
            return
        if numpy_tier.eligible(entry, self._output):
            runner = self._tiered(slot, values, guard if slot is fast else None, runner,
                                  args)
        slot[values] = (guard, runner) if slot is fast else runner

    def _by_value_miss(self, n):
        """A `ByValue` table's call for values it has no runner of: the general path
        (which installs one), counted there, not as the fast path's hit."""
        def miss(a):
            self._hits -= 1
            return self._call(tuple(a[:n]), {})
        return miss

    def _specialised_runner(self, positions, entry, args, n_extra):
        """The fast runner of `entry`, a program that baked in the Python numbers of
        `args` at `positions` (they are not its parameters): it takes the whole
        arguments (then the implicit arrays) and passes the program the others; or
        None."""
        n = len(args)
        keep = tuple(i for i in range(n) if i not in positions)
        if tuple(entry.param_leaves[:len(keep)]) != keep:
            return None                      # (parameters in an order not foreseen)
        baked = [(i, args[i]) for i in positions]     # Python numbers: nothing large kept

        def whole(a):                        # the call's arguments again, for the general path
            full = list(a[:len(keep)])
            for i, v in baked:
                full.insert(i, v)
            return tuple(full)
        inner = runpath.fast_runner(entry, [args[i] for i in keep], n_extra, self._output,
                                    lambda a: self._call(whole(a), {}, fast_ok=False))
        if inner is None:
            return None

        def run(a):
            return inner(tuple([a[i] for i in keep]) + a[n:])
        return run

    def _tiered(self, slot, at, guard, runner, args):
        """`runner` timed against the function as Python (`numpy_tier`); the faster
        becomes the runner at `slot[at]` (the fast path's entries, with the variant's
        `guard`, or a `ByValue` table's runners when `guard` is None)."""
        described = describe(list(args))     # (not the arrays: they would be kept)
        fast = slot is self._fast

        def settle(chosen, times):
            held = slot.get(at)
            if held is not None and (held[1] if fast else held) is tier:   # (not cleared)
                slot[at] = (guard, chosen) if fast else chosen
                if times is not None:
                    log.runs_as_numpy(self, described, *times)
        tier = numpy_tier.Tier(runner, self._fn, settle, len(args))
        return tier

    def _lookup(self, key, args, kwargs, leaves):
        """(variant, Compiled, implicit inputs) of the first variant of `key` whose guard
        holds, or None."""
        for variant in self._cache.get(key, ()):
            extra = () if variant.guard is None else variant.guard(args, kwargs)
            if extra is None:
                continue
            entry = variant.entry
            if type(entry) is Specialised:
                entry = entry.table.get(_values(leaves, entry.positions))
                if entry is None:
                    continue
            return variant, entry, extra
        return None

    def _lock_for(self, key):
        """The lock under which signature `key` is built: threads calling a fresh function
        at once compile it once; different signatures compile in parallel."""
        locks = self.__dict__.get("_build_locks")
        if locks is None:
            with _LOCKS:
                locks = self.__dict__.setdefault("_build_locks", {})
        lock = locks.get(key)
        if lock is None:
            with _LOCKS:
                lock = locks.setdefault(key, threading.RLock())
        return lock

    def _build(self, key, args, kwargs, leaves):
        with self._lock_for(key):
            hit = self._lookup(key, args, kwargs, leaves)    # built meanwhile
            if hit is not None:
                return hit
            env = self._environment(args, kwargs)
            device = self.device
            disk_key = None if persist.store(self._disk) is None else \
                persist.signature_key(self._fn, self._options(), device, key, env)
            # the `npxla` logger's times and why this signature is (re)compiled
            why = reasons.why(self, key, args, kwargs, leaves)
            clock = log.Clock(self, leaves, device, why)
            hit = persist.load(disk_key, leaves, device, env, self._disk)
            if hit is not None:
                staged, exe, positions = hit
                compiled = Compiled(staged, device, exe)
                clock.loaded()
            else:
                sharing, read_only = key_parts(key)
                staged, positions = self._stage(args, kwargs, leaves, env, sharing,
                                                read_only)
                clock.staged()
                compiled = Compiled(staged, device)
                compiled.executable  # compile now so errors surface at the first call
                clock.compiled()
                persist.save(disk_key, leaves, device, staged, compiled.executable,
                             positions, self._fn, env, self._disk)
            writes = bool(staged.writeback)
            if writes and any(a is leaf for a in env.traced() for leaf in leaves):
                raise self._at_definition(UnsupportedOperationError(
                    "an array the function reads from its environment (a global, a "
                    "closure variable, an attribute) is also passed as an argument, and "
                    "the function updates arrays in place: the two would not see each "
                    "other's updates", hint="use the argument only"))
            variant = self._install(key, env, compiled, positions, leaves, writes, args,
                                    kwargs)
            return variant, compiled, tuple(env.traced())

    def _install(self, key, env, compiled, positions, leaves, writes, args, kwargs):
        """Add `compiled` to the variants of `key` (newest first, at most
        _MAX_VARIANTS: an environment that keeps changing keeps recompiling)."""
        by_value = env.by_value()
        variants = self._cache.get(key, ())
        if positions:
            positions = tuple(sorted(positions))
            values = _values(leaves, positions)
            for v in variants:
                if type(v.entry) is Specialised and v.entry.positions == positions and \
                        v.by_value == by_value and \
                        (v.guard is None or v.guard(args, kwargs) is not None):
                    v.entry.table[values] = compiled
                    return v
            entry = Specialised(positions)
            entry.table[values] = compiled
        else:
            entry = compiled
        variant = Variant(None if env.trivial else env.guard(writes), entry, by_value,
                          None if env.trivial else reasons.checks(env))
        self._cache[key] = (variant,) + variants[:_MAX_VARIANTS - 1]
        while len(self._cache) > MAX_SIGNATURES:       # the oldest signature goes
            old = next(iter(self._cache))
            del self._cache[old]
            self._fast.clear()         # keyed differently; refilled by the next calls
            self.__dict__.get("_build_locks", {}).pop(old, None)
        return variant

    def _options(self):
        return (tuple(sorted(self._static_argnums)), tuple(sorted(self._static_argnames)),
                self._output, tuple(sorted((self._windows or {}).items())),
                self._assumed.key(),
                self._fast_math)

    def _environment(self, args, kwargs):
        """What the program will read from its environment (see `guards`)."""
        try:
            return guards.Environment(self._fn, args, kwargs)
        except TranspileError as e:
            raise self._at_definition(e) from None

    def _at_definition(self, err):
        """`err` located at the function's definition (it is about the whole function)."""
        code = self._fn.__code__
        return err.with_location(Location(code.co_filename, code.co_firstlineno)) \
            .with_traceback(None)

    def _stage(self, args, kwargs, leaves, env=None, sharing=None, read_only=frozenset()):
        """Stage, retrying when code needs a traced value as a Python value: Python
        int/bool arguments are then specialised on their value, implicit arrays baked
        in by value, and loops over a static range whose index is needed are
        unrolled. `sharing`: the arguments that are one array (default: NumPy's view
        of `leaves`). `read_only`: positions of read-only arrays the function writes
        (it raises NumPy's ValueError where it does). jax Arrays are staged as the NumPy
        arrays they stand for."""
        if env is None:
            env = self._environment(args, kwargs)
        if sharing is None:
            sharing = memory_sharing(leaves)
        args, kwargs = resident.stand_ins((args, kwargs))
        static: set = set()
        unrolled: set = set()
        windows, assumptions = self._windows, self._assumed.table
        # staging runs the function's Python: an attempt given up halfway may have set
        # NumPy's error state (`np.seterr(all='raise')` before the loop that needed
        # unrolling) without reaching the line that restores it
        errors = np.geterr(), np.geterrcall()
        try:
            for _ in range(_MAX_SPECIALISE_RETRIES):
                env.restore_pinned()     # what a failed attempt wrote into baked arrays
                np.seterr(**errors[0])
                np.seterrcall(errors[1])
                implicit = env.traced()
                bind = env.binder(self.converted) if implicit else None
                try:
                    with staging.LOCK:
                        staged = stage(self.converted, args, kwargs, frozenset(static),
                                       sharing=sharing,
                                       implicit=implicit, bind=bind,
                                       unrolled=frozenset(unrolled),
                                       user_error=raises_at_run_time,
                                       platform=self.device.platform,
                                       host_library=self._host_library,
                                       fast_math=self._fast_math,
                                       read_only=read_only,
                                       windows=windows, assumptions=assumptions,
                                       arguments_returned=self._returns_arguments and
                                       self._output == "numpy")
                except (ConcretizationError, ContainerMutation) as e:
                    if self._widen_static(e, leaves + implicit, static, unrolled, env,
                                          len(leaves)):
                        continue
                    failed, error = e, located(e, e.__traceback__)
                except TranspileError as e:
                    failed, error = e, located(e, e.__traceback__)
                except Exception as e:
                    # library code (np.mgrid) caught our ConcretizationError as the TypeError
                    # it is, then failed on its fallback path: that value decides
                    hidden = hidden_concretization(e)
                    if hidden is not None and self._widen_static(
                            hidden, leaves + implicit, static, unrolled, env, len(leaves)):
                        continue
                    failed, error = e, classify(e) if hidden is None else \
                        located(hidden, hidden.__traceback__)
                else:
                    failed = None
                if failed is not None:
                    if self._assumed.after_failed_staging(failed):
                        assumptions = self._assumed.table
                        continue
                    raise error from None
                if redo_unsafe(staged.host_callbacks) and (speculates(staged) or
                                                           assumes(staged)):
                    # a rerun would print twice: no speculative windows or assumptions
                    windows = assumptions = None
                    continue
                try:
                    env.check_unchanged()
                except TranspileError as e:
                    raise self._at_definition(e) from None
                return staged, static
        except BaseException:
            # staging runs Python on the arrays it bakes in by value: a write it made
            # into one (through a plain helper) must not stay in the caller's array
            env.restore_pinned()
            np.seterr(**errors[0])
            np.seterrcall(errors[1])
            raise
        raise InternalCompilerError("automatic specialisation did not converge")

    @staticmethod
    def _widen_static(err, leaves, static, unrolled, env=None, n_explicit=None):
        """Make what `err` needs static; False when that is impossible. Leaves from
        `n_explicit` on are `env`'s implicit arrays: those are baked in by value."""
        wanted = set(err.deps)
        tokens = {d for d in wanted if type(d) is loops.LoopToken and d.code not in unrolled}
        for t in tokens:     # a traced trip count: specialising its inputs may help
            wanted |= t.count_deps
        wanted -= static
        args = {d for d in wanted if type(d) is int}
        implicit = {d for d in args if n_explicit is not None and d >= n_explicit}
        args -= implicit
        dynamic = [t for t in tokens if not t.static]
        # a trip count traced only because it comes from the index of an enclosing loop
        # of static length (`for tt in range(1, T + 1)` inside `for T in range(5, 20)`):
        # unrolling that loop makes the count a Python int
        enclosing = {d for t in dynamic for d in t.count_deps
                     if type(d) is loops.LoopToken and d.code not in unrolled and d.static}
        if dynamic and enclosing and not (args or implicit) and all(
                any(d in enclosing for d in t.count_deps) for t in dynamic):
            for t in enclosing:
                loops.warn_unrolled(t, "the trip count of a loop inside this one depends "
                                       "on its index")
                unrolled.add(t.code)
            return True
        if dynamic:
            why = "is too large to unroll" if dynamic[0].too_long else \
                "is only known at run time"
            err.hint = (f"the value depends on the index of the loop at {dynamic[0].where}, "
                        f"whose trip count {why}; make the slice size independent of the "
                        "index (e.g. use a mask with np.where)")
        if any(type(leaves[i]) not in _SPECIALISABLE for i in args):
            return False
        if args or implicit:
            static |= args
            for i in sorted(implicit, reverse=True):    # later indices first: stable
                env.pin(i - n_explicit)
            return True
        if dynamic:
            return False
        for t in tokens:
            loops.warn_unrolled(t)
            unrolled.add(t.code)
        return bool(tokens)

    # --- inspection --------------------------------------------------------------------
    def lower(self, *args: Any, **kwargs: Any) -> Lowered:
        """Stage for the signature of `args` (as `jax.jit(f).lower`): `.as_text()` prints
        the StableHLO, `.compile()` gives a callable for that signature."""
        overflow = self._overflow(None, args, kwargs)
        if overflow is not None:
            raise overflow
        key, leaves, args, kwargs, _ = call_key(self, args, kwargs)
        env = self._environment(args, kwargs)
        staged, static = self._stage(args, kwargs, leaves, env)
        return Lowered(staged, self.device, self, key, leaves, static, env)

    def cache_info(self) -> cacheinfo.CacheInfo:
        """What the caches hold for this function and what they have saved (as
        `functools.lru_cache`'s `cache_info()`); see docs/cache.md."""
        return cacheinfo.info(self)

    def clear_cache(self, disk: bool = False) -> None:
        """Forget every executable, the speculative windows' lengths learnt so far and
        the counts of `cache_info()`; `disk=True` also removes this function's entries
        from the disk cache."""
        if disk:
            persist.remove_entries(self._fn, self._disk)
        self._hits = self._misses = 0
        self._stats = cacheinfo.Stats()
        self._cache.clear()
        self._fast.clear()
        if self._windows is not None:
            self._windows = {}
        self._assumed.reset()
        self.__dict__.get("_build_locks", {}).clear()

    cache_clear = clear_cache        # functools' spelling

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        if obj is None:
            return self
        return types.MethodType(self, obj)

    def __repr__(self) -> str:
        return f"<npxla.jit {self.__qualname__}>"
