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

# option -> value, for XLA:CPU compiles
CPU_BACKEND_OPTIONS = {
    "xla_cpu_small_while_loop_byte_threshold": str(1 << 20),
}

# field numbers in XLA's protos: CompileOptionsProto.executable_build_options,
# ExecutableBuildOptionsProto.debug_options, DebugOptions.xla_backend_extra_options
_BUILD_OPTIONS, _DEBUG_OPTIONS, _EXTRA_OPTIONS = 3, 3, 500


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
