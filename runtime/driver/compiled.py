"""One executable for one signature: the staged program's per-call path (placing the
arguments, running, the run-time checks, write-back, NumPy results).

`JittedFunction` (`jitted.py`) decides *which* program a call needs (signatures,
guards, staging policy); a `Compiled` runs it. The executable is compiled lazily from
the module text, and variants of it (arguments passed as aligned supersets, resident
arguments aliased to their outputs) hang off this object.
"""
from __future__ import annotations

import dataclasses
import functools

import numpy as np

from npxla.runtime.driver import residency
from npxla.runtime.driver.results import build as build_result, to_result
from npxla.runtime.numpy.core.errorflags import raise_for, uses_payloads
from npxla.runtime.operators.printing import execute as execute_with_callbacks
from npxla.runtime.staging.bounded import WindowOverflow
from npxla.runtime.staging.pytree import unflatten
from npxla.runtime.xla import fastcall, writeback
from npxla.runtime.xla.compile import compile_module
from npxla.runtime.xla.superset import Shifter
from npxla.runtime.xla.transfer import Uploader


class Compiled:
    """One executable for one signature, plus the recipe to rebuild NumPy results."""

    def __init__(self, staged, device, executable=None):
        """Everything a call needs that does not depend on the call: the write-back plan
        (which changes the module compiled), the superset shifter, the run-time checks
        that name values or windows, and which shorter result path applies."""
        # the MLIR module (and with it its context, ~0.5 MB) is not kept: the text is
        # what compiling needs, and a cache of many signatures must not hold contexts
        if staged.module is not None:
            staged = dataclasses.replace(staged, module=None)
        self.staged = staged
        self.device = device
        self._exe = executable
        self.upload = Uploader(staged.arg_avals, device)
        # how mutated arguments reach the caller's arrays: only the regions that
        # changed, through outputs XLA writes in place (see `writeback`); it changes the
        # module, so the executable is compiled from the plan's text
        self._plan = writeback.plan(staged)
        self._text = staged.module_text if self._plan is None else self._plan.module_text
        # arguments not 64-byte aligned may go in without a copy (see `superset`)
        self._shift = Shifter.make(self._text, staged.arg_avals, device, self.compile_text)
        # checks that name an offending value have them as the output before the flags
        self._payloads = uses_payloads(staged.error_messages)
        # checks that a speculative window held its slice: (flag index, site, payload)
        self._window_checks = [(k, m[1], m[3]) for k, m in enumerate(staged.error_messages)
                               if type(m) is tuple and m[0] is WindowOverflow]
        self.param_leaves = staged.param_leaves
        # results that are all plain outputs (no write-back, checks, callbacks or
        # constants) take a shorter path: [(output index, weak)]
        plain = not (staged.writeback or staged.error_messages or staged.host_callbacks)
        self._plain = [(slot[1], slot[2]) for slot in staged.out_slots] if plain and all(
            slot[0] == "out" for slot in staged.out_slots) else None
        # the same, allowing in-place updates of DeviceArrays and constant results
        # (`return None`): the fast path of calls with device arrays
        self.resident_plain = not (staged.error_messages or staged.host_callbacks) and \
            all(s[0] in ("out", "const") for s in staged.out_slots)
        self.param_of = {leaf: p for p, leaf in enumerate(staged.param_leaves)}
        self.writes_whole = self._plan is None      # the staged module as compiled
        self.resident_exes: dict = {}    # see `residency.executable`

    def compile_text(self, text):
        return compile_module(text, self.device, self.staged.host_callbacks)

    @property
    def executable(self):
        if self._exe is None:
            self._exe = self.compile_text(self._text)
        return self._exe

    def _placed(self, leaves):
        """(executable, parameter buffers) for one call."""
        params = [leaves[i] for i in self.param_leaves]
        if self._shift is not None:
            params, variant = self._shift.prepare(params)
            if variant is not None:
                return variant[0], variant[1](params)
        return self.executable, self.upload(params)

    def fast_runner(self, n_args):
        """A callable taking the positional NumPy arguments (all parameters, plain
        results) and returning the result: dispatched by JAX's C++ path when available,
        else `run`."""
        return fastcall.make(self.executable, self.device, self.upload, n_args,
                             self._finish, self._shift) or self.run

    @functools.cached_property
    def _finish(self):
        """Device outputs -> the user's result, specialised to the result's structure
        (this runs on every call)."""
        plain, treedef = self._plain, self.staged.out_treedef
        if treedef is None and len(plain) == 1:
            (k, weak), = plain
            return lambda outs: to_result(outs[k], weak)
        if treedef is not None and treedef[0] is tuple and all(d is None for d in treedef[1]):
            return lambda outs: tuple([to_result(outs[k], weak) for k, weak in plain])
        return lambda outs: unflatten(treedef, iter([to_result(outs[k], weak)
                                                     for k, weak in plain]))

    def run(self, leaves, output="numpy", holders=None):
        """Execute for one call: plain outputs take a short path; otherwise host callbacks,
        run-time checks (raised as the NumPy exception they stand for, before
        anything is written back), write-back into the caller's arrays and
        results rebuilt as NumPy values or left on the device. `holders`: {leaf
        position: DeviceArray} of the arguments passed as DeviceArrays."""
        if holders and any(i in holders for i, _ in self.staged.writeback):
            return residency.run_resident(self, leaves, output, holders)
        for i, _ in self.staged.writeback:
            leaf = leaves[i]
            if type(leaf) is np.ndarray and not leaf.flags.writeable:
                return self._run_read_only(leaves, output, holders)
        if self._plain and output == "numpy":
            exe, bufs = self._placed(leaves)
            outs = exe.execute(bufs)
            results = [to_result(outs[k], weak) for k, weak in self._plain]
            return unflatten(self.staged.out_treedef, iter(results))
        st, plan = self.staged, self._plan
        exe, bufs = self._placed(leaves)
        if plan is not None:
            bufs = plan.donate(bufs, self.device)
        outs = execute_with_callbacks(exe, bufs) if st.host_callbacks else exe.execute(bufs)
        try:
            self.check(outs)
            if plan is not None:
                plan.write(leaves, outs)
        finally:
            if plan is not None:
                plan.keep(outs, self.device)
        return self._results(outs, output, leaves)

    def _run_read_only(self, leaves, output, holders):
        """A call where some array the program writes back is read-only: NumPy raises
        `ValueError` at the write, if one happens. The program runs on copies of the
        arguments it writes back; a read-only one it changed raises before anything
        reaches the caller (the caller's arrays stay untouched: docs/semantics.md),
        otherwise the copies are written back into the writable ones."""
        targets = {i for i, _ in self.staged.writeback}
        copies = {i: np.array(leaves[i], copy=True) for i in targets
                  if type(leaves[i]) is np.ndarray}
        result = self.run([copies.get(i, leaf) for i, leaf in enumerate(leaves)], output,
                          holders)
        for i, copy in copies.items():
            if not leaves[i].flags.writeable and copy.tobytes() != leaves[i].tobytes():
                raise ValueError("assignment destination is read-only")
        for i, copy in copies.items():
            if leaves[i].flags.writeable:
                np.copyto(leaves[i], copy)
        originals = {id(copy): leaves[i] for i, copy in copies.items()}
        return _replace(result, originals)

    def check(self, outs):
        """Raise the NumPy exception of the first run-time check that failed."""
        messages = self.staged.error_messages
        if messages:
            flags = np.asarray(outs[-1])
            if flags.any():
                payloads = np.asarray(outs[-2]) if self._payloads else None
                # a window too short makes the rest of the run meaningless: widen first
                needs = {site: int(payloads[slot]) for k, site, slot in self._window_checks
                         if flags[k]}
                if needs:
                    raise WindowOverflow(needs)
                raise raise_for(messages[int(np.argmax(flags))], payloads)

    def _results(self, outs, output, leaves):
        return build_result(self.staged, outs, output, leaves)


def _replace(tree, originals):
    """`tree` (a result) with the argument copies of `_run_read_only` replaced by the
    caller's arrays they stand for."""
    t = type(tree)
    if t in (list, tuple):
        return t(_replace(x, originals) for x in tree)
    if isinstance(tree, tuple) and hasattr(t, "_fields"):
        return t(*[_replace(x, originals) for x in tree])
    if t is dict:
        return {k: _replace(v, originals) for k, v in tree.items()}
    return originals.get(id(tree), tree)
