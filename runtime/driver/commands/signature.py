"""Argument signatures for `npxla emit`: `f64[100,100], i64[], int`.

Grammar (one entry per argument, separated by commas outside brackets)::

    entry := [NAME "="] DTYPE "[" [DIM ("," DIM)*] "]"   an array (`f64[]`: 0-d)
           | [NAME "="] DTYPE                              a 0-d array (`f64` == `f64[]`)
           | [NAME "="] ("int" | "float" | "bool" | "complex")   a Python scalar
                                                           (traced as a weak scalar)
    DTYPE := pred bool f16 f32 f64 c64 c128 i8 i16 i32 i64 u8 u16 u32 u64
           | a NumPy dtype name (float32, int64, complex128, ...)

`bool` alone is a Python bool; `bool[]` / `pred` is a 0-d NumPy bool array. The same
spellings work as string annotations in the source (`def f(x: "f64[100,100]", n:
int)`); `int`/`float`/`bool`/`complex` and NumPy scalar types (`np.float32`) work as
plain annotations. Example arguments are NumPy zeros of the given shape and dtype:
lowering only looks at shapes and dtypes.
"""
from __future__ import annotations

import ast
import inspect
import re
from dataclasses import dataclass

import numpy as np

SHORT_DTYPES = {
    "pred": np.bool_, "bool": np.bool_, "f16": np.float16, "f32": np.float32,
    "f64": np.float64, "c64": np.complex64, "c128": np.complex128, "i8": np.int8,
    "i16": np.int16, "i32": np.int32, "i64": np.int64, "u8": np.uint8, "u16": np.uint16,
    "u32": np.uint32, "u64": np.uint64,
}
PYTHON_SCALARS = {"int": int, "float": float, "bool": bool, "complex": complex}
_SHORT = {np.dtype(v): k for k, v in SHORT_DTYPES.items() if k != "bool"}
_ENTRY = re.compile(r"^\s*(?:(?P<name>[A-Za-z_]\w*)\s*=\s*)?(?P<type>[A-Za-z_][\w.]*)\s*"
                    r"(?:\[(?P<dims>[^\]]*)\])?\s*$")


class SignatureError(ValueError):
    """A signature or annotation that cannot be read (a usage error)."""


@dataclass(frozen=True)
class ArgSpec:
    """One abstract argument: a NumPy array (dtype, shape) or a Python scalar type."""
    dtype: object               # np.dtype, or a Python type for Python scalars
    shape: tuple = ()
    python: bool = False
    name: str | None = None     # `name=` given in --sig

    def example(self):
        """A value with this signature (zeros): what `lower` is called with."""
        if self.python:
            return self.dtype()
        return np.zeros(self.shape, self.dtype)

    def __str__(self):
        if self.python:
            return self.dtype.__name__
        name = _SHORT.get(np.dtype(self.dtype), np.dtype(self.dtype).name)
        return f"{name}[{','.join(map(str, self.shape))}]"


def _dtype(name: str, text: str):
    if name in SHORT_DTYPES:
        return np.dtype(SHORT_DTYPES[name])
    short = name.rsplit(".", 1)[-1]         # np.float32 / numpy.float32
    if re.match(r"^[a-z]{4,}", short):
        try:
            dtype = np.dtype(short)
        except TypeError:
            dtype = None
        if dtype is not None and dtype.kind in "biufc":
            return dtype
    raise SignatureError(
        f"unknown dtype {name!r} in {text.strip()!r}; expected one of "
        f"{' '.join(k for k in SHORT_DTYPES)}, a NumPy dtype name (float32, int64, ...) "
        "or a Python scalar type (int, float, bool, complex)")


def parse_entry(text: str) -> ArgSpec:
    m = _ENTRY.match(text)
    if not m:
        raise SignatureError(
            f"cannot read {text.strip()!r}; expected an array type such as 'f64[100,100]' "
            "or 'i64[]', or a Python scalar type (int, float, bool, complex)")
    name, tname, dims = m.group("name"), m.group("type"), m.group("dims")
    if dims is None and tname in PYTHON_SCALARS:
        return ArgSpec(PYTHON_SCALARS[tname], (), True, name)
    if dims is not None and tname in ("int", "float", "complex"):
        short = {"int": "i64", "float": "f64", "complex": "c128"}[tname]
        raise SignatureError(f"{tname!r} is a Python scalar type; write {short}[{dims}] for "
                             "an array")
    dtype = _dtype(tname, text)
    shape = ()
    if dims is not None and dims.strip():
        try:
            shape = tuple(int(d) for d in dims.rstrip(", ").split(","))
        except ValueError:
            raise SignatureError(f"bad shape [{dims}] in {text.strip()!r}: dimensions "
                                 "must be non-negative integers") from None
        if any(d < 0 for d in shape):
            raise SignatureError(f"bad shape [{dims}] in {text.strip()!r}: dimensions "
                                 "must be non-negative integers")
    return ArgSpec(dtype, shape, False, name)


def split_top_level(text: str) -> list:
    """Split on commas that are not inside brackets."""
    parts, depth, current = [], 0, []
    for ch in text:
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    if "".join(current).strip():
        parts.append("".join(current))
    return [p for p in parts if p.strip()] if depth == 0 else _unbalanced(text)


def _unbalanced(text):
    raise SignatureError(f"unbalanced brackets in signature {text!r}")


def parse_signature(text: str) -> list:
    """`'f64[100,100], i64[]'` -> [ArgSpec, ArgSpec]."""
    return [parse_entry(p) for p in split_top_level(text)]


def parse_static(items) -> dict:
    """`['n=5', 'mode=fast']` -> {'n': 5, 'mode': 'fast'} (Python literals, else str)."""
    out = {}
    for item in items or ():
        name, sep, value = item.partition("=")
        name = name.strip()
        if not sep or not name.isidentifier():
            raise SignatureError(f"--static {item!r}: expected NAME=VALUE (e.g. n=10)")
        try:
            out[name] = ast.literal_eval(value.strip())
        except (ValueError, SyntaxError):
            out[name] = value.strip()
    return out


# --- annotations ---------------------------------------------------------------------
def from_annotation(annotation, param: str, func: str) -> ArgSpec:
    """The ArgSpec an annotation describes; SignatureError when it gives no shape."""
    if isinstance(annotation, str):
        if annotation in PYTHON_SCALARS:
            return ArgSpec(PYTHON_SCALARS[annotation], (), True)
        try:
            return parse_entry(annotation)
        except SignatureError:
            pass
    elif annotation in PYTHON_SCALARS.values():
        return ArgSpec(annotation, (), True)
    elif isinstance(annotation, type) and issubclass(annotation, np.generic) and \
            np.dtype(annotation).kind in "biufc":
        return ArgSpec(np.dtype(annotation), ())
    shown = annotation if isinstance(annotation, str) else getattr(
        annotation, "__name__", None) or repr(annotation)
    raise SignatureError(
        f"parameter {param!r} of {func} is annotated {shown!r}, which gives no shape and "
        f"dtype; pass --sig, or annotate it with a string such as {param}: 'f64[100,100]'")


def bind(fn, specs, statics: dict, qualname: str, static_names=frozenset()):
    """(args, kwargs, {name: spec text}) for calling `fn` with `specs` (from --sig, or
    None) and `statics` (NAME -> value). Parameters that --sig does not cover take their
    annotation; those without a usable annotation keep their defaults. `static_names`:
    parameters the function's own `@jit(static_argnums=...)` makes static: --sig skips
    them and their values come from --static (or their defaults)."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        raise SignatureError(f"cannot read the parameters of {qualname}") from None
    params = list(sig.parameters.values())
    names = {p.name for p in params}
    for name in statics:
        if name not in names:
            raise SignatureError(f"--static {name}=...: {qualname} has no parameter {name!r} "
                                 f"(parameters: {', '.join(p.name for p in params) or 'none'})")
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                  and p.name not in statics and p.name not in static_names]
    values: dict = {}
    extra: list = []
    if specs is not None:
        extra = _from_specs(specs, params, positional, names, statics, qualname, values)
    _from_annotations(params, values, statics, static_names, specs, qualname)
    args, kwargs = _call_arguments(params, values, statics, extra, qualname)
    described = {name: str(spec) for name, spec in values.items()}
    return tuple(args), kwargs, described


def _from_specs(specs, params, positional, names, statics, qualname, values):
    """Fill `values` from --sig (by name, then in order); the specs left over for a
    `*args` parameter."""
    by_name = [s for s in specs if s.name is not None]
    ordered = [s for s in specs if s.name is None]
    for s in by_name:
        if s.name not in names:
            raise SignatureError(f"--sig {s.name}=...: {qualname} has no parameter "
                                 f"{s.name!r}")
        if s.name in statics:
            raise SignatureError(f"{s.name!r} is given both in --sig and --static")
        values[s.name] = s
    free = [p for p in positional if p.name not in values]
    extra = []
    if len(ordered) > len(free):
        if any(p.kind is p.VAR_POSITIONAL for p in params):
            extra = ordered[len(free):]
        else:
            n, given = len(free), len(ordered)
            named = ", besides those given by name" if by_name else ""
            raise SignatureError(
                f"{qualname} takes {n} positional argument{'' if n == 1 else 's'}"
                f"{named}, {given} given in --sig (parameters: "
                f"{', '.join(p.name for p in free) or 'none'})")
    values.update(zip((p.name for p in free), ordered))
    return extra


def _from_annotations(params, values, statics, static_names, specs, qualname):
    """Fill `values` for the parameters --sig left out, from their annotations; a
    parameter with neither a spec, an annotation nor a default is an error."""
    for p in params:
        if p.name in values or p.name in statics or p.kind in (p.VAR_POSITIONAL,
                                                                p.VAR_KEYWORD):
            continue
        if p.name in static_names:
            if p.default is p.empty:
                raise SignatureError(
                    f"parameter {p.name!r} of {qualname} is static (static_argnums/"
                    f"static_argnames): give its value with --static {p.name}=VALUE")
            continue
        if p.annotation is not p.empty:
            try:
                values[p.name] = from_annotation(p.annotation, p.name, qualname)
                continue
            except SignatureError:
                if p.default is p.empty:
                    raise
        if p.default is p.empty:
            how = "add an entry to --sig" if specs is not None else \
                f"pass --sig, or annotate it (e.g. {p.name}: 'f64[100]')"
            raise SignatureError(f"no signature for parameter {p.name!r} of {qualname}: {how}")


def _call_arguments(params, values, statics, extra, qualname):
    """(args, kwargs): positional while no parameter is left to its default, then by
    keyword."""
    args, kwargs = [], {}
    filling = True
    for p in params:
        if p.kind is p.VAR_POSITIONAL:
            args.extend(s.example() for s in extra)
            continue
        if p.kind is p.VAR_KEYWORD:
            continue
        given = p.name in statics or p.name in values
        value = statics[p.name] if p.name in statics else (
            values[p.name].example() if p.name in values else None)
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and filling:
            if given:
                args.append(value)
                continue
            if p.kind is p.POSITIONAL_ONLY:
                args.append(p.default)
                continue
            filling = False     # a default is kept: pass the rest by keyword
            continue
        if given:
            if p.kind is p.POSITIONAL_ONLY:
                raise SignatureError(f"positional-only parameter {p.name!r} of {qualname} "
                                     "follows one left to its default; give it a value")
            kwargs[p.name] = value
    return args, kwargs
