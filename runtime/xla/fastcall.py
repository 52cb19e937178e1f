"""Calling an executable through JAX's C++ dispatch path.

Python glue around PJRT (put each argument, execute, wrap each result) costs tens of
microseconds per call; `jax.jit` does the same work in C++ once its cache knows the
signature. We hand that C++ dispatcher our own executable: its cache-miss hook runs the
executable once through the Python path and returns the "fast path data" (executable,
shardings, output avals) that JAX's own `jit` would return, after which calls with the
same argument types never leave C++. This uses JAX internals (pinned range), so any
failure to build it leaves the caller on the Python path.

The runner around it is specialised when it is made: a call that needs nothing but the
dispatch (no DeviceArrays, no superset variants, no argument large enough to copy into
aligned memory) is three lines of Python around the C++ call.
"""
from __future__ import annotations

import numpy as np

from npxla.runtime.xla.transfer import aligned


def make(executable, device, upload, finish, shifter=None, held=(), fallback=None,
         align=None, hosted=(), with_args=False):
    """A callable taking the positional arguments (a tuple) and returning
    `finish(outputs)` (with `held` or `with_args`: `finish(arguments, outputs)`), or
    None when JAX's internals are not what this module expects.
    `shifter` (see `superset`): arguments that go in as aligned supersets; the
    dispatcher's cache tells them apart by shape, and a miss picks the executable
    compiled for those shapes. `held`: (argument position, output or None, donate) of
    the arguments that are `resident.DeviceArray`s: they go in as their buffers (the
    one a donated parameter consumes from `donatable`); `finish` gives them the output
    the program wrote for them. A call passing one of them twice goes to
    `fallback(args)`. `align`: the positions of arguments that may be large NumPy
    arrays XLA would copy slowly (`transfer.aligned`); None: every position. `hosted`:
    the positions of jax Arrays of another client's CPU device, passed as their host
    views (`np.asarray`, no copy)."""
    call = _dispatcher(executable, device, upload, shifter)
    if call is None:
        return None
    try:
        from jax._src import config
        state, unset = config.enable_x64, config.config_ext.unset
    except Exception:  # pragma: no cover
        return None
    swap, restore = state.swap_local, state.set_local
    hook = state._update_thread_local_hook   # None in the pinned JAX versions

    if not held and shifter is None and align == () and not hosted and hook is None and \
            not with_args:
        def run(args):
            # `with jax.enable_x64(True)` without building a context manager per call
            prev = swap(True)
            try:
                outs = call(*args)
            finally:
                restore(prev)
            return finish(outs)
        return run

    def run_general(args):
        given = args
        if held:
            args = list(args)
            for pos, _, donate in held:
                w = given[pos]
                for other, _, _ in held:     # one array passed twice: staged apart
                    if other != pos and given[other] is w:
                        return fallback(given)
                args[pos] = w.donatable() if donate else w._value
        if hosted:
            args = list(args)
            for i in hosted:
                args[i] = np.asarray(args[i])
        if shifter is not None:
            args, _ = shifter.prepare(args)
        if align is None:
            args = [aligned(a) for a in args]
        elif align:
            args = list(args)
            for i in align:
                args[i] = aligned(args[i])
        prev = swap(True)
        if hook:
            hook(True)
        try:
            outs = call(*args)
        finally:
            restore(prev)
            if hook:
                hook(None if prev is unset else prev)
        return finish(given, outs) if held or with_args else finish(outs)
    return run_general


def _dispatcher(executable, device, upload, shifter):
    """JAX's C++ dispatcher (a `pjit` object) whose cache misses run `executable`, or
    None."""
    try:
        from jax._src import pjit, tree_util
        from jax._src.interpreters import pxla
        from jax._src.lib import _jax
        from jax.sharding import SingleDeviceSharding
    except Exception:  # pragma: no cover - depends on the JAX version
        return None
    sharding = SingleDeviceSharding(device)

    def cache_miss(*args):
        exe, put = executable, upload
        variant = shifter.for_shapes(args) if shifter is not None else None
        if variant is not None:
            exe, put = variant
        outs = exe.execute(put(list(args)))
        n = len(args)        # a variant may take more (`superset_dot`'s tails)
        data = pxla.MeshExecutableFastpathData(
            exe, tree_util.tree_structure([0] * len(outs)), [sharding] * n,
            [sharding] * len(outs), [o.aval for o in outs], [o._committed for o in outs],
            [True] * n, [None] * n, [])
        return outs, data, False

    try:
        keys = pxla.JitGlobalCppCacheKeys(
            donate_argnums=(), donate_argnames=(), device=None, backend=None,
            in_shardings_treedef=None, in_shardings_leaves=None,
            out_shardings_treedef=None, out_shardings_leaves=None,
            in_layouts_treedef=None, in_layouts_leaves=None,
            out_layouts_treedef=None, out_layouts_leaves=None, compiler_options_kvs=None)
        return _jax.pjit("npxla", _unused, cache_miss, [], [], keys,
                         tree_util.dispatch_registry, pxla.cc_shard_arg,
                         pjit.make_jit_cpp_cache(4))
    except Exception:  # pragma: no cover
        return None


def _unused(*args):  # pragma: no cover - the dispatcher needs a Python function object
    raise AssertionError("npxla fast call: the cache-miss hook handles every miss")
