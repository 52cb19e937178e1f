"""The NumPy facts the linter needs (transpiler/lint/numpy_facts.py), generated here.

The linter reads which NumPy calls give Python values, masks, views, scalars without
`axis`, new arrays, and which of their arguments are arrays or shapes. It must not import
the runtime, so those facts are written out as a plain data module, from the registry
(which functions are creation functions, which must not be folded because they return
views) and from NumPy itself: every registered function is called once on a small
probe array, its arguments filled by parameter name (`PROBE_ARGUMENTS`), and what it
returns says what it is (a Python value, a bool array, a 0-d result, the probe's own
memory). NumPy's other public callables are probed the same way, in a guarded call that
restores NumPy's error and print state, with stdout and stderr discarded.

    python -m npxla.runtime.numpy.lint_facts --write    # regenerate the file
    python -m npxla.runtime.numpy.lint_facts --check    # exit 1 when it is stale

tests/lint/test_lint_facts.py checks that the committed file is current.
"""
from __future__ import annotations

import contextlib
import inspect
import io
import os
import sys
import textwrap
import types
import warnings

import numpy as np

from npxla.runtime.numpy import load_all
from npxla.runtime.numpy.core import registry

FACTS_PATH = os.path.join("transpiler", "lint", "numpy_facts.py")
COMMAND = "python -m npxla.runtime.numpy.lint_facts --write"

# NumPy namespaces probed, as attribute paths from `np` ("" is np itself).
NAMESPACES = ("", "linalg", "fft")

# NumPy's parameter names, by what they hold. A required parameter of one of these names
# gets the probe value; the shape-like names are also what the linter treats as shapes,
# counts and axes (`SHAPE_PARAMS`), the array-like ones as arrays (`ARRAY_ARGUMENTS`).
SHAPE_NAMES = {"shape": (2, 3), "newshape": (2, 3), "new_shape": (2, 3), "num": 4,
               "N": 3, "M": 3, "n": 3, "reps": 2, "repeats": 2,
               "indices_or_sections": 2, "axis": 0, "axes": (1, 0), "axis1": 0,
               "axis2": 1, "source": 0, "destination": 1, "pad_width": 1,
               "start": 0, "stop": 4, "step": 1}
ARRAY_NAMES = ("a", "x", "x1", "x2", "arr", "ary", "m", "b", "v", "array", "y", "A", "B",
               "a1", "a2", "u", "ar", "ar1", "ar2", "condition", "tup", "arrays", "xp",
               "fp", "p")
# range bounds are sizes only where no `num` gives the size (np.arange, not np.linspace)
_RANGE_NAMES = ("start", "stop", "step")
# other required parameters of the probe calls
_VALUE_NAMES = {"fill_value": 7.0}
_NOT_PROBED = ("test", "info", "show_config", "show_runtime", "source", "lookfor",
               "who")


def _probe():
    return np.arange(1.0, 7.0).reshape(2, 3)


def _namespace(path):
    obj = np
    for part in path.split(".") if path else ():
        obj = getattr(obj, part, None)
    return obj


def _qual(path, name):
    return f"{path}.{name}" if path else name


def _signature(fn):
    try:
        return inspect.signature(fn)
    except (TypeError, ValueError):
        return None


def _positional(sig):
    return [p for p in sig.parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]


def _probe_args(sig, probe, other=None):
    """Arguments for a probe call (the probe array for the first parameter, `other` or
    copies of the probe for the other array parameters, the shape vocabulary for the
    rest), or None when a required parameter has no value."""
    params = list(sig.parameters.values())
    if params and params[0].kind == params[0].VAR_POSITIONAL:
        return [probe]                          # np.atleast_1d(*arys)
    args = []
    for i, p in enumerate(_positional(sig)):
        if p.default is not p.empty:
            break
        if i == 0 or p.name in ARRAY_NAMES:
            args.append(probe if i == 0 else (other if other is not None
                                              else probe.copy()))
        elif p.name in SHAPE_NAMES:
            args.append(SHAPE_NAMES[p.name])
        elif p.name in _VALUE_NAMES:
            args.append(_VALUE_NAMES[p.name])
        else:
            return None
    return args


@contextlib.contextmanager
def _guarded():
    """NumPy's error and print state restored, warnings and output discarded."""
    err, printing = np.geterr(), np.get_printoptions()
    sink = io.StringIO()
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(sink), \
                contextlib.redirect_stderr(sink):
            warnings.simplefilter("ignore")
            yield
    finally:
        np.seterr(**err)
        np.set_printoptions(**printing)


def _kind(result, probe):
    """What a probe call returned: "static" (a Python value), "view", "bool", "scalar",
    "array" or None (anything else)."""
    if isinstance(result, np.generic):
        return "bool" if result.dtype == np.bool_ else "scalar"
    if isinstance(result, (bool, int, float, str, tuple, np.dtype, type)) and not (
            isinstance(result, tuple) and any(isinstance(r, np.ndarray) for r in result)):
        return "static"
    if isinstance(result, np.ndarray):
        if np.shares_memory(result, probe):
            return "view"
        if result.dtype == np.bool_:
            return "bool"
        return "scalar" if result.ndim == 0 else "array"
    return None


def _call(fn, args):
    with _guarded():
        try:
            return True, fn(*args)
        except Exception:                # noqa: BLE001 - not callable on the probe
            return False, None


def _same(a, b):
    try:
        return bool(np.array_equal(a, b)) if isinstance(a, np.ndarray) else a == b
    except Exception:                    # noqa: BLE001
        return False


def probe_function(fn):
    """(`_kind` of `fn` called on the probe array, whether its result depends on the
    array's values) or (None, None) when it cannot be called that way. A Python value
    that depends on the values (np.allclose) is a traced scalar under @jit ("bool",
    "scalar"), not a static one. Functions without an array parameter are asked about
    dtypes, and without any required parameter called bare."""
    sig = _signature(fn)
    if sig is None:
        return None, None
    probe = _probe()
    args = _probe_args(sig, probe) if _positional(sig) or sig.parameters else []
    if args is not None:
        ok, result = _call(fn, args)
        if ok:
            kind = _kind(result, probe)
            if kind is None and (result is None or isinstance(result, dict)):
                kind = "static"               # np.geterr(), np.set_printoptions()
            again = _call(fn, _probe_args(sig, _probe()) if args else [])[1]
            if not _same(result, again):      # np.empty_like: no values to compare
                return kind, False
            other = -_probe()[::-1] + 0.5
            ok2, result2 = _call(fn, _probe_args(sig, probe.copy(), other))
            varies = ok2 and not _same(result, result2)
            if not (args and len(args) > 1):
                ok2, result2 = _call(fn, _probe_args(sig, other))
                varies = varies or (ok2 and not _same(result, result2))
            if kind == "static" and varies:
                kind = "bool" if isinstance(result, bool) else "scalar"
            return kind, varies
    required = [p for p in _positional(sig) if p.default is p.empty]
    dtypes = [np.dtype("float64")] * max(len(required), 1)
    for attempt in (dtypes, []):
        ok, result = _call(fn, attempt)
        if ok and (result is None or isinstance(result, dict) or
                   _kind(result, probe) == "static"):
            return "static", False
    return None, None


def _callables(path):
    module = _namespace(path)
    out = {}
    for name in sorted(dir(module)):
        if name.startswith("_") or name in _NOT_PROBED:
            continue
        obj = getattr(module, name, None)
        if isinstance(obj, type):
            if not issubclass(obj, (BaseException, np.generic, np.ndarray)):
                out[_qual(path, name)] = obj
        elif callable(obj) and hasattr(obj, "__name__") and \
                not isinstance(obj, types.ModuleType):
            out[_qual(path, name)] = obj
    return out


def _registered():
    """{short NumPy name ("linalg.norm"): registry entry} of the live registry."""
    load_all()
    functions, _ = registry.entries()
    return {name[3:]: e for name, e in functions.items() if name.startswith("np.")}


def facts() -> dict:
    """The tables of transpiler/lint/numpy_facts.py."""
    registered = _registered()
    kinds, varies, signatures, ufuncs = {}, {}, {}, set()
    for path in NAMESPACES:
        for name, obj in _callables(path).items():
            sig = _signature(obj)
            if sig is not None:
                signatures[name] = sig
            if isinstance(obj, np.ufunc):
                ufuncs.add(name)
            if isinstance(obj, type):
                kinds[name] = "static"        # finfo, iinfo, errstate: Python objects
            else:
                kinds[name], varies[name] = probe_function(obj)
    scalar = {n for n, k in kinds.items() if k in ("scalar", "bool") and
              isinstance(_probe_result(n), (np.generic, bool, int, float)) is not False}
    out = {"STATIC_RESULT": {n for n, k in kinds.items() if k == "static"},
           "BOOL_RESULT": {n for n, k in kinds.items() if k == "bool"} - scalar,
           "REDUCTIONS": {n for n in scalar if kinds[n] == "scalar"},
           "BOOL_REDUCTIONS": {n for n in scalar if kinds[n] == "bool"},
           "VIEW_FUNCTIONS": {n for n, k in kinds.items() if k == "view"}}
    # creation functions whose values do not depend on an array argument's values (the
    # np.ma constructors, outside NAMESPACES so not probed, take them from their data)
    out["CREATION"] = {n for n, e in registered.items() if e.creates and
                       kinds.get(n) != "view" and not varies.get(n) and
                       e.family != "masked"}
    out["FILL_ARGS"] = {n: (_index(signatures[n], "fill_value"), "fill_value")
                        for n in sorted(out["CREATION"])
                        if n in signatures and _has(signatures[n], "fill_value")}
    out["SHAPE_PARAMS"] = _shape_params(signatures, registered)
    out["ARRAY_ARGUMENTS"] = _array_arguments(signatures, registered, ufuncs)
    out.update(_ndarray_facts(registry, kinds))
    out.update(_random_facts())
    return out


def _has(sig, name):
    return None if sig is None else name in sig.parameters


def _index(sig, name):
    names = [p.name for p in _positional(sig)]
    return names.index(name) if name in names else None


def _probe_result(name):
    """The result of the probe call of np.<name> (None when it fails)."""
    fn = _namespace(name)
    sig = _signature(fn)
    args = _probe_args(sig, _probe()) if sig is not None else None
    ok, result = _call(fn, args) if args is not None else (False, None)
    return result if ok else None


def _shape_params(signatures, registered):
    """{name: (positions, keyword names)} of the registered functions' parameters that
    are shapes, counts or axes (range bounds only where no `num` gives the size)."""
    out = {}
    for name in sorted(registered):
        sig = signatures.get(name)
        if sig is None:
            continue
        names = set(SHAPE_NAMES) - (set(_RANGE_NAMES) if "num" in sig.parameters
                                    else set())
        positions = tuple(i for i, p in enumerate(_positional(sig)) if p.name in names)
        keywords = tuple(p.name for p in sig.parameters.values() if p.name in names)
        if keywords:
            out[name] = (positions, keywords)
    return out


def _array_arguments(signatures, registered, ufuncs):
    """{name: how many leading positional parameters are arrays} (registered functions
    whose first parameter has an array name; not ufuncs, which take Python numbers as
    readily, nor functions that also need a shape, `np.broadcast_to(pad, (n, 2))`,
    which are as often given a list of Python ints)."""
    out = {}
    for name in sorted(registered):
        sig = signatures.get(name)
        if sig is None or name in ufuncs or any(
                p.name in SHAPE_NAMES and p.default is p.empty and "ax" not in p.name
                for p in sig.parameters.values()):
            continue
        count = 0
        for p in _positional(sig):
            if p.name not in ARRAY_NAMES or p.default is not p.empty:
                break
            count += 1
        if count:
            out[name] = count
    return out


def _ndarray_facts(registry, kinds):
    probe = _probe()
    public = sorted(n for n in dir(np.ndarray) if not n.startswith("_"))
    methods = {n for n in public if callable(getattr(probe, n))}
    properties = set(public) - methods
    python = set()
    for t in (list, dict, set, tuple, str, int, float, complex):
        python |= {n for n in dir(t) if not n.startswith("_")}
    static = {n for n in properties if not isinstance(getattr(probe, n), np.ndarray)
              and getattr(probe, n) is not None}
    views = set()
    for name in sorted(methods):
        sig = _signature(getattr(np.ndarray, name))
        args = [] if sig is None else _probe_args(sig, probe)
        if args is None:
            continue
        target = _probe()
        with _guarded():
            try:
                result = getattr(target, name)(*args[1:])
            except Exception:               # noqa: BLE001 - needs other arguments
                continue
        if isinstance(result, np.ndarray) and np.shares_memory(result, target):
            views.add(name)
    # methods the registry keeps from folding (views, in-place updates) that need
    # arguments: views when the NumPy function of the same name returns one
    views |= {m for m in registry._NO_FOLD if m in methods and kinds.get(m) == "view"}
    varargs = set()
    for name in sorted(methods):
        sig = _signature(getattr(np, name, None))
        spec = _shape_params({name: sig}, [name]).get(name) if sig is not None else None
        shape = [SHAPE_NAMES[k] for k in spec[1] if isinstance(SHAPE_NAMES[k], tuple)] \
            if spec else []
        if shape and _call(getattr(_probe(), name), shape[0])[0]:
            varargs.add(name)               # x.reshape(2, 3) as well as x.reshape((2, 3))
    return {"NDARRAY_ALL": set(public), "NDARRAY_METHODS": methods,
            "VARARG_METHODS": varargs,
            "SHARED_METHODS": methods & python, "NDARRAY_ATTRS": properties - python,
            "STATIC_ATTRS": static, "VIEW_METHODS": views}


def _random_facts():
    """Generator and bit-generator classes of np.random."""
    classes = {n for n in dir(np.random) if isinstance(getattr(np.random, n), type)}
    bits = {n for n in classes if issubclass(getattr(np.random, n),
                                             (np.random.BitGenerator,
                                              np.random.SeedSequence))}
    return {"RANDOM_GENERATORS": classes | {"default_rng"}, "BIT_GENERATORS": bits}


# --- the file -----------------------------------------------------------------------------
_DOCS = {
    "STATIC_RESULT": "Calls whose result is a Python value (never traced): metadata, "
                     "dtype questions, NumPy classes.",
    "BOOL_RESULT": "Elementwise functions with boolean results (masks).",
    "REDUCTIONS": "Functions that give a number for an array (reductions without `axis`).",
    "BOOL_REDUCTIONS": "Functions that give a boolean scalar for arrays (any, allclose).",
    "VIEW_FUNCTIONS": "Results that are views of (the same memory as) the first argument.",
    "CREATION": "Creation functions (the registry's `creates`): values do not depend on "
                "traced data, only the fill value.",
    "FILL_ARGS": "Creation functions' fill value: (position, keyword).",
    "SHAPE_PARAMS": "Arguments that are shapes, sizes, counts or axes: (positions, "
                    "keyword names).",
    "ARRAY_ARGUMENTS": "How many leading positional arguments are arrays.",
    "NDARRAY_ALL": "Every public attribute of numpy.ndarray.",
    "NDARRAY_METHODS": "ndarray methods (calling one on a value shows it is an array).",
    "SHARED_METHODS": "... of which Python lists, dicts, strings or numbers have too.",
    "NDARRAY_ATTRS": "ndarray properties Python numbers do not have.",
    "STATIC_ATTRS": "ndarray properties that are Python values (shape, dtype, ...).",
    "VIEW_METHODS": "ndarray methods whose result is a view of the array.",
    "VARARG_METHODS": "ndarray methods that also take a shape as separate arguments.",
    "RANDOM_GENERATORS": "np.random constructors of generator objects.",
    "BIT_GENERATORS": "np.random bit generators and seed sequences.",
}


def _wrap(items):
    return textwrap.fill(" ".join(items), width=88, initial_indent="    ",
                         subsequent_indent="    ", break_on_hyphens=False)


def _format_set(name, values):
    if not values:
        return f"{name} = frozenset()"
    body = _wrap(f"{v!r}," for v in sorted(values))
    return f"{name} = frozenset({{\n{body}\n}})"


def _format_dict(name, table):
    body = _wrap(f"{k!r}: {table[k]!r}," for k in sorted(table))
    return f"{name} = {{\n{body}\n}}"


def render() -> str:
    tables = facts()
    parts = ['"""NumPy facts for the linter, generated from the runtime\'s registry and '
             'NumPy itself.\n\n'
             f'Generated by `{COMMAND}`; do not edit by hand\n'
             '(tests/lint/test_lint_facts.py checks it is current). Names are short '
             'names inside\n`numpy.` (`"linalg.norm"`).\n"""',
             f"NUMPY_VERSION = {np.__version__!r}"]
    for name in _DOCS:
        value = tables[name]
        text = _format_dict(name, value) if isinstance(value, dict) else \
            _format_set(name, value)
        parts.append(f"# {_DOCS[name]}\n{text}")
    return "\n\n".join(parts) + "\n"


def _root():
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    path = os.path.join(_root(), FACTS_PATH)
    text = render()
    if "--write" in argv:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
        return 0
    if "--check" in argv:
        with open(path, encoding="utf-8") as fh:
            current = fh.read() == text
        print(f"{FACTS_PATH} is {'current' if current else 'stale: run ' + COMMAND}")
        return 0 if current else 1
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
