"""f-strings, `%`-formatting and `str.format` in compiled code: formatted when the
values exist.

`f"mean={x.mean():.2f}"` formats an array value, but while staging the value is traced
and has no digits yet. Converted code builds every f-string with
`ag__.format_string(parts)`: with Python values and constants only it is the ordinary
string; with traced values it is a `DeferredStr`, which `print`, `logging` and
`warnings` (run-time host callbacks, see `printing` and `hostcalls`) fill in and format
when the program runs, exactly as the f-string would have; a result that is one is
formatted after each run (`driver.text_results`), and `+`, `*` and `str.join` of one
give another. What needs its characters while the program is built (its length, a
comparison, a `str` method) is refused: its text, `<traced float64>` for each value,
is a placeholder (only an exception message too large to carry shows it).

`"... %d" % x` (`percent_format`) and `"... {}".format(x)` (`format_method`) build the
same parts, so they behave as the f-string would; Python's own formatting is first
run on stand-ins of the values (zeros of the same kind), so a bad template, a missing
argument or a spec that the value's type rejects is Python's own error, raised while
compiling. A Python int (or bool) argument that is formatted is *specialised* instead
(`ConcretizationError` with its position: the driver compiles for its value), as for
any other static use of it: the string is then exact wherever it is used. `str(x)`,
`repr(x)`, `format(x, spec)` must return a real `str` now, so a traced value there is
specialised when it can be and refused (`TEXT_OF_TRACED`) otherwise.
"""
from __future__ import annotations

import operator
import re
import _string

import numpy as np

from npxla.transpiler.base.catalogue import TEXT_OF_TRACED

from npxla.runtime.staging.abstract import AbstractArray
from npxla.runtime.staging.bounded import is_bounded
from npxla.runtime.staging.pytypes import is_marked
from npxla.runtime.staging.trace import current_trace
from npxla.runtime.numpy.core.text import format_field, text_refusal

_FORMAT_CONVERSIONS = {None: -1, "s": 115, "r": 114, "a": 97}


class _Traced:
    """Stands for a traced value in the staging-time text of a DeferredStr."""

    def __init__(self, x):
        shape = ["?" if e is not None else n for n, e in zip(x.bound, x.ext)] \
            if is_bounded(x) else list(x.shape)
        self.text = f"<traced {x.dtype}{shape if shape else ''}>"

    def __format__(self, spec):
        return self.text

    def __str__(self):
        return self.text

    __repr__ = __str__


class DeferredStr(str):
    """An f-string whose values are only known at run time. `parts`: strings and
    (value, conversion, format spec) triples, as `format_string` received them.

    Its characters are a placeholder, so what needs them now is refused (its length,
    an item, a comparison, a dict key, a `str` method: `TEXT_OF_TRACED`, specialised
    where the values come from Python int arguments); joining it to other text (`+`,
    `*`, `str.join`) gives another DeferredStr, formatted when the values exist."""

    def __new__(cls, parts, text=None):
        self = super().__new__(cls, render(parts, _staging_value) if text is None else text)
        self.parts = parts
        return self

    def _refuse(self, what):
        deps = frozenset()
        for v in self._values():
            deps |= getattr(v, "deps", frozenset())
        raise text_refusal(deps, what)

    def _values(self):
        out: list = []
        for p in self.parts:
            if type(p) is not str:
                out.extend(_leaves(p[0]))
                if type(p[2]) is DeferredStr:
                    out.extend(p[2]._values())
        return [v for x in out for v in (x._values() if type(x) is DeferredStr else [x])]

    def __getattribute__(self, name):
        if name in _STR_METHODS:
            str.__getattribute__(self, "_refuse")(f"str.{name}() of an f-string")
        return str.__getattribute__(self, name)

    def __add__(self, other):
        return concatenate(self, other) if isinstance(other, str) else NotImplemented

    def __radd__(self, other):
        return concatenate(other, self) if isinstance(other, str) else NotImplemented

    def __mul__(self, n):
        return DeferredStr(self.parts * operator.index(n))

    __rmul__ = __mul__

    def __len__(self):
        self._refuse("len() of an f-string")

    def __getitem__(self, index):
        self._refuse("indexing an f-string")

    def __iter__(self):
        self._refuse("iterating over an f-string")

    def __contains__(self, sub):
        self._refuse("'in' of an f-string")

    def __hash__(self):
        self._refuse("an f-string as a dict key or set item")

    def __eq__(self, other):
        self._refuse("comparing an f-string")

    __ne__ = __lt__ = __le__ = __gt__ = __ge__ = __eq__

    def map_values(self, fn):
        """The same f-string with `fn` applied to each value (print's lifting)."""
        return DeferredStr(tuple(
            p if type(p) is str else
            (_tree(p[0], fn), p[1], fn(p[2]) if type(p[2]) is DeferredStr else p[2])
            for p in self.parts), str.__str__(self))

    def render(self, value_of):
        return render(self.parts, value_of)

    def run_time_fields(self):
        """The message as a run-time check carries it (`errorflags.message_payloads`):
        (pieces, traced values), pieces being strings formatted now and fields
        (k, conversion, spec, kind) of the k-th value, `kind` saying what NumPy code
        holds for it (see `_staging_value`); None when a field cannot be carried (a
        container of traced values, a traced format spec)."""
        pieces: list = []
        values: list = []
        for p in self.parts:
            if type(p) is str:
                pieces.append(p)
                continue
            value, conversion, spec = p
            if type(spec) is DeferredStr:
                return None
            if type(value) is AbstractArray and value.const is None:
                kind = "array" if value.ndim or is_marked(value) else \
                    ("item" if value.weak else "scalar")
                pieces.append((len(values), conversion, str(spec), kind))
                values.append(value)
            elif _has_traced(value):
                return None
            else:
                pieces.append(render((p,), _staging_value))
        return tuple(pieces), values


_STR_METHODS = frozenset(n for n in dir(str) if not n.startswith("_"))


def _parts(text):
    return text.parts if type(text) is DeferredStr else (str.__str__(text),)


def concatenate(*texts):
    """Texts end to end, one of them (at least) a DeferredStr."""
    return DeferredStr(tuple(p for t in texts for p in _parts(t)))


def join(separator, items):
    """`separator.join(items)`: a DeferredStr where an item is one."""
    items = list(items)
    if not any(type(t) is DeferredStr for t in items):
        return separator.join(items)
    separator.join(str.__str__(t) if type(t) is DeferredStr else t for t in items)
    out: list = []
    for k, t in enumerate(items):
        if k:
            out.append(separator)
        out.append(t)
    return concatenate(*out) if out else ""


def _leaves(x):
    t = type(x)
    if t in (list, tuple):
        return [v for item in x for v in _leaves(item)]
    if t is dict:
        return [v for item in x.values() for v in _leaves(item)]
    return [x]


def format_string(parts):
    """`f"..."` in converted code (see the module docstring)."""
    if any(type(p) is tuple and (_has_traced(p[0]) or type(p[2]) is DeferredStr)
           for p in parts):
        return DeferredStr(tuple(parts))
    return render(parts, _staging_value)


def render(parts, value_of):
    out = []
    for p in parts:
        if type(p) is str:
            out.append(p)
            continue
        value, conversion, spec = p
        spec = spec.render(value_of) if type(spec) is DeferredStr else str(spec)
        value = _tree(value, value_of)
        out.append(value.text if type(value) is _Traced else
                   format_field(value, conversion, spec))
    return "".join(out)


def _tree(x, fn):
    """`fn` applied to the leaves of `x` inside lists, tuples and dicts: a container
    formats its items with repr, so their values are needed as the leaves'."""
    t = type(x)
    if t is list:
        return [_tree(v, fn) for v in x]
    if t is dict:
        return {k: _tree(v, fn) for k, v in x.items()}
    if t is tuple:
        return tuple(_tree(v, fn) for v in x)
    return fn(x)


def _any_leaf(x, pred):
    """Whether `pred` holds for a leaf of `x` (through lists, tuples and dicts)."""
    t = type(x)
    if t in (list, tuple):
        return any(_any_leaf(v, pred) for v in x)
    if t is dict:
        return any(_any_leaf(v, pred) for v in x.values())
    return pred(x)


def _has_traced(x):
    """Whether `x` holds a traced value or a DeferredStr."""
    return _any_leaf(x, lambda v: type(v) is DeferredStr or is_bounded(v) or
                     (type(v) is AbstractArray and v.const is None))


def _has_abstract(x):
    """Whether `x` holds an abstract array (constant or not) or a DeferredStr."""
    return _any_leaf(x, lambda v: type(v) in (AbstractArray, DeferredStr) or is_bounded(v))


def _staging_value(x):
    """What NumPy code would hold for `x` now: constants become NumPy values."""
    if is_bounded(x):
        return _Traced(x)
    if type(x) is not AbstractArray:
        return x
    const = x.const
    if const is None:
        return _Traced(x)
    if const.ndim == 0:
        return const.item() if x.weak else (np.array(const) if is_marked(x) else const[()])
    return const


def _stand_in(x):
    """What NumPy code would hold for `x`, with zeros for traced values: Python's own
    formatting of it raises the errors that the real value would."""
    if type(x) is DeferredStr:
        return str.__str__(x)
    if is_bounded(x):
        return np.zeros((0,) * x.ndim, x.dtype)
    if type(x) is not AbstractArray:
        return x
    if x.const is not None:
        return _staging_value(x)
    zero = np.zeros(x.shape, x.dtype)
    if x.ndim or is_marked(x):
        return zero
    return zero.item() if x.weak else zero[()]


# --- values that must be known now: specialised or refused ------------------------------
def _specialisable(x):
    """The Python int/bool arguments a traced `x` comes from (the driver specialises
    them), or an empty set."""
    if type(x) is not AbstractArray or x.const is not None or not x.weak or \
            x.dtype.kind not in "iub":
        return frozenset()
    trace = current_trace()
    return x.deps & (trace.specialisable if trace is not None else frozenset())


def _specialise(values, what):
    """Raise the ConcretizationError that specialises the Python int arguments among
    `values` (leaves of lists, tuples and dicts included)."""
    deps = frozenset()
    for v in values:
        stack = [v]
        while stack:
            x = stack.pop()
            if type(x) in (list, tuple):
                stack.extend(x)
            elif type(x) is dict:
                stack.extend(x.values())
            else:
                deps |= _specialisable(x)
    if deps:
        raise TEXT_OF_TRACED.error_for(deps=deps, what=what)


def concrete_text(x, what):
    """`str(x)`, `repr(x)`, `format(x, spec)` of traced `x`: a real str is needed now, so
    the driver specialises `x`'s Python int arguments (a ConcretizationError with their
    positions and any other dependency, such as a loop index to unroll); a value from
    array data is refused there, located."""
    raise text_refusal(x.deps, what)


# --- str.format ---------------------------------------------------------------------------
def format_method(template, args, kwargs):
    """`template.format(*args, **kwargs)` with abstract values among the arguments."""
    stand_args = [_tree(a, _stand_in) for a in args]
    stand_kwargs = {k: _tree(v, _stand_in) for k, v in kwargs.items()}
    template.format(*stand_args, **stand_kwargs)      # Python's own errors
    used: list = []
    parts = _format_parts(template, args, kwargs, [0], used)
    _specialise(used, "str.format")
    return format_string(tuple(parts))


def _format_parts(template, args, kwargs, auto, used):
    parts = []
    for literal, field, spec, conversion in _string.formatter_parser(template):
        if literal:
            parts.append(literal)
        if field is None:
            continue
        first, rest = _string.formatter_field_name_split(field)
        if first == "":
            first, auto[0] = auto[0], auto[0] + 1
        value = args[first] if isinstance(first, int) else kwargs[first]
        for is_attribute, key in rest:
            value = getattr(value, key) if is_attribute else value[key]
        if spec and "{" in spec:
            spec = format_string(tuple(_format_parts(spec, args, kwargs, auto, used)))
        used.append(value)
        parts.append((value, _FORMAT_CONVERSIONS[conversion], spec))
    return parts


# --- %-formatting ---------------------------------------------------------------------------
_PERCENT = re.compile(r"%(?:\(([^)]*)\))?([-#0 +]*)(\*|\d+)?(?:\.(\*|\d*))?[hlL]?(.)",
                      re.DOTALL)


def percent_format(template, values):
    """`template % values`: Python's operator, except that a str template with traced
    values builds the run-time formatted string (see the module docstring)."""
    if type(template) is not str or not _has_abstract(values):
        return template % values
    template % _tree(values, _stand_in)           # Python's own errors
    positional = list(values) if type(values) is tuple else [values]
    used: list = []
    parts: list = []
    pos = 0
    for m in _PERCENT.finditer(template):
        parts.append(template[pos:m.start()])
        pos = m.end()
        key, flags, width, precision, kind = m.groups()
        if kind == "%":
            parts.append("%")
            continue
        if width == "*":
            width = str(_static_int(positional.pop(0), "a '*' width in '%'-formatting"))
        if precision == "*":
            precision = str(_static_int(positional.pop(0),
                                        "a '*' precision in '%'-formatting"))
        value = values[key] if key is not None else positional.pop(0)
        used.append(value)
        spec = "%" + flags + (width or "") + \
            ("" if precision is None else "." + precision) + kind
        parts.append((value, spec, ""))
    parts.append(template[pos:])
    _specialise(used, "'%'-formatting")
    return format_string(tuple(p for p in parts if p != ""))


def _static_int(v, what):
    if type(v) is AbstractArray and v.const is None:
        raise text_refusal(v.deps, what)
    return int(_staging_value(v) if type(v) is AbstractArray else v)
