"""What fails when `@jit` calls a function as plain Python with traced arguments.

`@jit` converts the user's code; a function of an installed package (and a package's
own helpers, when the jitted function itself lives in an installed package) is called
as it is, while compiling, with the traced arrays as arguments. Many such calls work:
NumPy functions and operators dispatch traced arrays to npxla's registry, indexing and
`len` work. What fails is what needs the *value* of a traced array in Python: a branch
on it (`if x > 0`), a conversion (`np.array(x)`, `np.asarray(x)`, `float(x)`), a `math`
function, a store into a NumPy array the helper made itself (`M = np.eye(3); M[0] = x`).

The analysis runs such a callee's body with the call's argument values like any other
function, with the handlers of this module (plus the rules marked `plain`, whose
refusals are the same in plain code: unsupported NumPy functions, `.item()`, traced
shapes...) instead of the rules for converted code. What they report is not shown: it
is collected as the call's *failures*, and the caller reports the call itself
(NPX153), naming the first failure.

Thresholds follow the runtime: a traced Python `int` argument is specialised when its
value is needed (a branch, `int()`, an index), a `float` is not; a conversion to an
array or a real number of a traced value of unknown type (`MAYBE`) is taken to fail,
a branch only on array data (`DATA`).
"""
from __future__ import annotations

from npxla.transpiler.lint.values import ARRAY, BOOL, DATA, REF, traced_argument

# NumPy functions that turn their first argument into a NumPy array (`__array__`): a
# traced array, or a list holding one, has no value to give them
CONVERSIONS = frozenset("""
numpy.array numpy.asarray numpy.asanyarray numpy.ascontiguousarray numpy.asfortranarray
numpy.asarray_chkfinite numpy.require numpy.fromiter numpy.matrix
""".split())
# builtins that need a Python number (`__float__`, `__complex__`)
_REAL_CONVERSIONS = frozenset({"builtins.float", "builtins.complex"})
_BRANCHES = frozenset({"if", "while", "ifexp", "boolop", "not", "assert", "compare", "for"})


class PlainFailures:
    """The handlers of a function run as plain Python (`FunctionContext.plain`). Like a
    rule it reports through `ctx.report`, which in plain mode records a failure."""

    code = "NPX153"

    def on_control(self, ctx, node, kind, cond):
        if kind in _BRANCHES and cond.condition_level >= DATA:
            what = "a range over" if kind == "for" else "a branch on"
            ctx.report(self, node, f"{what} a traced value")

    def on_call(self, ctx, node, callee, args, kwargs):
        if callee.kind != REF or not callee.qual or not args:
            return
        qual = callee.qual
        if qual == "builtins.map" and args[0].kind == REF:
            qual, args = args[0].qual, args[1:]         # map(np.array, [a, b]): each
        if qual in CONVERSIONS or qual in _REAL_CONVERSIONS:
            if any(traced_argument(a) for a in args[:1]):
                ctx.report(self, node, f"{_short(qual)}() of a traced value")
        elif qual.startswith("math."):
            # math's functions take Python numbers: a Python scalar argument, which
            # @jit specialises, is fine; only array data fails
            if any(traced_argument(a, ints=True) for a in args):
                ctx.report(self, node, f"{qual}() of a traced value")

    def on_subscript(self, ctx, node, base, index, mode, value):
        """A store into an array the plain code made itself from constants is a store
        into a NumPy array, which asks the traced value (or index) for its value."""
        if mode == "load" or base.kind not in (ARRAY, BOOL):
            return
        if not any(o[0] == "concrete" for o in base.origins):
            return
        if traced_argument(value) or traced_argument(index, ints=True):
            ctx.report(self, node, "a traced value stored into a NumPy array")


def _short(qual):
    return "np." + qual[6:] if qual.startswith("numpy.") else qual.rsplit(".", 1)[-1]


PLAIN = PlainFailures()
