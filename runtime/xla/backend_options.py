"""XLA backend options npxla sets per compile, and how they reach XLA.

XLA:CPU runs a `while` loop as a sequence of thunks, one per fusion of the body, and
each costs a few microseconds per iteration. Legacy NumPy loops (recurrences,
triangular solves, CSR rows, loops over output pixels) do a few hundred bytes of work
per iteration, so the thunks are most of their time. XLA can instead compile a loop
whose one iteration touches less than `xla_cpu_small_while_loop_byte_threshold` bytes
into a single function (a "small call"); its default, 1 KiB, leaves out nearly every
loop npxla stages. At 1 MiB per iteration the work outweighs the thunk overhead, and
loops that touch more keep XLA's per-fusion threading. Measured with the benchmark
suite: `prefix_scan` 3.6 -> 0.20 ms, `linear_recurrence` 1.7 -> 0.24 ms,
`cholesky_loops` 1.0 -> 0.38 ms, `csr_matvec` 12 -> 6 ms; loops over 8 MB arrays
(`diffuse_padded`) unchanged.

The options are entries of DebugOptions' `xla_backend_extra_options` map, which
PJRT's CompileOptions exposes neither as an attribute nor as an `env_option_overrides`
value (a map is not a settable scalar), so the entries are appended to the serialised
CompileOptionsProto: protobuf merges a nested message that appears twice, and a map
entry appended later wins over an earlier one with the same key. The options only
change speed, so a jaxlib whose protos would not take them compiles without them.
"""
from __future__ import annotations

import os
import re

import numpy as np

from npxla.runtime.lowering.scan import LIBRARY_LOOP

# option -> value, for XLA:CPU compiles
CPU_BACKEND_OPTIONS = {
    "xla_cpu_small_while_loop_byte_threshold": str(1 << 20),
}

# A CPU program whose temporaries take this many bytes under XLA's default scheduler is
# compiled again with the one that minimises memory, and keeps that build where it
# needs at most half the temporaries. The default orders independent kernels so that
# they may run at once, each with buffers of its own; XLA's CPU client allocates them
# afresh on every call, and fresh pages cost a fault each (~0.3 ms per MB here). Five
# unrolled `np.max(a * b + i)` over 1M doubles: 39 MB of temporaries, 17 ms a call
# (NumPy 3.5); 8.6 MB and 3.3 ms with the memory-minimising schedule. Set for every
# program, that schedule moved the suites' geometric mean by nothing (1.00 over 64
# kernels, single kernels both ways), so only the programs it shrinks take it.
LEAN_MIN_TEMP_BYTES = 16 << 20
LEAN_FLAGS = ("xla_cpu_scheduler_type", "xla_cpu_enable_concurrency_optimized_scheduler")

# A program without loops made of many small ops (a loop unrolled because its values
# change shape, over short vectors: spectrum's `rlevinson` at order 50 is 5,300 ops of
# median size 1) runs each op once per call, so its compile is nearly all its cost:
# XLA:CPU spends ~1.2 ms per op with its MLIR fusion emitters at LLVM's default level.
# Its older LLVM IR emitters, with LLVM's optimisation off, compile it 3x faster for
# the same run time (see docs/benchmarks.md, "XLA:CPU's two code generators"). Where the
# ops are large or sit in a loop, the default code is worth its compile
# (`black_scholes`, 589 ops over 10^6 elements, runs 1.7x slower with the older
# emitters; loops up to 3x). NumPy's own loops staged as a `while` (a cumsum's,
# `scan.LIBRARY_LOOP`) do not count as loops: their trips are the array's, as in NumPy
# (hurst's compute_Hc on 999 points, 230 window bodies with a running sum each: first
# call 114 -> 59 s, the calls after it 9.5 -> 3.9 ms).
QUICK_MIN_OPS = 1000
QUICK_MAX_MEDIAN_ELEMENTS = 4096
QUICK_OPTIONS = {"xla_cpu_use_fusion_emitters": False, "xla_backend_optimization_level": 0}
_OP = re.compile(r"\bstablehlo\.\w+")
_RESULT = re.compile(r"=\s*\"?stablehlo\.\w+.*tensor<([\dx]*?)x?(?:[a-z]+\d*|complex<\w+>)>\s*$",
                     re.M)


def quick_compile(module_text: str) -> bool:
    """Whether `module_text` is a program of many small ops outside any loop but NumPy's
    own, which compiles faster with `QUICK_OPTIONS` for the same run time (see above)."""
    if module_text.count("stablehlo.while") > module_text.count(LIBRARY_LOOP) or \
            len(_OP.findall(module_text)) < QUICK_MIN_OPS:
        return False
    sizes = sorted(int(np.prod([int(d) for d in dims.split("x") if d]))
                   for dims in _RESULT.findall(module_text))
    return bool(sizes) and sizes[len(sizes) // 2] <= QUICK_MAX_MEDIAN_ELEMENTS


def with_quick_compile(options):
    """`options` with `QUICK_OPTIONS` (scalar DebugOptions fields, which
    `env_option_overrides` reaches), except those the user's XLA_FLAGS name."""
    given = os.environ.get("XLA_FLAGS", "")
    options.env_option_overrides = [(k, v) for k, v in QUICK_OPTIONS.items() if k not in given]
    return options


# field numbers in XLA's protos: CompileOptionsProto.executable_build_options,
# ExecutableBuildOptionsProto.debug_options, DebugOptions.xla_backend_extra_options
_BUILD_OPTIONS, _DEBUG_OPTIONS, _EXTRA_OPTIONS = 3, 3, 500
# DebugOptions.xla_cpu_scheduler_type (jaxlib 0.10's xla.proto) and its
# CPU_SCHEDULER_TYPE_MEMORY_OPTIMIZED
_SCHEDULER_FIELD, _MEMORY_OPTIMIZED = 448, 1


def with_backend_options(options, platform: str):
    """`options` (a PJRT CompileOptions) with npxla's backend options for `platform`
    added, except those the user's XLA_FLAGS name (theirs win)."""
    table = CPU_BACKEND_OPTIONS if platform == "cpu" else {}
    given = os.environ.get("XLA_FLAGS", "")
    entries = b"".join(_field(_EXTRA_OPTIONS, _field(1, key.encode()) + _field(2, value.encode()))
                       for key, value in table.items() if key not in given)
    if not entries:
        return options
    extra = _field(_BUILD_OPTIONS, _field(_DEBUG_OPTIONS, entries))
    try:
        return type(options).ParseFromString(options.SerializeAsString() + extra)
    except Exception:  # pragma: no cover - a jaxlib with other protos
        return options


def _field(number: int, payload: bytes) -> bytes:
    """One length-delimited protobuf field."""
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        low, n = n & 0x7F, n >> 7
        out.append(low | (0x80 if n else 0))
        if not n:
            return bytes(out)


def lean_options(options):
    """`options` asking XLA:CPU for its memory-minimising schedule, or None where the
    user's XLA_FLAGS choose a scheduler (theirs win). The choice is an enum field of
    DebugOptions, which `env_option_overrides` does not reach, so it is appended to
    the serialised options like the entries above."""
    given = os.environ.get("XLA_FLAGS", "")
    if any(flag in given for flag in LEAN_FLAGS):
        return None
    value = _varint(_SCHEDULER_FIELD << 3) + _varint(_MEMORY_OPTIMIZED)
    extra = _field(_BUILD_OPTIONS, _field(_DEBUG_OPTIONS, value))
    try:
        return type(options).ParseFromString(options.SerializeAsString() + extra)
    except Exception:  # pragma: no cover - a jaxlib with other protos
        return None


def temp_bytes(executable):
    """The bytes of temporaries `executable` allocates per run, or None if unknown."""
    try:
        return int(executable.get_compiled_memory_stats().temp_size_in_bytes)
    except Exception:  # pragma: no cover - a PJRT client without the statistics
        return None
