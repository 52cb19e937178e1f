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
import re
import tempfile

import numpy as np

from .model import PACKAGE, PACKAGE_MARK
from .runner import install_package, load_path, split_package

REGRESSIONS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "regressions")


# the views an argument of feature `arg_layouts` may be of its base (see `gen_families`)
VIEW_FORMS = (".T", "[:, ::2]", "[::2]", "[::-1]", "[1:]", "[:, 1:]", "[::-1, ::-1]",
              "[:, ::-1]", "[1:, ::2]", "[:, :-1]", "[:-1]")


def literal(arg) -> str:
    """Python source that rebuilds `arg` exactly (float32 values print exactly as floats),
    with its layout: a view of a base as that view (`np.array(...)[:, ::2]`), a
    Fortran-ordered array through `np.asfortranarray`, a read-only one made read-only."""
    if isinstance(arg, np.ndarray):
        text = _plain(arg)
        base = arg.base
        if isinstance(base, np.ndarray):
            form = _view_form(arg, base)
            if form is not None:
                text = _plain(base) + form
            elif not arg.flags.c_contiguous and arg.flags.f_contiguous:
                text = f"np.asfortranarray({text})"
        elif arg.ndim > 1 and not arg.flags.c_contiguous and arg.flags.f_contiguous:
            text = f"np.asfortranarray({text})"
        if not arg.flags.writeable:
            text = f"(_a := {text}, _a.setflags(write=False))[0]"
        return text
    if isinstance(arg, np.generic):
        return f"np.{arg.dtype.name}({_value(arg.item())})"
    if isinstance(arg, list):
        return f"[{', '.join(literal(a) for a in arg)}]"
    if isinstance(arg, dict):
        return "{" + ", ".join(f"{k!r}: {literal(v)}" for k, v in arg.items()) + "}"
    if type(arg).__name__ == "NewState":     # feature `effects`: the program's class
        return f"State({', '.join(literal(a) for a in arg.fields)})"
    if type(arg).__name__ == "State":
        return f"State({', '.join(literal(getattr(arg, k)) for k in ('acc', 'count', 'buf'))})"
    return repr(arg)


def _plain(arg) -> str:
    return f"np.array({_value(arg.tolist())}, dtype=np.{arg.dtype.name})"


def _value(v) -> str:
    """`repr` of a (nested list of) Python scalar(s), with NaN and infinities as
    `np.nan`, `np.inf`, `-np.inf` (their repr, `nan`, is not a name in the file)."""
    if isinstance(v, list):
        return "[" + ", ".join(_value(i) for i in v) + "]"
    if isinstance(v, float) and not np.isfinite(v):
        return "np.nan" if np.isnan(v) else "np.inf" if v > 0 else "-np.inf"
    return repr(v)


def _view_form(arg, base):
    """Which of `VIEW_FORMS` `arg` is of `base` (same start, shape and strides)."""
    where = arg.__array_interface__["data"][0]
    for form in VIEW_FORMS:
        try:
            v = eval("b" + form, {"b": base})
        except (IndexError, ValueError):
            continue
        if v.shape == arg.shape and v.strides == arg.strides and \
                v.__array_interface__["data"][0] == where:
            return form
    return None


def render(source: str, args, key: str, detail: str, seed=None, known=None) -> str:
    """The text of a regression file for a (shrunk) failing program."""
    lines = [line for line in detail.strip().splitlines() if line.strip()][:12]
    head = "\n".join(f"# {line}"[:100] for line in lines)
    found = f"seed {seed}" if seed is not None else "hand-written"
    body, package = split_package(source.strip() + "\n")
    body = body.strip()
    if not body.startswith("import numpy as np"):
        body = "import numpy as np\n\n" + body
    tail = "" if package is None else \
        f"\n\n\n# the installed package `{PACKAGE}` (see `regress.load`)\n{PACKAGE_MARK}\n" \
        + package.strip() + "\n"
    return (f'"""Fuzzer regression ({found}): {key}."""\n{body}\n\n\n'
            f"def ARGS():\n    return [{', '.join(literal(a) for a in args)}]\n\n\n"
            f"EXPECTED_BUG = {key!r}\nKNOWN = {known!r}\n\n{head}\n{tail}")


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
    """(module, args) of a regression file. One with an installed package (feature
    `helpers_pkg`: the source after `model.PACKAGE_MARK`) has the package written under
    a temporary `site-packages` folder first; `module.__fuzz_files__` lists the files a
    refusal may point into."""
    with open(path) as fh:
        source, package = split_package(fh.read())
    if package is None:
        module = load_path(path)
        module.__fuzz_files__ = [path]
        return module, module.ARGS()
    digest = hashlib.sha1(package.encode()).hexdigest()[:10]
    name, pkg_path = install_package(package, f"{PACKAGE}_{digest}")
    main = os.path.join(tempfile.mkdtemp(prefix="npxla_fuzz_regress_"), os.path.basename(path))
    with open(main, "w") as fh:
        fh.write(re.sub(rf"\b{PACKAGE}\b", name, source))
    module = load_path(main)
    module.__fuzz_files__ = [main, pkg_path]
    return module, module.ARGS()
