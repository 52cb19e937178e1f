"""docs/numpy-support.md, generated from the registry so that it cannot drift.

    python -m npxla.runtime.numpy.support_table > docs/numpy-support.md

The same facts, as a JAX-free data module for the linter, are written by
`runtime/driver/supported_api.py` (it also needs the operators, a layer above this one).

`render()` lists every registered NumPy function, ndarray method and property, ufunc
method, builtin and `math` function with its status and the notes given at
registration (`implements(..., notes=...)`), then the commonly used NumPy functions
that do not compile on traced arrays. tests/runtime/test_support_table.py checks that
the committed file equals `render()`.

Statuses:
- supported: typing + lowering exist; the call compiles on traced arrays.
- refused (ErrorClass): registered only to refuse, with a located error and a hint.
  Found by reading the implementation: its body always raises (directly or through a
  helper that always raises) and never returns.
- constant-folded only: not registered (or registered only to ask for static values):
  NumPy computes the call while staging when every array argument is a known
  constant; on traced arrays it raises UnsupportedFunctionError.
"""
from __future__ import annotations

import ast
import inspect
import textwrap

import numpy as np

from npxla.runtime.numpy import load_all
from npxla.runtime.numpy.core import registry

COMMAND = "python -m npxla.runtime.numpy.support_table > docs/numpy-support.md"
SUPPORTED = "supported"
FOLDED = "constant-folded only"

# NumPy functions that legacy code uses often, by family: the "not supported" section
# checks these against the registry. Names are attributes of `np` ("linalg.norm" is
# np.linalg.norm); names this NumPy lacks are skipped.
COMMON = {
    "creation": "array asarray zeros ones empty full zeros_like ones_like empty_like "
                "full_like arange linspace logspace geomspace eye identity diag diagflat "
                "tri tril triu meshgrid indices fromfunction copy vander",
    "shape": "reshape ravel transpose swapaxes moveaxis expand_dims squeeze concatenate "
             "stack vstack hstack dstack column_stack split array_split hsplit vsplit "
             "tile repeat flip fliplr flipud roll rot90 broadcast_to broadcast_arrays "
             "atleast_1d atleast_2d atleast_3d pad append insert delete resize",
    "elementwise": "abs absolute sqrt cbrt exp exp2 expm1 log log2 log10 log1p sin cos "
                   "tan arcsin arccos arctan arctan2 sinh cosh tanh floor ceil round "
                   "around rint trunc fix clip sign maximum minimum fmax fmin power "
                   "square mod remainder fmod hypot isnan isinf isfinite nan_to_num real "
                   "imag conj conjugate angle sinc i0 gcd lcm interp where select choose "
                   "piecewise isclose allclose array_equal heaviside",
    "reductions": "sum prod mean std var min max amin amax argmin argmax all any median "
                  "percentile quantile average ptp cumsum cumprod nansum nanmean nanmax "
                  "nanmin nanstd nanvar nanargmax nanargmin nanmedian count_nonzero diff "
                  "ediff1d gradient trapezoid histogram bincount cov corrcoef",
    "products": "dot vdot inner outer matmul einsum tensordot kron cross trace convolve "
                "correlate",
    "indexing and sorting": "sort argsort lexsort partition argpartition searchsorted "
                            "nonzero argwhere flatnonzero unique take take_along_axis put "
                            "put_along_axis compress extract diagonal tril_indices "
                            "triu_indices unravel_index ravel_multi_index isin in1d "
                            "intersect1d union1d setdiff1d digitize",
    "linalg": "linalg.norm linalg.inv linalg.solve linalg.det linalg.slogdet linalg.eig "
              "linalg.eigh linalg.eigvals linalg.eigvalsh linalg.svd linalg.qr "
              "linalg.cholesky linalg.lstsq linalg.pinv linalg.matrix_rank "
              "linalg.matrix_power",
    "fft": "fft.fft fft.ifft fft.rfft fft.irfft fft.fft2 fft.ifft2 fft.fftn fft.ifftn "
           "fft.fftfreq fft.rfftfreq fft.fftshift fft.ifftshift",
}
COMMON_METHODS = ("sum prod mean std var min max argmin argmax all any cumsum cumprod "
                  "reshape ravel flatten transpose swapaxes squeeze copy astype fill dot "
                  "clip round sort argsort nonzero diagonal trace item tolist take repeat "
                  "conj conjugate searchsorted")

_FAMILY_TITLES = {"builtins": "Python builtins", "math": "The math module",
                  "fft": "FFT (np.fft)", "linalg": "Linear algebra (np.linalg)"}
_LAST = ("builtins", "math")          # after NumPy's own families


# --- status: does an implementation always raise? ---------------------------------------

def _function_node(fn):
    try:
        source = textwrap.dedent(inspect.getsource(fn))
        tree = ast.parse(source)
    except (OSError, TypeError, SyntaxError):
        return None
    node = tree.body[0] if tree.body else None
    return node if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else None


def _returns(node) -> bool:
    """Whether the function body (nested definitions excluded) has a `return`/`yield`."""
    todo = list(node.body)
    while todo:
        n = todo.pop()
        if isinstance(n, (ast.Return, ast.Yield, ast.YieldFrom)):
            return True
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                              ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(n))
    return False


def _raised_name(exc) -> str | None:
    target = exc.func if isinstance(exc, ast.Call) else exc
    if isinstance(target, ast.Name):
        return target.id
    if isinstance(target, ast.Attribute):
        return target.attr
    return None


def refusal(fn, depth: int = 2) -> str | None:
    """The error class that `fn` always raises, or None when it may return. A statement
    at the top of the body that raises, or that calls a helper which always raises,
    decides; any `return` means the function may succeed."""
    fn = inspect.unwrap(fn)
    node = _function_node(fn)
    if node is None or _returns(node):
        return None
    for stmt in node.body:
        if isinstance(stmt, ast.Raise) and stmt.exc is not None:
            return _raised_name(stmt.exc)
        if depth and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) \
                and isinstance(stmt.value.func, ast.Name):
            helper = getattr(fn, "__globals__", {}).get(stmt.value.func.id)
            if inspect.isfunction(helper):
                name = refusal(helper, depth - 1)
                if name is not None:
                    return name
    return None


def status_of(impl) -> str:
    error = refusal(impl)
    if error is None:
        return SUPPORTED
    if error == "ConcretizationError":
        return FOLDED
    return f"refused ({error})"


# --- the registry's contents ------------------------------------------------------------

def _registry():
    load_all()
    functions, methods = registry.entries()
    properties = dict(getattr(registry, "_PROPERTIES", {}))
    ufunc_methods = dict(getattr(registry, "_UFUNC_METHODS", {}))
    return functions, methods, properties, ufunc_methods


def _short(name: str) -> str:
    return name.rsplit(".", 1)[-1]


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _method_owners(functions, methods):
    """ndarray method name -> public function name whose row shows it: the method has
    the function's implementation, or the function's name (`np.sort` / `.sort()`)."""
    owners = {}
    by_impl = {}
    for name in sorted(functions):
        by_impl.setdefault(id(functions[name].impl), name)
    for m, impl in methods.items():
        owner = by_impl.get(id(impl))
        if owner is None and f"np.{m}" in functions:
            owner = f"np.{m}"
        if owner is not None:
            owners[m] = owner
    return owners


def _table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return lines


def _function_sections(functions, methods, owners):
    shown = {}
    for m, owner in owners.items():
        shown.setdefault(owner, []).append(m)
    families = {}
    for name, entry in functions.items():
        families.setdefault(entry.family, []).append(name)
    order = sorted(f for f in families if f not in _LAST) + [f for f in _LAST if f in families]
    out = []
    for family in order:
        rows = []
        for name in sorted(families[family]):
            entry = functions[name]
            ms = ", ".join(f"`.{m}()`" for m in sorted(shown.get(name, ())))
            rows.append((f"`{name}`", ms, status_of(entry.impl), entry.notes))
        title = _FAMILY_TITLES.get(family, family.capitalize())
        out += [f"## {title}", ""] + _table(("function", "ndarray method", "status", "notes"),
                                            rows) + [""]
    return out


def _ndarray_section(methods, properties, owners):
    rows = [(f"`.{m}()`", status_of(methods[m])) for m in sorted(methods) if m not in owners]
    rows += [(f"`.{p}`", status_of(properties[p])) for p in sorted(properties)]
    if not rows:
        return []
    return (["## ndarray methods and properties without a function row", ""]
            + _table(("method / property", "status"), rows) + [""])


def _ufunc_method_section(ufunc_methods):
    if not ufunc_methods:
        return []
    rows = [(f"`np.{u}.{m}`", status_of(ufunc_methods[(u, m)]))
            for u, m in sorted(ufunc_methods)]
    return ["## ufunc methods", ""] + _table(("ufunc method", "status"), rows) + [""]


def _resolve(dotted):
    obj = np
    for part in dotted.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def unsupported_common():
    """[(family, "np.name", status)] for the common names that do not compile."""
    out = []
    for family, names in COMMON.items():
        for name in names.split():
            fn = _resolve(name)
            if fn is None or not callable(fn):
                continue
            entry = registry.lookup(fn)
            status = FOLDED if entry is None else status_of(entry.impl)
            if status != SUPPORTED:
                out.append((family, f"np.{name}", status))
    return out


def unsupported_common_methods(methods):
    return [f".{m}()" for m in COMMON_METHODS.split()
            if hasattr(np.ndarray, m) and (m not in methods
                                           or status_of(methods[m]) != SUPPORTED)]


def _common_section(methods):
    missing = unsupported_common()
    total = sum(1 for names in COMMON.values() for n in names.split()
                if callable(_resolve(n)))
    lines = ["## Commonly used NumPy functions that do not compile on traced arrays", "",
             f"Checked against a list of {total} functions that legacy NumPy code uses "
             f"often (`COMMON` in `runtime/numpy/support_table.py`); "
             f"{total - len(missing)} of them compile.", ""]
    if missing:
        lines += _table(("family", "function", "status"),
                        [(fam, f"`{name}`", st) for fam, name, st in missing])
    else:
        lines.append("All of them compile.")
    absent = unsupported_common_methods(methods)
    lines += ["", "Common ndarray methods that do not compile on traced arrays: "
              + (", ".join(f"`{m}`" for m in absent) if absent else "none") + ".", ""]
    return lines


def render() -> str:
    """The text of docs/numpy-support.md: every registered function, method, property and
    ufunc method with its status (supported, refused, constant-folded only) and
    registration notes, then the commonly used NumPy functions that are not
    supported, so the page cannot list what the registry does not hold."""
    functions, methods, properties, ufunc_methods = _registry()
    owners = _method_owners(functions, methods)
    counts = {}
    for entry in functions.values():
        s = status_of(entry.impl)
        counts[s] = counts.get(s, 0) + 1
    summary = ", ".join(f"{n} {s}" for s, n in sorted(counts.items(), key=lambda kv: -kv[1]))
    lines = [
        "# NumPy support",
        "",
        f"<!-- Generated by `{COMMAND}`; do not edit by hand. -->",
        "",
        "What `@jit` compiles, generated from npxla's registry. The registry holds "
        f"**{len(functions)} functions and {len(methods)} ndarray methods** "
        f"({len(properties)} ndarray properties and {len(ufunc_methods)} ufunc methods "
        f"besides). Functions: {summary}.",
        "",
        "Statuses:",
        "",
        "- **supported**: compiles on traced arrays, with NumPy's result dtype and shape "
        "(NEP 50 promotion); deviations from NumPy are in the notes.",
        "- **refused (ErrorClass)**: registered only to stop compilation with a located "
        "error of that class and a hint saying what to write instead (typically a "
        "data-dependent output shape).",
        "- **constant-folded only**: computed by NumPy itself while staging when every "
        "array argument is a known constant (e.g. built from shapes or literals); on "
        "traced arrays it raises `UnsupportedFunctionError` (or `ConcretizationError` "
        "when an argument must be static).",
        "",
        "Any NumPy function not listed here is *constant-folded only*. Operators "
        "(`+`, `@`, `x[i]`, `a[i] = v`, ...) dispatch to the ufuncs and indexing below.",
        "",
    ]
    lines += _common_section(methods)
    lines += _function_sections(functions, methods, owners)
    lines += _ndarray_section(methods, properties, owners)
    lines += _ufunc_method_section(ufunc_methods)
    return "\n".join(lines).rstrip("\n") + "\n"


if __name__ == "__main__":
    import sys
    sys.stdout.write(render())
