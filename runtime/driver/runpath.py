"""How a call runs a compiled program, on every path: the one general path (`run`) and
the fast path's runners (`fast_runner`, `fast_key`).

A program is a `Compiled` (one device) or a `ShardedCompiled` (a mesh); each knows how
to *execute* itself (`execute(leaves, holders, reuse)`: place the parameters, pick the
executable variant, run; it returns the outputs and the `Finisher` that reads them) and
which donated buffers a run may write into (`reusable`). Everything after the
execution is the same for both and lives in `finish`: run-time checks, write-back,
results, effects. Here the two meet:

* `run`: a general call. An argument written back that is read-only runs the program
  on copies (`finish.on_copies`); buffers the caller donated (`donate_argnums`) may
  take results and are deleted after the call; recorded side effects are replayed.
* `fast_runner`: the JAX C++ dispatch runner (`xla.fastcall`) of a signature; its
  results come from `Finisher.fast`, DeviceArrays it updates take their new buffers
  there too, and NumPy arguments written back take their values from `Finisher.write`
  (`_writing_runner`). A run whose checks failed, or a call whose arguments share
  memory while one is written, is run again on the general path, which raises.
"""
from __future__ import annotations

import numpy as np

from npxla.runtime.driver.finish import DeviceOutputs, on_copies, read_only_target
from npxla.runtime.driver.staging import READ_ONLY, memory_sharing
from npxla.runtime.xla import fastcall, resident
from npxla.runtime.xla.devices import same_memory
from npxla.runtime.xla.resident import DeviceArray
from npxla.runtime.xla.transfer import may_realign

PY_SCALARS = frozenset({int, float, bool, complex})


def run(entry, leaves, output="numpy", holders=None, gone=(), name="", call=None):
    """One call of `entry` (a Compiled or ShardedCompiled) on the flat arguments
    `leaves`. `holders`: {leaf position: DeviceArray} of the arguments passed as
    DeviceArrays; `gone`: leaf positions whose device buffers the caller donated
    (deleted once the call has returned; `name` words the message of a later use);
    `call`: (args, kwargs, function) of the call, on which recorded Python side
    effects are replayed."""
    st = entry.staged
    if st.writeback and read_only_target(st, leaves):
        # (nothing is consumed: the call may still raise after the run)
        out = on_copies(lambda copies: _once(entry, copies, output, holders, ()),
                        leaves, [i for i, _ in st.writeback])
    else:
        reuse = entry.reusable(gone, leaves, holders) if gone else ()
        out = _once(entry, leaves, output, holders, reuse)
    for i in gone:
        if holders and i in holders:
            holders[i]._give_away(name)
        else:
            resident.delete_donated(leaves[i])
    if st.effects:
        out = entry.finisher.replay(out, *call)
    return out


def _once(entry, leaves, output, holders, reuse):
    """Execute once and finish the run (checks, write-back, results); the run's spare
    buffers go back to the pool whether or not a check failed."""
    outs, finisher = entry.execute(leaves, holders, reuse)
    try:
        return finisher(outs, leaves, output, holders)
    finally:
        outs.done()


# --- the fast path ------------------------------------------------------------------------
def fast_key(args, jax_type):
    """The fast-path key of positional `args` (as `JittedFunction.__call__` builds it),
    or None when an argument is of a kind the fast path does not take."""
    key = []
    for a in args:
        t = type(a)
        if t is np.ndarray:
            flags = a.flags
            if not flags.c_contiguous:
                return None      # another layout is another program (`leaf_key`)
            key += [a.shape, a.dtype]
            if not flags.writeable:      # so is a read-only array (`JittedFunction._call`)
                key.append(READ_ONLY)
        elif t in PY_SCALARS:
            key.append(t)
        elif t is DeviceArray or t is jax_type:
            v = a._value if t is DeviceArray else a
            key += [t, v.shape, v.dtype, v.sharding]
        else:
            return None
    return tuple(key)


class _ChecksFailed(Exception):
    """A fast run whose run-time checks failed (`_checked`)."""


def _checked(finish):
    """`finish` (of the outputs, last, and maybe the arguments before them) after the
    run's check flags (the last output) all passed; a run with a failed check has its
    results dropped. It wrote nothing (a write-back happens in `finish`, after the
    flags, and the fast path takes no effects), so `_rerun_failed` runs the call again
    on the general path, which raises NumPy's exception, or widens a window or flips
    an assumption and runs once more. Reading the flags costs about a microsecond,
    against the tens the general path costs every call of a loop with bounds checks."""
    asarray = np.asarray

    def finish_checked(*given):
        if asarray(given[-1][-1]).any():
            raise _ChecksFailed
        return finish(*given)
    return finish_checked


def _rerun_failed(runner, fallback):
    def run_checked(args):
        try:
            return runner(args)
        except _ChecksFailed:
            pass
        # outside the handler: the exception the rerun raises is the user's alone (no
        # `During handling of _ChecksFailed` above it, no such active exception for a
        # log call that prints one)
        return fallback(args)
    return run_checked


def may_run_fast(entry, args):
    """Whether calls of the Compiled `entry` with positional `args` may take the fast
    path at all (a cheap test, before a runner is built): see `fast_runner`."""
    if not entry.fast_eligible:
        return False
    for i, _ in entry.staged.writeback:      # DeviceArrays, or NumPy arrays (no spares)
        if i >= len(args) or type(args[i]) is not DeviceArray and (
                type(args[i]) is not np.ndarray or entry._spares is not None):
            return False
    return True


def _writing_runner(entry, output, align, fallback):
    """The fast runner of a program that writes NumPy arguments back or returns an
    argument, or None: the general path's write-back and results (`Finisher.write`,
    `Finisher.results`, which gives an argument result as the caller's own object)
    after JAX's C++ dispatch. Arguments that share memory go to `fallback` (the
    program was compiled for separate arrays: `memory_sharing` is part of the general
    path's key), and so does a run whose check failed, before anything is written."""
    finisher = entry.finisher

    def finish(args, outs):
        outputs = DeviceOutputs(outs)
        finisher.write(outputs, args)
        return finisher.results(outputs, output, args)
    if entry.staged.error_messages:
        finish = _checked(finish)
    runner = fastcall.make(entry.executable, entry.device, entry.upload, finish,
                           entry._shift, align=align, with_args=True)
    if runner is None:
        return None
    runner = _rerun_failed(runner, fallback)
    return lambda args: fallback(args) if memory_sharing(args) else runner(args)


def fast_runner(entry, args, n_extra, output, fallback):
    """The fast path's runner for positional `args` (then `n_extra` implicit arrays) of
    the Compiled `entry`, or None when the call needs the general path: the program
    has effects or host callbacks with side effects, writes a NumPy argument back or
    returns an argument beside DeviceArrays (or writes through spare buffers), or
    device arrays are not on the program's device. DeviceArrays it updates go in
    donated where no check could fail, and take their new buffers; `fallback(args)`
    runs a call that passes one DeviceArray twice, whose arguments share memory while
    one is written back, or whose checks failed."""
    st = entry.staged
    if not may_run_fast(entry, args) or len(entry.param_leaves) != len(args) + n_extra:
        return None
    jax_type = resident.jax_array_type()
    held, hosted = [], []
    for i, a in enumerate(args):
        t = type(a)
        if t is np.ndarray or t in PY_SCALARS:
            continue
        if t is DeviceArray:
            held.append(i)
            v = a._value
        elif t is jax_type:
            v = a
        else:
            return None
        if v.sharding != entry.upload.sharding:
            if t is jax_type and resident.host_memory(v) and \
                    same_memory(next(iter(v.devices())), entry.device):
                hosted.append(i)    # JAX's CPU client's buffer: read through its host view
                continue
            return None
    writes = dict(st.writeback)
    # arguments that may be large enough to copy into aligned memory: the implicit
    # arrays, and the NumPy arguments of this signature above the threshold
    align = tuple(i for i, a in enumerate(args) if may_realign(a)) + \
        tuple(range(len(args), len(args) + n_extra))
    if entry.returns_args or any(i not in held for i in writes):
        # a NumPy argument written back, or a result that is an argument itself
        if held or hosted or n_extra:
            return None
        return _writing_runner(entry, output, align, fallback)
    if st.error_messages and (held or hosted):
        return None                       # (DeviceArrays take their buffers in `finish`)
    if not held:
        finish = entry.finisher.fast(output)
        runner = fastcall.make(entry.executable, entry.device, entry.upload,
                               _checked(finish) if st.error_messages else finish,
                               entry._shift, align=align, hosted=hosted)
        if runner is None:
            return lambda a: run(entry, list(a), output)
        return _rerun_failed(runner, fallback) if st.error_messages else runner
    if hosted:
        return None
    donate = entry.donated({i: object() for i in held})      # distinct arrays
    pairs = [(i, writes.get(i)) for i in held]
    return fastcall.make(entry.resident_executable(donate), entry.device, entry.upload,
                         entry.finisher.whole_arrays().fast(output, pairs),
                         held=[(i, k, i in donate) for i, k in pairs],
                         fallback=fallback, align=align) or fallback
