"""A staged program as the XLA side receives it: StableHLO text plus the recipe that maps
the executable's outputs back to the caller's results, write-backs and checks.

Staging (the driver) makes it, the disk cache stores it field by field, the compiled
callable runs it; it lives here, below all three.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Staged:
    """What one staging run produced: the module and how to map results back."""
    module_text: str
    arg_avals: list                  # (shape, dtype) per parameter
    param_leaves: list               # flat-leaf positions that are parameters
    out_treedef: object
    # per result leaf: ("out", k, kind), ("packed", k, position, kind) (a 0-d result
    # read from vector output k: `driver.packing`), ("const", value), ("arg", flat
    # position), ("bounded", k, counts k, axes) or ("dup", earlier result leaf)
    out_slots: list
    writeback: list = field(default_factory=list)   # (flat leaf position, output k)
    error_messages: list = field(default_factory=list)
    module: object = None
    host_callbacks: list = field(default_factory=list)  # index -> Python callable (print)
    dependencies: list = field(default_factory=list)    # user functions converted
    # Python side effects to replay after each run: (op, path, name) per entry, whose
    # payloads are the second item of the result tree (see `operators.effects`)
    effects: list = field(default_factory=list)
