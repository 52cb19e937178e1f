"""Finishing a run: everything between a program's output buffers and what the caller
sees, for every call path (plain, device-resident, sharded, the fast C++ dispatch path,
`f.lower(...).compile()`), in this order:

1. the run-time checks: the first that failed raises the NumPy exception it stands for
   (a speculative window too short raises `WindowOverflow`, a bool assumed while
   staging that had the other value `AssumptionFailed`: the driver widens the window or
   flips the assumption and runs again), before anything is written back;
2. write-back of mutated arguments: NumPy arrays receive the new values (whole arrays,
   or the regions the program changed: `writeback.Plan`), DeviceArrays take the new
   buffer; an argument written back that is read-only runs on copies (`on_copies`);
3. the results, rebuilt as NumPy returns them (Python scalars, NumPy scalars, 0-d
   arrays, writable arrays; bounded results trimmed to their run-time length; an
   argument returned as itself; one object returned twice as one object; constants),
   or left on the device with output="device";
4. replay of the Python side effects the program recorded (attribute and container
   writes on objects that outlive the call) with this run's values (`Finisher.replay`).

A program's `Finisher` is built once; the outputs of one run are read through an
`Outputs` object: `DeviceOutputs` over one device's list of buffers, or the sharded
program's (`sharded.ShardedOutputs`), with the same methods. The per-call paths
that run a program are `runpath` (general calls) and the fast path's runners, which take
their result builders from `Finisher.fast`.
"""
from __future__ import annotations

import numpy as np

from npxla.runtime.driver.results import (PLAIN_KINDS, SMALL_RESULT_BYTES, to_result,
                                          trim)
from npxla.runtime.driver.staging import ARRAY
from npxla.runtime.numpy.core.errorflags import raise_for, uses_payloads
from npxla.runtime.operators import effects
from npxla.runtime.operators.printing import flush
from npxla.runtime.driver.text_results import render_text
from npxla.runtime.staging.bounded import WindowOverflow
from npxla.runtime.staging.speculation import AssumptionFailed
from npxla.runtime.staging.pytree import unflatten
from npxla.runtime.xla.transfer import copy_into


class DeviceOutputs:
    """The output buffers of one run on one device. `numpy(k)`: output k as a NumPy
    array to read (a read-only view); `local(k)`: the same (what a write-back copies
    from); `device(k)`: the buffer; `result(k, kind)`: output k as the caller's result;
    `done()`: the run's spare buffers go back to the pool (`writeback.Plan.keep`)."""
    __slots__ = ("bufs", "plan", "device_", "deferred")

    def __init__(self, bufs, plan=None, device=None, deferred=None):
        self.bufs, self.plan, self.device_ = bufs, plan, device
        # the prints, warnings and log records of a run that may be redone, held until
        # its checks accept it (`printing.execute`)
        self.deferred = deferred

    def numpy(self, k):
        return np.asarray(self.bufs[k])

    local = numpy

    def device(self, k):
        return self.bufs[k]

    def result(self, k, kind):
        return to_result(self.bufs[k], kind)

    def done(self):
        if self.plan is not None:
            self.plan.keep(self.bufs, self.device_)


class Finisher:
    """Checks, write-back and results of one executable's runs. `whole`: (leaf, output
    k) of the arguments the executable returns whole (default: the staged program's
    write-back); `regions`: (leaf, output k, starts) of those it returns as changed
    regions (see `writeback.Plan`)."""

    def __init__(self, staged, whole=None, regions=()):
        self.staged = staged
        self.messages = staged.error_messages
        # checks that name an offending value have them as the output before the flags
        self.payloads = uses_payloads(self.messages)
        # checks that a speculative window held its slice: (flag index, site, payload)
        self.window_checks = [(k, m[1], m[3]) for k, m in enumerate(self.messages)
                              if type(m) is tuple and m[0] is WindowOverflow]
        # checks that an assumed bool had its value: (flag index, site), staging order
        self.assumption_checks = [(k, m[1]) for k, m in enumerate(self.messages)
                                  if type(m) is tuple and m[0] is AssumptionFailed]
        self.whole = list(staged.writeback if whole is None else whole)
        self.regions = list(regions)
        self.writes = bool(self.whole or self.regions)
        self.slots = staged.out_slots
        self.treedef = staged.out_treedef
        # results that are all plain outputs: [(output index, kind)], else None
        self.plain = [(s[1], s[2]) for s in self.slots] if all(
            s[0] == "out" for s in self.slots) else None
        # results that are all outputs, some of them packed scalars (`packing`):
        # [(output index, kind, position or None)], else None
        self.unpacked = [(s[1], s[3], s[2]) if s[0] == "packed" else (s[1], s[2], None)
                         for s in self.slots] if all(
            s[0] in ("out", "packed") for s in self.slots) and self.plain is None else None
        self._whole_arrays = None

    def whole_arrays(self):
        """The Finisher of an executable compiled from the staged module as it is (its
        write-back outputs are whole arrays: `Compiled.resident_executable`)."""
        if not self.regions and self.whole == list(self.staged.writeback):
            return self
        if self._whole_arrays is None:
            self._whole_arrays = Finisher(self.staged)
        return self._whole_arrays

    def __call__(self, outs, leaves, output="numpy", holders=None):
        """Steps 1-3 for one run: check, write back, the results."""
        if self.messages:       # (only a program with checks may be redone and defer)
            self.check(outs)
        if self.writes:
            self.write(outs, leaves, holders)
        return self.results(outs, output, leaves, holders)

    # --- 1. run-time checks ---------------------------------------------------------
    def check(self, outs):
        """Raise the NumPy exception of the first run-time check that failed."""
        flags = outs.numpy(-1)
        failed = flags.any()
        payloads = outs.numpy(-2) if failed and self.payloads else None
        if failed:
            # a window too short or a wrong assumption makes the rest of the run
            # meaningless: widen or flip first (nothing it deferred happens)
            needs = {site: int(payloads[slot]) for k, site, slot in self.window_checks
                     if flags[k]}
            if needs:
                raise WindowOverflow(needs)
            wrong = [site for k, site in self.assumption_checks if flags[k]]
            if wrong:
                raise AssumptionFailed(wrong)
        deferred = getattr(outs, "deferred", None)
        if deferred:          # the run is accepted: what it printed, then any error
            flush(deferred)
        if failed:
            raise raise_for(self.messages[int(np.argmax(flags))], payloads)

    # --- 2. write-back --------------------------------------------------------------
    def write(self, outs, leaves, holders=None):
        """The new values of mutated arguments into the caller's arrays (after the
        checks passed); a DeviceArray in `holders` ({leaf: DeviceArray}) takes the new
        buffer instead."""
        for i, k in self.whole:
            if holders and i in holders:
                holders[i]._replace(outs.device(k))
            else:
                copy_into(leaves[i], outs.local(k), casting="unsafe")
        for i, k, starts in self.regions:
            update = outs.numpy(k)
            if type(starts) is int:      # computed by the program: an output
                starts = outs.numpy(starts).tolist()
            region = tuple([slice(s, s + n) for s, n in zip(starts, update.shape)])
            copy_into(leaves[i][region], update, casting="unsafe")

    # --- 3. results -----------------------------------------------------------------
    def results(self, outs, output="numpy", leaves=(), holders=None):
        """The caller's result; `leaves`: the call's flat arguments (a result that is an
        argument is that object: the DeviceArray passed, when one was)."""
        if self.plain is not None and output == "numpy":
            return unflatten(self.treedef, iter([outs.result(k, kind)
                                                 for k, kind in self.plain]))
        results: list = []
        vectors: dict = {}            # packed output k -> its NumPy view, this run
        for slot in self.slots:
            kind = slot[0]
            if kind == "out":
                results.append(outs.device(slot[1]) if output == "device" else
                               outs.result(slot[1], slot[2]))
            elif kind == "packed":
                k, position = slot[1], slot[2]
                if output == "device":
                    results.append(outs.device(k)[position])
                    continue
                vector = vectors.get(k)
                if vector is None:
                    vector = vectors[k] = outs.numpy(k)
                results.append(unpack(vector, position, slot[3]))
            elif kind == "arg":
                i = slot[1]
                results.append(holders[i] if holders and i in holders else leaves[i])
            elif kind == "dup":           # the same object as an earlier result leaf
                results.append(results[slot[1]])
            elif kind == "bounded":
                results.append(trim(outs, slot[1], slot[2], slot[3], output))
            elif kind == "text":
                results.append(render_text(slot, outs))
            else:
                value = slot[1]
                results.append(value.copy() if isinstance(value, np.ndarray) else value)
        return unflatten(self.treedef, iter(results))

    def fast(self, output="numpy", held=None):
        """The fast path's result builder (see `fastcall`): `finish(outs)` from one
        device's output buffers, or, with `held` ([(argument position, output k or
        None)] of the DeviceArrays passed positionally), `finish(args, outs)`, which
        gives each updated DeviceArray its new buffer first. For programs without
        checks, NumPy write-back or argument results (the fast path takes no others)."""
        plain, treedef, results = self.plain, self.treedef, self.results
        flat_tuple = treedef is not None and treedef[0] is tuple and \
            all(d is None for d in treedef[1])
        if output == "numpy" and plain is not None:
            if treedef is None and len(plain) == 1:
                (k, kind), = plain
                asarray, small = np.asarray, SMALL_RESULT_BYTES
                if kind in PLAIN_KINDS:
                    copied, nparray = [None], np.array    # whether the output is small

                    def finish(outs):
                        # `to_result` inlined for a small array (it runs on every call):
                        # one `np.array` copy, 0.4 µs less than a view and its copy. The
                        # output's shape is the executable's, so the first call decides
                        if copied[0]:
                            return nparray(outs[k])
                        if copied[0] is None:
                            view = asarray(outs[k])
                            copied[0] = bool(view.ndim) and view.nbytes < small
                            if copied[0]:
                                return view.copy()
                        return to_result(outs[k], kind)
                else:
                    def finish(outs):
                        return to_result(outs[k], kind)
            elif flat_tuple:
                def finish(outs):
                    return tuple([to_result(outs[k], kind) for k, kind in plain])
            else:
                def finish(outs):
                    return results(DeviceOutputs(outs), output)
        elif output == "numpy" and self.unpacked is not None and flat_tuple:
            finish = _tuple_reader(self.unpacked)
        else:
            def finish(outs):
                return results(DeviceOutputs(outs), output)
        if held is None:
            return finish
        writes = [(pos, k) for pos, k in held if k is not None]

        def finish_held(args, outs):
            for pos, k in writes:
                args[pos]._replace(outs[k])
            return finish(outs)
        return finish_held

    # --- 4. effects -------------------------------------------------------------------
    def replay(self, out, args, kwargs, fn):
        """The result of a program that records Python side effects (`out` is (result,
        payloads)), after replaying them with this run's values on the call's own
        arguments and the function's environment."""
        out, payloads = out
        effects.replay(self.staged.effects, payloads, args, kwargs, fn)
        return out


def unpack(vector, position, kind):
    """Element `position` of a packed output's NumPy view as the 0-d result of `kind`
    (see `to_result`): a Python scalar, a 0-d array, or a NumPy scalar."""
    value = vector[position]
    if kind is True:
        return value.item()
    return np.array(value) if kind == ARRAY else value


def _tuple_reader(unpacked):
    """The fast path's builder of a flat tuple of results, some of them read from
    packed outputs: [(output k, kind, position or None)] (`Finisher.unpacked`)."""
    vectors = sorted({k for k, _, position in unpacked if position is not None})
    asarray = np.asarray
    reads = [(k, kind, None if position is None else vectors.index(k), position)
             for k, kind, position in unpacked]

    def finish(outs):
        views = [asarray(outs[k]) for k in vectors]
        return tuple([to_result(outs[k], kind) if v is None else
                      unpack(views[v], position, kind)
                      for k, kind, v, position in reads])
    return finish


# --- arguments written back that are read-only ------------------------------------------
def on_copies(run, leaves, targets):
    """`run(leaves)` for a call where some array the program writes back (leaf positions
    `targets`) is read-only: NumPy raises `ValueError` at the write, if one happens. The
    program runs on copies of the arguments it writes back; a read-only one it changed
    raises before anything reaches the caller (the caller's arrays stay untouched:
    docs/semantics.md), otherwise the copies are written back into the writable
    ones. A result that is one of the copies is the caller's array again."""
    copies = {i: np.array(leaves[i], copy=True) for i in targets
              if type(leaves[i]) is np.ndarray}
    result = run([copies.get(i, leaf) for i, leaf in enumerate(leaves)])
    for i, copy in copies.items():
        if not leaves[i].flags.writeable and copy.tobytes() != leaves[i].tobytes():
            raise ValueError("assignment destination is read-only")
    for i, copy in copies.items():
        if leaves[i].flags.writeable:
            np.copyto(leaves[i], copy)
    originals = {id(copy): leaves[i] for i, copy in copies.items()}
    return _replace(result, originals)


def read_only_target(staged, leaves):
    """Whether an array the program writes back is a read-only NumPy array."""
    for i, _ in staged.writeback:
        leaf = leaves[i]
        if type(leaf) is np.ndarray and not leaf.flags.writeable:
            return True
    return False


def _replace(tree, originals):
    """`tree` (a result) with the argument copies of `on_copies` replaced by the
    caller's arrays they stand for."""
    t = type(tree)
    if t in (list, tuple):
        return t(_replace(x, originals) for x in tree)
    if isinstance(tree, tuple) and hasattr(t, "_fields"):
        return t(*[_replace(x, originals) for x in tree])
    if t is dict:
        return {k: _replace(v, originals) for k, v in tree.items()}
    return originals.get(id(tree), tree)
