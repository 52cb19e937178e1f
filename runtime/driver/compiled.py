"""One executable for one signature, and how to execute it on one device: placing the
parameters, the variant of the executable a call needs, running it.

`JittedFunction` (`jitted.py`) decides *which* program a call needs (signatures,
guards, staging policy); `runpath` runs it, and `finish` turns its outputs into what
the caller sees (checks, write-back, results, effects). The executable is compiled
lazily from the module text, and variants of it hang off this object: arguments passed
as aligned supersets (`superset`), write-back outputs written into spare buffers
(`writeback.Plan`), updated DeviceArrays aliased to their outputs (`resident_executable`).
"""
from __future__ import annotations

import dataclasses

from npxla.runtime.driver import runpath
from npxla.runtime.driver.finish import DeviceOutputs, Finisher
from npxla.runtime.operators.printing import execute as execute_with_callbacks
from npxla.runtime.numpy.indexing.bounded_window import speculates
from npxla.runtime.staging.speculation import assumes
from npxla.runtime.xla import resident, superset_callbacks, writeback
from npxla.runtime.xla.compile import compile_module
from npxla.runtime.xla.superset import Shifter
from npxla.runtime.xla.transfer import Uploader

# the kinds of result slots (`staging`) the fast path can give
_FAST_SLOTS = frozenset({"out", "packed", "const", "arg", "dup"})


class Compiled:
    """One executable for one signature, plus the recipe to rebuild NumPy results."""

    def __init__(self, staged, device, executable=None):
        """Everything a call needs that does not depend on the call: the write-back plan
        (which changes the module compiled), the superset shifter, the finisher."""
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
        self.finisher = Finisher(staged) if self._plan is None else \
            Finisher(staged, self._plan.writeback, self._plan.regions)
        # spare buffers to hand over and take back on each run (`writeback.Plan`)
        self._spares = self._plan if self._plan is not None and self._plan.spares else None
        # arguments not 64-byte aligned may go in without a copy (see `superset`)
        self._shift = Shifter.make(self._text, staged.arg_avals, device, self.compile_text)
        self.param_leaves = staged.param_leaves
        self.param_of = {leaf: p for p, leaf in enumerate(staged.param_leaves)}
        self.writes_whole = self._plan is None      # the staged module as compiled
        self.resident_exes: dict = {}    # see `resident_executable`
        # a run that may be redone (a window too short, an assumed bool wrong) defers its
        # prints, warnings and log records until it is accepted (`Finisher.check`)
        self.redoable = bool(staged.host_callbacks) and (speculates(staged) or
                                                         assumes(staged))
        # whether calls may take the fast path (`runpath.fast_runner`): no effects,
        # results that are outputs, constants or arguments, and host callbacks only
        # without side effects (a library routine run on XLA's buffers: the executable
        # calls them whoever dispatches it). A run whose checks failed is run again on
        # the general path, which raises (`runpath.checked`)
        self.fast_eligible = not staged.effects and \
            all(getattr(fn, "npxla_pure", False) for fn in staged.host_callbacks) and \
            all(s[0] in _FAST_SLOTS for s in staged.out_slots)
        # results that are the caller's own objects (`return A` after `A += ..`): the
        # fast path gives them from the call's arguments (`runpath._writing_runner`)
        self.returns_args = any(s[0] in ("arg", "dup") for s in staged.out_slots)

    def compile_text(self, text, pieces=None):
        """`text` compiled; `pieces`: host callbacks that read an argument's superset
        (`superset_callbacks`)."""
        callbacks = superset_callbacks.with_pieces(self.staged.host_callbacks, pieces)
        return compile_module(text, self.device, callbacks)

    @property
    def executable(self):
        if self._exe is None:
            self._exe = self.compile_text(self._text)
        return self._exe

    def run(self, leaves, output="numpy", holders=None):
        """One call on flat arguments (see `runpath.run`)."""
        return runpath.run(self, leaves, output, holders)

    # --- executing once ----------------------------------------------------------------
    def execute(self, leaves, holders=None, reuse=()):
        """Run once: (outputs, the Finisher that reads them). A DeviceArray the program
        updates (`holders`: {leaf position: DeviceArray}), or buffers the caller gave up
        that results may be written into (`reuse`), take the resident executable."""
        st = self.staged
        if reuse or (holders and any(i in holders for i, _ in st.writeback)):
            return self._execute_resident(leaves, holders or {}, reuse)
        exe, bufs = self._placed(leaves)
        if self._spares is not None:
            bufs = self._spares.donate(bufs, self.device)
        deferred = [] if self.redoable else None
        outs = execute_with_callbacks(exe, bufs, deferred) if st.host_callbacks else \
            exe.execute(bufs)
        return DeviceOutputs(outs, self._spares, self.device, deferred), self.finisher

    def _placed(self, leaves):
        """(executable, parameter buffers) for one call."""
        params = [leaves[i] for i in self.param_leaves]
        if self._shift is not None:
            params, variant = self._shift.prepare(params)
            if variant is not None:
                return variant[0], variant[1](params)
        return self.executable, self.upload(params)

    def _execute_resident(self, leaves, holders, reuse):
        """The run of a program that updates DeviceArrays, or that may write results
        into the donated buffers of the leaves `reuse`: updated DeviceArrays are donated
        and aliased to their outputs (no host trip), and every write-back is whole."""
        st = self.staged
        donate = self.donated(holders)
        exe = self.resident_executable(donate, reuse)
        bufs = self.upload([leaves[i] for i in st.param_leaves])
        for i in donate:
            p = self.param_of[i]
            bufs[p] = holders[i].donatable(bufs[p])
        deferred = [] if self.redoable else None
        outs = execute_with_callbacks(exe, bufs, deferred) if st.host_callbacks else \
            exe.execute(bufs)
        return DeviceOutputs(outs, deferred=deferred), self.finisher.whole_arrays()

    # --- donation ------------------------------------------------------------------------
    def donated(self, holders):
        """Leaf positions of the updated DeviceArrays whose buffers the program
        consumes: none when a run-time check may fail (they must keep their values),
        and not a DeviceArray passed twice (one buffer cannot be consumed twice)."""
        if self.staged.error_messages:
            return ()
        held = list(holders.values())
        return tuple(i for i, _ in self.staged.writeback if i in holders and
                     sum(h is holders[i] for h in held) == 1)

    def reusable(self, gone, leaves, holders):
        """Of the leaves `gone` (device buffers the caller donated), those a result may
        be written into: not when a run-time check could fail (NumPy's exception leaves
        the arguments as they were), and only a buffer passed once that nothing else
        references."""
        if self.staged.error_messages:
            return ()
        holders = holders or {}
        return tuple(i for i in gone if i in self.param_of and _sole(i, leaves, holders)
                     and (i not in holders or holders[i]._owned))

    def resident_executable(self, donate, reuse=()):
        """The executable whose write-back outputs are whole arrays, with the parameters
        of the leaves `donate` aliased to theirs, and those of the leaves `reuse`
        (buffers the caller gave up) to free outputs of their type (compiled once per
        pair of sets)."""
        key = (donate, reuse) if reuse else donate
        exe = self.resident_exes.get(key)
        if exe is None:
            if not donate and not reuse and self.writes_whole:
                exe = self.executable
            else:
                pairs = [(self.param_of[i], k) for i, k in self.staged.writeback
                         if i in donate]
                exe = self.compile_text(resident.aliased_module(
                    self.staged.module_text, pairs, [self.param_of[i] for i in reuse]))
            self.resident_exes[key] = exe
        return exe


def _sole(i, leaves, holders):
    """Whether leaf `i`'s buffer is passed once (one buffer cannot be consumed twice)."""
    if i in holders:
        return sum(h is holders[i] for h in holders.values()) == 1
    return sum(x is leaves[i] for x in leaves) == 1
