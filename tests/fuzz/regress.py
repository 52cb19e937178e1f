"""Shrunk failures kept as plain, importable .py files under tests/fuzz/regressions/.

Why a file per failure: `jit` needs real source, a person can open and run the file
(`python -c "import ...; f(*ARGS())"`), and the replay test imports it exactly as a
user module would be imported. Each file holds the program, an `ARGS()` factory
returning fresh arguments, `EXPECTED_BUG` (the outcome key when it was saved) and
`KNOWN` (the name of a family in `known.KNOWN`, or None).
"""
from __future__ import annotations

import hashlib
import os

import numpy as np

from .runner import load_path

REGRESSIONS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "regressions")


def literal(arg) -> str:
    """Python source that rebuilds `arg` exactly (float32 values print exactly as floats)."""
    if isinstance(arg, np.ndarray):
        return f"np.array({arg.tolist()!r}, dtype=np.{arg.dtype.name})"
    if isinstance(arg, np.generic):
        return f"np.{arg.dtype.name}({arg.item()!r})"
    return repr(arg)


def render(source: str, args, key: str, detail: str, seed=None, known=None) -> str:
    """The text of a regression file for a (shrunk) failing program."""
    lines = [line for line in detail.strip().splitlines() if line.strip()][:12]
    head = "\n".join(f"# {line}"[:100] for line in lines)
    found = f"seed {seed}" if seed is not None else "hand-written"
    body = source.strip()
    if not body.startswith("import numpy as np"):
        body = "import numpy as np\n\n" + body
    return (f'"""Fuzzer regression ({found}): {key}."""\n{body}\n\n\n'
            f"def ARGS():\n    return [{', '.join(literal(a) for a in args)}]\n\n\n"
            f"EXPECTED_BUG = {key!r}\nKNOWN = {known!r}\n\n{head}\n")


def save(source: str, args, key: str, detail: str, seed=None, known=None,
         directory: str = REGRESSIONS) -> str:
    """Write the regression file (named by a hash of the program) and return its path."""
    os.makedirs(directory, exist_ok=True)
    digest = hashlib.sha1(source.encode()).hexdigest()[:10]
    path = os.path.join(directory, f"case_{digest}.py")
    with open(path, "w") as fh:
        fh.write(render(source, args, key, detail, seed, known))
    return path


def cases(directory: str = REGRESSIONS) -> list[str]:
    if not os.path.isdir(directory):
        return []
    return sorted(os.path.join(directory, n) for n in os.listdir(directory)
                  if n.startswith("case_") and n.endswith(".py"))


def load(path: str):
    """(module, args) of a regression file."""
    module = load_path(path)
    return module, module.ARGS()
