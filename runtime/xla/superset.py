"""Large arguments that are not 64-byte aligned, passed without a copy where that is
cheaper.

XLA's CPU client uses a NumPy array's memory in place only when its address is a
multiple of 64 (its compiled code assumes that alignment); NumPy allocates on 16 bytes,
so a big default array is copied on every call (`transfer.aligned`, memcpy speed; the
client's own copy is ~5x slower). There is no way to tell the client to accept less
alignment, and a DLPack view is held to the same rule. What it does accept is the
64-byte-aligned *superset* that starts up to 48 bytes before the array: a flat buffer
of k more elements, which the program slices back (`slice [k:k+n]`, `reshape`) before
anything else. The bytes before the array lie in the same 64-byte line as its first
element, hence in the same page: reading them cannot fault (on x86-64, which has no
memory tagging; elsewhere this stays off), and no result depends on them. XLA never
writes a parameter it does not own.

That slice is free only where XLA fuses it into a loop that computes something (an
elementwise kernel, a stencil, reading a few elements). Where the operand must exist as
a buffer of its own (a dot, a reduction lowered to XNNPACK, a while loop), XLA copies
the slice, more slowly than memcpy. So a variant (one per set of offsets, compiled the
second time a call needs it: a one-off call keeps the copy) is kept only when its
optimized HLO reads each shifted parameter in such computing loops or in small pieces;
otherwise that signature keeps the copy.
"""
from __future__ import annotations

import platform
import re
import threading

import numpy as np

from npxla.runtime.lowering.callbacks import CPU_BUFFER_CALLBACK_TARGET
from npxla.runtime.xla import module_edit, superset_callbacks, superset_dot, \
    superset_heads, superset_windows
from npxla.runtime.xla.addresses import data_address
from npxla.runtime.xla.transfer import Uploader

# below, PJRT's own copy costs a few microseconds; from about 100 KB on it costs tens
# (a `sum` of 160,000 bytes 80 µs with it, 35 through a variant; NumPy 5)
_MIN_BYTES = 1 << 17
_ALIGN = 64
_ENABLED = platform.machine().lower() in ("x86_64", "amd64")
# variants per executable: arrays from the heap come at 16, 32 or 48 bytes past a line,
# and each combination over the arguments is a compile
_MAX_VARIANTS = 4
# HLO opcodes that only move data: a fusion made of these alone copies its operand
_MOVES = frozenset({"parameter", "slice", "bitcast", "reshape", "copy", "transpose",
                    "broadcast", "concatenate", "pad", "reverse", "dynamic-slice",
                    "constant", "tuple", "get-tuple-element", "iota", "bitcast-convert"})


# variants compile on a thread of their own (`_variant`); tests that count on a variant
# being there by a given call turn this off (tests/conftest.py)
BACKGROUND = True
_BUILDS: set = set()              # variant compiles in flight, over all Shifters
_BUILDS_LOCK = threading.Lock()


def _start_build(build, *args):
    def run():
        try:
            build(*args)
        finally:
            with _BUILDS_LOCK:
                _BUILDS.discard(thread)
    # not a daemon: the interpreter waits for a compile in flight before it exits
    thread = threading.Thread(target=run, name="npxla-variant")
    thread.start()
    with _BUILDS_LOCK:
        _BUILDS.add(thread)


def building() -> bool:
    """Whether a variant compile is in flight (it takes a core: calls timed meanwhile
    run slower than they will, `driver.numpy_tier`)."""
    return any(t.is_alive() for t in list(_BUILDS))


def wait_for_variants():
    """Wait until no variant compile is in flight (benchmarks time steady calls after
    it; tests of the background builds). A forked child's copies of its parent's
    threads are not alive there."""
    while True:
        with _BUILDS_LOCK:
            _BUILDS.intersection_update([t for t in _BUILDS if t.is_alive()])
            threads = list(_BUILDS)
        if not threads:
            return
        for thread in threads:
            thread.join()


class Shifter:
    """Per executable: which parameters may take a superset, the variants built for the
    offsets seen, and the per-call choice."""

    def __init__(self, module_text, arg_avals, device, compile_text):
        self.avals = [(tuple(s), np.dtype(d)) for s, d in arg_avals]
        self.candidates = [p for p, (s, d) in enumerate(self.avals)
                           if int(np.prod(s)) * d.itemsize >= _MIN_BYTES]
        self.module_text = module_text
        self.device = device
        self._compile = compile_text
        self._variants: dict = {}     # offsets -> (executable, uploader) or False
        self._splits: dict = {}       # offsets -> {parameter: k} passed split (`superset_dot`)
        self._heads: dict = {}        # offsets -> {parameter: j} passed headless (`superset_heads`)
        self._by_shapes: dict = {}    # the parameters' shapes of a variant -> the variant
        self._seen: dict = {}
        self._pending: set = set()    # offsets whose variant is being built
        self._lock = threading.Lock()
        self._products = None         # {parameter: needs finite ends}, from `superset_dot.plan`
        self._looped = None           # parameters a loop updates (`updated_in_loops`)

    @classmethod
    def make(cls, module_text, arg_avals, device, compile_text):
        """A Shifter, or None where no parameter could ever take a superset."""
        if not _ENABLED or device.platform != "cpu":
            return None
        s = cls(module_text, arg_avals, device, compile_text)
        return s if s.candidates else None

    def prepare(self, params):
        """(params with supersets in place of shifted arrays, (executable, uploader)),
        or (params, None) for the base executable."""
        key = None
        for j, p in enumerate(self.candidates):
            value = params[p]            # (inline: this runs on every call)
            if type(value) is not np.ndarray or not value.flags.c_contiguous:
                continue
            off = data_address(value) % _ALIGN
            if off and not off % value.itemsize and value.dtype == self.avals[p][1]:
                key = key or [0] * len(self.candidates)
                key[j] = off // value.itemsize
        if key is None:
            return params, None
        key = tuple(key)
        variant = self._variants.get(key)
        if variant is None:
            variant = self._variant(key)
        if variant is False:
            return params, None
        heads = self._heads.get(key)
        if heads:
            params, tails = list(params), []
            for p, j in sorted(heads.items()):
                params[p], head = superset_heads.split(params[p], j)
                tails.append(head)
            return params + tails, variant
        splits = self._splits[key]
        for p, k in splits.items():
            if self._products[p] and not superset_dot.needs_finite(params[p], k):
                return params, None   # A @ x multiplies them by zero: the copy is exact
        params = list(params)
        tails = []
        for k, p in zip(key, self.candidates):
            if k and p in splits:
                tails.append(params[p].reshape(-1)[-k:].copy())
                params[p] = _superset(params[p], k)[:params[p].size].reshape(params[p].shape)
            elif k:
                params[p] = _superset(params[p], k)
        return params + tails, variant

    def for_shapes(self, params):
        """The variant `prepare` chose for these (already prepared) arguments, or None."""
        return self._by_shapes.get(tuple(np.shape(x) for x in params))

    def _variant(self, key):
        """The variant for `key` from the second call that wants it on: False until it
        is built. It is compiled off the calling thread (`BACKGROUND`), so a steady
        call never waits for a compile (a Cholesky of 400 x 400: 1.5 s); calls run on
        the base executable, with the memcpy, until it is ready."""
        with self._lock:
            if key in self._variants:
                return self._variants[key]
            if key in self._pending:
                return False
            self._seen[key] = self._seen.get(key, 0) + 1
            if self._seen[key] < 2:
                return False
            if sum(1 for v in self._variants.values() if v) + len(self._pending) >= \
                    _MAX_VARIANTS:
                self._variants[key] = False
                return False
            shifts = {p: k for k, p in zip(key, self.candidates) if k}
            if self._looped is None:
                try:
                    self._looped = updated_in_loops(self.module_text, self.candidates)
                except Exception:  # pragma: no cover - a module we cannot read
                    self._looped = set()
            if self._looped.intersection(shifts):
                self._variants[key] = False   # known without compiling (`updated_in_loops`)
                return False
            self._pending.add(key)
        if not BACKGROUND:
            return self._build(key, shifts)
        _start_build(self._build, key, shifts)
        return False

    def _build(self, key, shifts):
        """Compile and judge the variant for `key`; publish it (`_variants` last, which
        `prepare` reads without the lock) and return it."""
        splits, variant = {}, False
        try:
            splits, variant = self._compiled(key, shifts)
        except Exception:  # pragma: no cover - the base executable still runs
            variant = False
        finally:
            with self._lock:
                self._splits[key] = splits
                self._variants[key] = variant
                self._pending.discard(key)
        return variant

    def _compiled(self, key, shifts):
        """(parameters passed split, the variant or False): the sliced superset's
        variant, else the headed one (`_headed`), each kept only where XLA's program
        reads the arguments in place."""
        if self._products is None:
            try:
                self._products = superset_dot.plan(self.module_text, self.avals,
                                                   self.candidates)
            except Exception:  # pragma: no cover - a module we cannot read
                self._products = {}
        splits = {p: k for p, k in shifts.items() if p in self._products}
        slices = {p: k for p, k in shifts.items() if p not in splits}
        try:
            text, pieces = self.module_text, {}
            if splits:
                text = superset_dot.split_module(text, splits, self.avals)
            if slices:
                text, pieces = shifted_module(text, slices, self.avals)
            exe = self._compile(text, pieces)
        except Exception:  # pragma: no cover - the base executable still runs
            exe = None
        if exe is None or not reads_in_place(exe, slices, self.avals, splits):
            return splits, (False if splits else self._headed(key, shifts))
        avals = [((int(np.prod(s)) + slices[p],), d) if p in slices else (s, d)
                 for p, (s, d) in enumerate(self.avals)]
        avals += [((k,), self.avals[p][1]) for p, k in sorted(splits.items())]
        variant = (exe, Uploader(avals, self.device))
        self._by_shapes[tuple(s for s, _ in avals)] = variant
        return splits, variant

    def _headed(self, key, shifts):
        """The variant that passes each shifted parameter as its aligned part and a
        copied head (`superset_heads`), or False where XLA would still copy one."""
        heads = superset_heads.head_lengths(shifts, self.avals, _ALIGN)
        try:
            exe = self._compile(superset_heads.headed_module(self.module_text, heads,
                                                             self.avals), {})
        except Exception:  # pragma: no cover - the base executable still runs
            return False
        if not reads_in_place(exe, {}, self.avals, heads=heads):
            return False
        avals = [((int(np.prod(s)) - heads[p],), d) if p in heads else (s, d)
                 for p, (s, d) in enumerate(self.avals)]
        avals += [((j,), self.avals[p][1]) for p, j in sorted(heads.items())]
        variant = (exe, Uploader(avals, self.device))
        self._by_shapes[tuple(s for s, _ in avals)] = variant
        self._heads[key] = heads
        return variant


class _Span:
    """Keeps the argument alive under the superset's view of its memory."""
    __slots__ = ("__array_interface__", "_base")


def _superset(value, k):
    span = _Span()
    start = data_address(value) - k * value.itemsize
    span.__array_interface__ = {"shape": (value.size + k,), "typestr": value.dtype.str,
                                "data": (start, True), "version": 3}
    span._base = value
    return np.asarray(span)


def updated_in_loops(module_text, candidates):
    """The parameters among `candidates` that a `while` takes as a value it changes.

    XLA copies such a parameter into a buffer the loop owns whatever it is given, so a
    variant could only trade the memcpy for XLA's slower copy of the slice (or of the
    rebuilt whole, `superset_heads`): `reads_in_place` would refuse it. Deciding that
    from the module saves the compile a steady call would otherwise pay (1.5 s for a
    Cholesky of 400 x 400, once per alignment offset)."""
    with module_edit.editing(module_text) as edit:
        block = edit.block
        return {p for p in candidates
                if any(_changed_by_loop(use.owner, use.operand_number)
                       for use in block.arguments[p].uses)}


def _changed_by_loop(op, index):
    """Whether `op` is a `while` whose body hands on something else than its own
    argument `index` (a loop that only reads a value passes it through untouched), or a
    reshape of the value that such a loop takes."""
    if op.name == "stablehlo.reshape":
        return any(_changed_by_loop(use.owner, use.operand_number)
                   for use in op.result.uses)
    if op.name != "stablehlo.while":
        return False
    body = op.regions[1].blocks[0]
    returned = list(body.operations)[-1].operands[index]
    return returned != body.arguments[index]


def shifted_module(module_text, shifts, avals):
    """`module_text` whose parameters p in `shifts` take the flat superset of shifts[p]
    more elements and slice the argument out of it first, and the host callbacks that
    now read a superset whole (`superset_callbacks.read_whole`)."""
    pieces: dict = {}
    with module_edit.editing(module_text) as edit:
        ir, hlo, block = edit.ir, edit.hlo, edit.block
        for p, k in sorted(shifts.items()):
            arg = block.arguments[p]
            shaped = ir.RankedTensorType(arg.type)
            n = int(np.prod(avals[p][0]))
            arg.set_type(ir.RankedTensorType.get([n + k], shaped.element_type))
            with ir.InsertionPoint.at_block_begin(block):
                cut = hlo.SliceOp(arg, [k], [k + n], [1])
                value = cut.result
                if tuple(avals[p][0]) != (n,):
                    value = hlo.ReshapeOp(shaped, value).result
            arg.replace_all_uses_except(value, cut.operation)
            superset_windows.read_windows(value, arg, k, tuple(avals[p][0]), hlo, ir)
            pieces.update(superset_callbacks.read_whole(value, arg, k, tuple(avals[p][0]),
                                                        ir))
        return edit.text(), pieces


_INSTR = re.compile(r"^\s*(?:ROOT\s+)?(%[\w.\-]+)\s*=\s*(.*?)\s([\w\-]+)\((.*)$")


def reads_in_place(executable, shifts, avals, splits=None, heads=None):
    """Whether XLA's optimized program reads every shifted parameter only in loops that
    compute something or in small pieces (never copies most of it first), every split
    one (`superset_dot`) only in dots or small pieces, and every headless one
    (`superset_heads`, {p: j}) like a shifted one or whole, in a reduction. Anything it
    cannot read in the HLO text counts as a copy."""
    splits, heads = splits or {}, heads or {}
    try:
        text = "\n".join(m.to_string() for m in executable.hlo_modules())
        comps = _computations(text)
        entry = next(body for head, body in comps.items() if head.startswith("ENTRY"))
    except Exception:  # pragma: no cover - an HLO text we do not understand
        return False
    params, split, whole = {}, set(), set()
    for line in entry:
        m = _INSTR.match(line)
        if m and m.group(3) == "parameter":
            number = int(m.group(4).split(")")[0])
            if number in shifts or number in splits or number in heads:
                params[m.group(1)] = int(np.prod(avals[number][0]))
                if number in splits:
                    split.add(m.group(1))
                if number in heads:
                    whole.add(m.group(1))
    if len(params) != len(shifts) + len(splits) + len(heads):
        return False
    if not _reads_ok(entry, params, split, comps, whole):
        return False
    # a superset carried into a loop or a call: checked where it is read, found by its
    # type (a flat array of exactly n + k elements; a headless one's, n - j)
    flat = {f"[{int(np.prod(avals[p][0])) + k}]": int(np.prod(avals[p][0]))
            for p, k in shifts.items()}
    flat.update({f"[{int(np.prod(avals[p][0])) - j}]": int(np.prod(avals[p][0]))
                 for p, j in heads.items()})
    fused = set(re.findall(r"calls=(%[\w.\-]+)", text))   # judged where they are called
    for head, body in comps.items():
        if head.startswith("ENTRY") or head.split()[0] in fused:
            continue
        names = {}
        for line in body:
            m = _INSTR.match(line)
            if m and m.group(3) in ("parameter", "get-tuple-element"):
                n = next((n for t, n in flat.items() if re.match(r"^\w+" + re.escape(t) + r"(\{|$)",
                                                                  m.group(2))), None)
                if n is not None:
                    names[m.group(1)] = n
        if names and not _reads_ok(body, names, set(), comps, set(names) if heads else ()):
            return False
    return True


# opcodes that pass a value along whole: a loop, a call or a tuple carries the
# superset to where it is read
_CARRIERS = frozenset({"tuple", "get-tuple-element", "while", "call", "conditional"})
# the host callback that reads XLA's buffers where they are (`superset_callbacks`)
_READS_IN_PLACE = f'custom_call_target="{CPU_BUFFER_CALLBACK_TARGET}"'
# a fusion XLA:CPU hands to its reduction library, which reads its operands in place
_REDUCTION_LIBRARY = '"kind":"__ynn_fusion"'


def _reads_ok(body_lines, params, split, comps, whole=()):
    """Whether the instructions of one computation read each of `params` ({name:
    elements}) only in computing loop fusions or small pieces (those in `split` only
    in dots or small pieces; those in `whole` also in reductions), or pass it along
    whole; a bitcast of one of `whole` is checked as it is)."""
    params, whole = dict(params), set(whole)
    for line in body_lines:
        m = _INSTR.match(line)
        if m is None or m.group(3) == "parameter":
            continue
        name, rtype, opcode, rest = m.groups()
        operands = set(re.findall(r"%[\w.\-]+", rest.split("),")[0]))
        for pname, n in list(params.items()):
            if pname not in operands or _elements(rtype) * 4 < n:
                continue          # not a use, or a small piece of it
            if pname in split:
                if opcode != "dot":
                    return False
                continue
            if opcode in _CARRIERS or (opcode == "custom-call" and _READS_IN_PLACE in rest):
                continue
            if pname in whole and opcode == "bitcast":
                params[name] = n
                whole.add(name)
                continue
            if pname in whole and (_REDUCTION_LIBRARY in rest or opcode not in _MOVES and
                                   opcode not in ("fusion", "custom-call")):
                continue      # a reduction, or an elementwise op XLA left unfused
            called = re.search(r"calls=(%[\w.\-]+)", rest)
            if opcode != "fusion" or "kind=kLoop" not in rest or called is None:
                return False
            body = next((b for h, b in comps.items()
                         if h.split()[0] == called.group(1)), None)
            if body is None or all(_opcode(line) in _MOVES for line in body
                                   if _INSTR.match(line)):
                return False
    return True


def _computations(text):
    """{header line: body lines} of every computation in an HLO module's text."""
    comps, head, body = {}, None, []
    for line in text.splitlines():
        if head is None:
            if line.rstrip().endswith("{") and not line.startswith("HloModule"):
                head, body = line.strip(), []
        elif line.strip() == "}":
            comps[head] = body
            head = None
        else:
            body.append(line)
    return comps


def _opcode(line):
    return _INSTR.match(line).group(3)


def _elements(rtype):
    return sum(int(np.prod([int(d) for d in dims.split(",") if d])) if dims else 1
               for dims in re.findall(r"\[([\d,]*)\]", rtype))
