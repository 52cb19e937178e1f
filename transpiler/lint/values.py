"""Abstract values of the linter's traced-value analysis.

Every expression in a jitted function gets a `Val`: how much it depends on traced data
(`level`), what kind of Python/NumPy object it is, and for arrays which objects it may
be the same array as (`origins`, for the aliasing rule).

Levels:

* `STATIC`: known while compiling (constants, shapes, `len(x)`, static arguments).
* `MAYBE`: derived from a non-static argument that may be a Python `int`/`bool`/`float`.
  Under `jax.jit` it is traced. Under npxla's `@jit` it is traced too, but npxla
  specialises Python scalar arguments automatically when it needs them as Python values,
  so rules about values needed as Python values do not fire on it.
* `DATA`: certainly computed from array data (an array method such as `x.sum()`, an
  element of an array, a loop variable of a data-dependent loop).

An array whose length depends on array data (`x[mask]`, `np.nonzero(m)[0]`,
`np.unique(x)`, `x[:k]` with `k` computed from data) has `dyn`: where that length comes
from, which the run-time-length rule (NPX115) names. `@jit` gives it a length known at
run time, which only some functions accept (`transpiler.base.supported`).
"""
from __future__ import annotations

STATIC, MAYBE, DATA = 0, 1, 2

UNKNOWN = "unknown"
ARRAY = "array"
BOOL = "bool"            # a boolean array or scalar (a mask)
NUMBER = "number"
STR = "str"
NONE = "none"
LIST = "list"
TUPLE = "tuple"
DICT = "dict"
SET = "set"
REF = "ref"              # a library object by qualified name (module, function, class)
FUNC = "func"            # a function defined in the linted file
METHOD = "method"        # a bound method: items = (receiver,), qual = method name
RANGE = "range"          # range(...): items = (start, stop, step)
ITER = "iter"            # enumerate/zip/other iterator: elem = the item
RNG = "rng"              # a NumPy random Generator / RandomState object

CONTAINERS = frozenset({LIST, TUPLE, DICT, SET})
MUTABLE = frozenset({LIST, DICT, SET})          # containers @jit will not see change
PYTHON_ONLY = frozenset({STR, NONE, REF, FUNC, METHOD, RNG})   # never traced themselves
_ARRAYISH = frozenset({ARRAY, BOOL, NUMBER, UNKNOWN})

_NOCONST = object()


class Val:
    """An immutable abstract value; see the module docstring."""

    __slots__ = ("level", "kind", "qual", "const", "nd", "origins", "ambiguous", "items",
                 "elem", "func", "dyn", "rank")

    def __init__(self, level=STATIC, kind=UNKNOWN, qual=None, const=_NOCONST, nd=None,
                 origins=frozenset(), ambiguous=False, items=None, elem=None, func=None,
                 dyn=None, rank=None):
        self.level = level
        self.kind = kind
        self.qual = qual
        self.const = const
        self.nd = nd              # 0: a scalar, 1: an array of one or more dimensions
        self.origins = origins
        self.ambiguous = ambiguous
        self.items = items        # per-position values of a tuple/list literal
        self.elem = elem          # the value of an item (containers, iterators)
        self.func = func          # (FunctionDef/Lambda node, closure env) for FUNC
        self.dyn = dyn            # a data-dependent length: where it comes from (str)
        self.rank = rank          # an array's number of dimensions, where it is known

    def replace(self, **kw):
        new = Val.__new__(Val)
        for name in Val.__slots__:
            setattr(new, name, kw.get(name, getattr(self, name)))
        return new

    @property
    def has_const(self):
        return self.const is not _NOCONST

    def _key(self):
        return (self.level, self.kind, self.qual,
                self.const if self.has_const else _NOCONST, self.nd, self.origins,
                self.ambiguous, self.items, self.elem, id(self.func[0]) if self.func else None,
                self.dyn, self.rank)

    def __eq__(self, other):
        if self is other:
            return True
        if not isinstance(other, Val):
            return NotImplemented
        try:
            return self._key() == other._key()
        except Exception:         # const values that do not compare
            return False

    def __hash__(self):
        return hash((self.level, self.kind, self.qual))

    def __repr__(self):
        bits = [("STATIC", "MAYBE", "DATA")[self.level], self.kind]
        if self.qual:
            bits.append(self.qual)
        if self.has_const:
            bits.append(repr(self.const))
        if self.nd is not None:
            bits.append(f"nd={self.nd}")
        if self.ambiguous:
            bits.append("ambiguous")
        if self.dyn:
            bits.append("dyn")
        return "Val(" + ", ".join(bits) + ")"

    # --- questions rules ask ------------------------------------------------------------
    @property
    def condition_level(self):
        """The level of this value used as a condition: containers, strings, None and
        library objects are Python values whatever they hold."""
        if self.kind in CONTAINERS or self.kind in PYTHON_ONLY:
            return STATIC
        return self.level

    @property
    def arrayish(self):
        return self.kind in _ARRAYISH


def const(value):
    if value is Ellipsis:
        return Val(kind="slice")
    if value is None:
        return Val(kind=NONE, const=None)
    if isinstance(value, str):
        return Val(kind=STR, const=value)
    if isinstance(value, bool):
        return Val(kind=BOOL, const=value, nd=0)
    if isinstance(value, (int, float, complex)):
        return Val(kind=NUMBER, const=value, nd=0)
    return Val(const=value) if isinstance(value, (bytes,)) else Val()


UNKNOWN_STATIC = Val()


def join(a: Val | None, b: Val | None) -> Val | None:
    """The value that may be either `a` or `b`."""
    if a is None:
        return b
    if b is None or a is b:
        return a
    if a.kind == b.kind:
        kind = a.kind
    elif {a.kind, b.kind} <= {ARRAY, BOOL, NUMBER}:
        kind = ARRAY if ARRAY in (a.kind, b.kind) else NUMBER
    else:
        kind = UNKNOWN
    items = None
    if a.items is not None and b.items is not None and len(a.items) == len(b.items):
        items = tuple(join(x, y) for x, y in zip(a.items, b.items))
    same_const = a.has_const and b.has_const and type(a.const) is type(b.const)
    try:
        same_const = same_const and a.const == b.const
    except Exception:
        same_const = False
    return Val(level=max(a.level, b.level), kind=kind,
               qual=a.qual if a.qual == b.qual else None,
               const=a.const if same_const else _NOCONST,
               nd=a.nd if a.nd == b.nd else None,
               origins=a.origins | b.origins,
               ambiguous=a.ambiguous or b.ambiguous,
               items=items, elem=join(a.elem, b.elem),
               func=a.func if (a.func and b.func and a.func[0] is b.func[0]) else None,
               dyn=a.dyn or b.dyn, rank=a.rank if a.rank == b.rank else None)


def join_all(vals, default=None):
    out = None
    for v in vals:
        out = join(out, v)
    return default if out is None else out


def dyn_of(*vals):
    """Where the data-dependent length of an elementwise result of `vals` comes from
    (None: its length is known while compiling)."""
    return next((v.dyn for v in vals if v is not None and v.dyn), None)


def max_level(vals):
    return max((v.level for v in vals if v is not None), default=STATIC)


def nd_join(a, b):
    """The rank (`Val.nd`) of a result combining operands of ranks `a` and `b`: an array
    if either is one (broadcasting), a scalar if both are, unknown otherwise."""
    if a == 1 or b == 1:
        return 1
    if a == 0 and b == 0:
        return 0
    return None


def element_of(v: Val) -> Val:
    """The value of one item when iterating over `v`."""
    if v.kind == RANGE:
        return Val(level=max_level(v.items or ()), kind=NUMBER, nd=0)
    if v.kind in CONTAINERS or v.kind == ITER:
        if v.items:
            return join_all(v.items)
        return v.elem if v.elem is not None else Val(level=v.level)
    if v.kind in (STR,):
        return Val(kind=STR)
    if v.kind in PYTHON_ONLY:
        return UNKNOWN_STATIC
    # an array: its rows
    return Val(level=v.level, kind=ARRAY if v.kind != BOOL else BOOL,
               nd=None, origins=v.origins)


def traced_argument(v, ints=False) -> bool:
    """Whether `v` is (or holds) a traced value that makes a plain call (a library's,
    or a conversion to a NumPy array) fail. Array data always does; so does a traced
    argument that may be a Python scalar: @jit specialises Python ints, but not floats,
    whose value it never needs while compiling. For functions of counts and sizes
    (`ints`), only array data counts."""
    if v is None:
        return False
    if v.kind in CONTAINERS:
        return traced_argument(element_of(v), ints) or (
            v.items is None and v.elem is None and v.level >= (DATA if ints else MAYBE))
    if v.kind in PYTHON_ONLY:
        return False
    return v.level >= (DATA if ints else MAYBE)


# module constants that are Python floats (`from math import pi`, `np.pi`): numbers
NUMBER_CONSTANTS = {f"{m}.{n}": v for m in ("math", "numpy", "cmath")
                    for n, v in (("pi", 3.141592653589793), ("e", 2.718281828459045),
                                 ("tau", 6.283185307179586), ("inf", float("inf")),
                                 ("nan", float("nan")))}


def ref_value(qual) -> "Val":
    """A reference to `qual`: a Python number for the float constants of math and
    NumPy, else an opaque reference."""
    if qual in NUMBER_CONSTANTS:
        return Val(kind=NUMBER, nd=0, const=NUMBER_CONSTANTS[qual])
    return Val(kind=REF, qual=qual)
