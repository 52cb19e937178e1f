"""Results that are text made from traced values (`return f"mean={m:.3f}"`, `"%d" % n`).

While staging, such a string is a `DeferredStr`: its values are only known when the
program runs, and its own characters are a placeholder (`<traced float64>`). A result
leaf that is one must not reach the caller as that placeholder: its traced values leave
the program as extra outputs and the caller's side formats the string from them after
each run, exactly as the f-string would have in NumPy code (a `("text", template,
outputs)` slot, see `Finisher.results`)."""
from __future__ import annotations

from npxla.runtime.operators.printing import _fill, _lift


def text_slot(leaf, outputs):
    """The slot of DeferredStr `leaf`, whose values are appended to `outputs`."""
    operands: list = []
    template = _lift(leaf, operands)
    first = len(outputs)
    outputs.extend(v.ir for v in operands)
    return ("text", template, list(range(first, len(outputs))))


def render_text(slot, outs) -> str:
    """The string of a text slot, from one run's outputs."""
    return _fill(slot[1], [outs.numpy(k) for k in slot[2]])
