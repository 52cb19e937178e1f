"""`npxla emit FILE::FUNC --sig ...`: print the StableHLO (or XLA HLO) that @jit compiles."""
from __future__ import annotations

import argparse
import ast
import contextlib
import importlib.util
import os
import sys
import warnings

from npxla.runtime.driver.commands import CommandFailed, UsageError, no_such_file
from npxla.runtime.driver.commands.signature import (SignatureError, bind, parse_signature,
                                                     parse_static)
from npxla.transpiler.module_convert import JitNames, jitted_functions
from npxla.transpiler.base.errors import InternalCompilerError, TranspileError

DESCRIPTION = """\
Print the IR that @jit compiles for one function and one signature.

FILE is imported (its module-level code runs, as with 'python -c "import FILE"',
but not its 'if __name__ == "__main__":' block), FUNC is looked up in it (a dotted
name such as Model.step works), and the function is staged with abstract arguments:
NumPy zeros of the shapes and dtypes of --sig. Parameters --sig does not cover (all
without --sig) take their annotation: a string in the --sig syntax
(def f(x: "f64[100,100]", n: int)), int/float/bool/complex, or a NumPy scalar type
(np.float32: a 0-d array); otherwise they keep their defaults.

--sig syntax: entries separated by commas, each DTYPE[DIMS] for an array (f64[100,100];
f64[] or just f64 for a 0-d array), or int/float/bool/complex for a Python scalar
(traced as a weak scalar, like a Python number passed to the jitted function).
DTYPE is one of pred bool f16 f32 f64 c64 c128 i8 i16 i32 i64 u8 u16 u32 u64, or a
NumPy name (float32, int64, ...). name=TYPE gives one parameter by name.

If FUNC is decorated with @jit(static_argnums=..., device=...), those options are kept
(--sig skips its static parameters; give their values with --static). --static
NAME=VALUE makes a parameter static with that value (a Python literal, else a string).
Values that decide shapes (n in np.zeros(n)) should be static."""

EPILOG = """\
examples:
  npxla emit model.py::step --sig 'f64[100,100], i64[]'
  npxla emit model.py::step --sig 'f64[100,100], int' --ir hlo
  npxla emit model.py::heat --sig 'u=f64[1000], alpha=f64' --static steps=50
  npxla emit model.py::step              # shapes from annotations: def step(x: "f64[100,100]")
  npxla emit model.py --sig 'f32[8]'     # FILE with exactly one @jit function
  npxla emit model.py::step --sig 'f32[8]' --device gpu -o step.mlir

exit status:
  0  the IR was printed
  1  the function cannot be compiled (a located npxla error), or importing FILE failed
  2  usage error (bad FILE::FUNC, --sig, --static) or internal error"""


def add_arguments(parser: argparse.ArgumentParser):
    parser.add_argument("target", metavar="FILE::FUNC",
                        help="the Python file and the function in it (FUNC may be dotted, "
                             "and may be left out when FILE has exactly one @jit function)")
    parser.add_argument("--sig", metavar="SIGNATURE",
                        help="argument types, e.g. 'f64[100,100], i64[], int' (default: "
                             "the parameters' annotations)")
    parser.add_argument("--ir", "--format", dest="format", choices=("stablehlo", "hlo"),
                        default="stablehlo",
                        help="which IR: stablehlo, the module npxla builds (default); hlo, "
                             "XLA's HLO after compiling for --device (--format is the old "
                             "spelling)")
    parser.add_argument("--device", metavar="DEVICE",
                        help="cpu, gpu, cuda:N or tpu (default: the function's own device, "
                             "else the best available)")
    parser.add_argument("--static", metavar="NAME=VALUE", action="append", default=[],
                        help="make parameter NAME static with the Python value VALUE "
                             "(repeatable)")
    parser.add_argument("-o", "--output-file", "--output", dest="output", metavar="FILE",
                        help="write the IR to FILE instead of standard output (as ruff's "
                             "--output-file)")


def split_target(target: str):
    path, sep, func = target.partition("::")
    if not sep:
        path, func = target, None
    if not path:
        raise UsageError(f"{target!r}: expected FILE::FUNC (e.g. model.py::step)")
    if sep and not func:
        raise UsageError(f"{target!r}: no function name after '::'")
    if not os.path.exists(path):
        raise no_such_file(path)
    if not os.path.isfile(path):
        raise UsageError(f"{path}: not a file (emit takes one Python file)")
    return path, func


def _only_jitted(path):
    with open(path, encoding="utf-8") as fh:
        source = fh.read()
    try:
        tree = ast.parse(source, filename=path)
    except SyntaxError as e:
        raise CommandFailed(f"{path}:{e.lineno}:{e.offset or 1}: E999 SyntaxError: {e.msg}")
    found = [q for _, q in jitted_functions(tree, jit_names=JitNames(tree))]
    if len(found) != 1:
        what = ("no @jit function" if not found
                else f"{len(found)} @jit functions ({', '.join(found)})")
        raise UsageError(f"{path} has {what}; name one as {path}::FUNC")
    return found[0]


def import_file(path: str):
    """Import `path` as a module (its directory first on sys.path, not as __main__)."""
    name = os.path.splitext(os.path.basename(path))[0]
    if not name.isidentifier():
        name = "npxla_emit_target"
    directory = os.path.dirname(os.path.abspath(path))
    if directory not in sys.path:
        sys.path.insert(0, directory)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    previous = sys.modules.get(name)
    sys.modules[name] = module
    try:
        with contextlib.redirect_stdout(sys.stderr):   # keep stdout for the IR
            spec.loader.exec_module(module)
    except BaseException as e:
        if previous is not None:
            sys.modules[name] = previous
        else:
            sys.modules.pop(name, None)
        if isinstance(e, KeyboardInterrupt):
            raise
        import traceback
        tb = "".join(traceback.format_exception(type(e), e, e.__traceback__))
        raise CommandFailed(f"importing {path} failed:\n{tb.rstrip()}") from None
    return module


def _lookup(module, func, path):
    obj = module
    for part in func.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            names = sorted(n for n, v in vars(module).items() if not n.startswith("_")
                           and getattr(getattr(v, "__wrapped__", v), "__module__", None)
                           == module.__name__ and callable(v) and not isinstance(v, type))
            raise UsageError(f"{path} has no function {func!r}"
                             + (f" (functions: {', '.join(names)})" if names else "")) from None
    return obj


def run(args) -> int:
    # lazy: the runtime imports JAX and XLA, which `npxla lint` and `convert` never need
    """`npxla emit`: import the file, find the function, bind the --sig shapes (and
    --static values) to its parameters and print the StableHLO or HLO that @jit
    would compile, keeping the options of a @jit decorator found on it."""
    from npxla.runtime.driver.api import jit
    from npxla.runtime.driver.jitted import JittedFunction
    from npxla.runtime.xla import devices
    path, func = split_target(args.target)
    try:
        specs = parse_signature(args.sig) if args.sig is not None else None
        statics = parse_static(args.static)
    except SignatureError as e:
        raise UsageError(str(e)) from None
    if func is None:
        func = _only_jitted(path)
    module = import_file(path)
    obj = _lookup(module, func, path)
    if isinstance(obj, JittedFunction):
        fn = obj.__wrapped__
        static_nums, static_names = obj._static_argnums, obj._static_argnames
        device = args.device or obj._device_spec
    elif callable(obj) and hasattr(obj, "__code__"):
        fn, static_nums, static_names, device = obj, frozenset(), frozenset(), args.device
    else:
        raise UsageError(f"{path}::{func} is a {type(obj).__name__}, not a function")
    qualname = f"{path}::{func}"
    try:
        call_args, call_kwargs, _ = bind(fn, specs, statics, qualname, static_names)
    except SignatureError as e:
        raise UsageError(str(e)) from None
    if device is not None:
        try:
            devices.resolve(device)
        except (ValueError, RuntimeError) as e:
            raise UsageError(f"--device {device}: {e}") from None
    jitted = jit(fn, static_argnums=tuple(static_nums),
                 static_argnames=tuple(set(static_names) | set(statics)), device=device)
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = _show_warning
        text = lower_text(jitted, call_args, call_kwargs, args.format)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as fh:
            fh.write(text if text.endswith("\n") else text + "\n")
    else:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0


def lower_text(jitted, args, kwargs, fmt):
    """The IR text; user-level failures become CommandFailed, npxla bugs propagate."""
    try:
        lowered = jitted.lower(*args, **kwargs)
        text = lowered.as_text(fmt)
    except InternalCompilerError:
        raise
    except TranspileError as e:
        raise CommandFailed(str(e)) from None
    except Exception as e:
        notes = getattr(e, "__notes__", None)
        if not notes:       # not located in the user's code: an npxla bug
            raise
        raise CommandFailed("\n".join(notes + [f"{type(e).__name__}: {e}"])) from None
    return text       # `Lowered.as_text` prints StableHLO in MLIR's readable syntax


def pretty_stablehlo(text: str) -> str:
    """The module in MLIR's custom (readable) syntax (see `driver.lowered`)."""
    from npxla.runtime.driver.lowered import pretty_stablehlo as pretty
    return pretty(text)


def _show_warning(message, category, filename, lineno, file=None, line=None):
    sys.stderr.write(f"{filename}:{lineno}: {category.__name__}: {message}\n")
