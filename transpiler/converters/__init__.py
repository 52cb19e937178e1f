"""One converter per construct, run in a fixed order (see PASSES).

Each module exposes `transform(node, ctx) -> node`. Order matters: the unsupported
check runs first, item assignment is rewritten before calls (so the generated
`ag__.*` calls are recognised and left alone by the call converter).
"""
from . import unsupported, slices, call_trees

PASSES = (unsupported, slices, call_trees)
