"""The catalogue of refusals: each thing `@jit` refuses, declared once.

An entry holds the lint code, a stable name, the `TranspileError` class the compiler
raises, the message (a format string) and the hint. The converter and the runtime build
their errors from it (`Refusal.error`), and the lint rule with the same code takes its
message and compiler error from it, so `npxla lint` and `@jit` say the same thing about
the same code and cannot drift apart.
"""
from __future__ import annotations

from dataclasses import dataclass

from npxla.transpiler.base.errors import (ConcretizationError, DataDependentShapeError,
                                          LibraryCallError, Location, ShapeMismatchError,
                                          TranspileError,
                                          UnsupportedFunctionError, UnsupportedOperationError,
                                          UnsupportedSyntaxError)


@dataclass(frozen=True)
class Refusal:
    code: str                  # the lint code (NPX1xx)
    name: str                  # kebab-case, stable
    error: type                # the TranspileError subclass the compiler raises
    message: str               # format string; fields filled by whoever reports it
    hint: str = ""             # format string, same fields
    # who reports it besides the other: "" (the compiler raises it from here and a lint
    # rule reads it), or why only one side does: "compiler-only: ...", "lint-only: ..."
    only: str = ""
    # raise sites that still build their own error (modules being rewritten): they are
    # to call `error_for`; the catalogue test checks they still raise this error class
    unconverted: tuple = ()
    # other TranspileError classes the compiler raises for the same code, where another
    # check finds the same problem first
    also: tuple = ()

    def text(self, **fields) -> str:
        return _fill(self.message, fields)

    def error_for(self, location: Location | None = None, cls: type | None = None,
                  deps=None, **fields) -> TranspileError:
        """The compiler's exception for this refusal (`cls`: a subclass that carries
        more, such as the runtime's ContainerMutation; `deps`: the argument positions a
        ConcretizationError's value came from, for staging's retry)."""
        extra = {} if deps is None else {"deps": deps}
        return (cls or self.error)(self.text(**fields), hint=_fill(self.hint, fields) or None,
                                   location=location, **extra)


def _fill(template, fields):
    try:
        return template.format(**fields)
    except (KeyError, IndexError):
        return template


REFUSALS: dict = {}


def _declare(*args, **kwargs) -> Refusal:
    refusal = Refusal(*args, **kwargs)
    assert refusal.code not in REFUSALS, refusal.code
    REFUSALS[refusal.code] = refusal
    return refusal


GENERATOR = _declare(
    "NPX101", "generator-function", UnsupportedSyntaxError,
    "'{what}' makes a generator, which cannot be compiled: XLA programs return once",
    "build the values into an array and return it")
REBIND_OUTSIDE = _declare(
    "NPX102", "global-statement", UnsupportedSyntaxError,
    "'{stmt}' cannot be compiled: a compiled function cannot rebind variables of the "
    "function it is defined in",
    "pass {names} in as an argument and return the new value; assign it outside the "
    "jitted function")
ATTRIBUTE_STORE = _declare(
    "NPX103", "attribute-assignment", UnsupportedSyntaxError,
    "deleting an attribute ('.{attr}') or binding it as a for/with target cannot be "
    "compiled",
    "assign the attribute with '=' (npxla replays attribute assignments after each run)")
ASYNC = _declare(
    "NPX104", "async-code", UnsupportedSyntaxError,
    "async code cannot be compiled",
    "use a plain def and plain for/with statements")
MATCH = _declare(
    "NPX105", "match-statement", UnsupportedSyntaxError,
    "match statements cannot be compiled yet",
    "write the cases as an if/elif chain")
WALRUS_IN_WHILE = _declare(
    "NPX106", "walrus-in-while-condition", UnsupportedSyntaxError,
    "an assignment expression (:=) in a while condition cannot be compiled: the condition "
    "is evaluated apart from the loop body",
    "assign the value before the loop and again at the end of the body, and test the "
    "variable")
JUMP_IN_FINALLY = _declare(
    "NPX107", "jump-in-finally", UnsupportedSyntaxError,
    "'{what}' inside 'finally' cannot be compiled: it would silently discard an exception "
    "being raised",
    "move the statement after the try statement")
TRY_AROUND_STAGED_FLOW = _declare(
    "NPX131", "try-around-data-dependent-flow", UnsupportedSyntaxError,
    "a data-dependent {kind} inside try/except cannot be compiled: the compiled program "
    "cannot raise, so the except clause would never run",
    "move the try/except outside the jitted function, or check the condition explicitly "
    "(e.g. with np.where) instead of catching an exception")
SHAPE_ON_TWO_PATHS = _declare(
    "NPX139", "shape-differs-between-paths", ShapeMismatchError,
    "'{name}' has shape {a} on one path and shape {b} on another of a data-dependent "
    "{kind}; XLA needs one static shape",
    "{advice}")
CAUGHT_AT_RUN_TIME = _declare(
    "NPX138", "run-time-error-inside-try", UnsupportedOperationError,
    "{error} ({message}) raised at run time inside a try statement whose except clause "
    "catches it: the compiled program checks for it after it has run, so the except "
    "clause cannot run",
    "test for the condition before the failing operation (e.g. `if 0 <= i < len(x):`) "
    "instead of catching the exception, or call the function outside @jit for such "
    "inputs",
    only="compiler-only: whether the error happens depends on the run's data")
ELSE_ON_STAGED_LOOP = _declare(
    "NPX132", "else-on-data-dependent-loop", UnsupportedSyntaxError,
    "the else clause of a data-dependent {kind} loop cannot be compiled",
    "set a flag before 'break' and test it after the loop instead of 'else:'")
CONTAINER_MUTATION = _declare(
    "NPX133", "container-mutation-in-data-dependent-flow", UnsupportedOperationError,
    "{what} inside data-dependent control flow cannot be compiled: it would run once while "
    "compiling, not once per iteration or branch taken",
    "preallocate an array and assign into it (out[i] = ...), or build the list in a loop "
    "over a Python range/list outside data-dependent code")
EFFECT_VALUE = _declare(
    "NPX136", "stored-object-holds-array-data", UnsupportedOperationError,
    "{what} stores a {kind} object that holds array data computed in the function on "
    "an object that outlives the call: only arrays, Python scalars, lists, tuples and "
    "dicts are rebuilt with the run's values after the call",
    "store the arrays themselves (self.x = x, self.P = P) instead of an object built "
    "around them, or build the object outside the jitted function",
    only="compiler-only: what a stored object holds is known once the function runs")
UNREGISTERED_MODULE = _declare(
    "NPX137", "side-effect-in-unregistered-module", UnsupportedOperationError,
    "{what} changes the globals of a module that is not in sys.modules (loaded by hand, "
    "e.g. with importlib's exec_module): npxla replays such changes after each run by "
    "finding the module by name",
    "register the module in sys.modules (importlib does this in a normal import), or "
    "return the new value instead",
    only="compiler-only: whether a module is registered is known when the function runs")
PATH_TYPED_SEQUENCE = _declare(
    "NPX140", "list-on-one-path-array-on-another", UnsupportedOperationError,
    "'{name}' is a {kind} on one path of a data-dependent branch and a 1-D array on the "
    "other; {what} treats the two differently, so its result would depend on the path "
    "in a way one compiled program cannot follow",
    "give '{name}' one type on both paths: np.array([...]) for the {kind}, or keep to "
    "what a {kind} and an array do alike after the branch (indexing with an int, len(), "
    "iterating, passing it to NumPy functions)",
    only="compiler-only: which path a data-dependent branch takes is only known when the "
         "program runs")
RANDOM_STATE = _declare(
    "NPX141", "numpy-random-state", UnsupportedOperationError,
    "{what}, which a compiled function cannot reproduce (it cannot advance a random "
    "stream)",
    "make the generator outside the jitted function and pass it in "
    "(np.random.default_rng(seed) inside works too), or draw the random numbers outside "
    "and pass them in as an argument")
ARRAY_SUBCLASS = _declare(
    "NPX142", "ndarray-subclass-of-traced-values", UnsupportedOperationError,
    "'{name}' subclasses np.ndarray: an instance of it made from traced values cannot be "
    "compiled (a compiled program holds plain arrays, not {name} objects with their "
    "methods)",
    "compute with plain arrays inside the jitted function, or make the {name} outside it "
    "from the function's results",
    only="compiler-only: whether a class called with traced values subclasses np.ndarray "
         "is known when it is called")
OUTSIDE_ARRAY_STORE = _declare(
    "NPX143", "store-into-outside-array", UnsupportedOperationError,
    "an array that was not created inside the compiled function ({what}) is modified "
    "with a traced value",
    "pass the array in as an argument (it is then written back after the call) or copy "
    "it first with np.array(...)")

# --- data-dependent shapes (NPX11x) --------------------------------------------------------
BOOLEAN_MASK = _declare(
    "NPX111", "boolean-mask-index", DataDependentShapeError,
    "boolean-mask indexing x[mask] gives an array whose length depends on the data; use "
    "np.where(mask, x, fill)",
    "XLA needs every array shape at compile time: keep the shape with np.where(mask, x, "
    "fill), or reduce with a mask (np.sum(np.where(mask, x, 0)))",
    unconverted=("runtime/numpy/indexing/fancy.py",))
NONZERO = _declare(
    "NPX112", "nonzero-indices", DataDependentShapeError,
    "'{fn}' returns indices whose count depends on the data; use a mask with np.where "
    "instead",
    "work with the mask itself: np.where(mask, a, b), mask.sum(), np.argmax(mask) for "
    "the first index",
    unconverted=("runtime/numpy/indexing/takeput.py",
                 "runtime/numpy/indexing/bounded_results.py"))
DATA_DEPENDENT_SIZE = _declare(
    "NPX113", "data-dependent-size", DataDependentShapeError,
    "'{fn}' returns an array whose size depends on the data, which cannot be compiled",
    "compute it outside the jitted function, or keep the shape fixed with masks "
    "(count distinct sorted values with np.sum(np.diff(np.sort(x)) != 0) + 1)",
    unconverted=("runtime/numpy/indexing/bounded_results.py",
                 "runtime/numpy/reductions/histograms.py", "runtime/numpy/arrays/arrange.py"),
    also=(UnsupportedFunctionError,))
WHERE_ONE_ARGUMENT = _declare(
    "NPX114", "where-one-argument", DataDependentShapeError,
    "np.where(condition) returns indices whose count depends on the data; use the "
    "3-argument form np.where(condition, x, y)",
    unconverted=("runtime/numpy/indexing/bounded_results.py",))
RUN_TIME_LENGTH = _declare(
    "NPX115", "run-time-length-argument", ConcretizationError,
    "{fn} is not supported on an array whose length is only known at run time (the "
    "length comes from {how})",
    "compute on the whole array with a mask (np.where(mask, x, 0)), or keep this "
    "operation outside the compiled function")
ROOTS_TRIMMED = _declare(
    "NPX116", "roots-with-zero-end-coefficient", DataDependentShapeError,
    "np.roots was given a polynomial whose {which} coefficient is 0: NumPy then trims "
    "the zeros and returns {result}, which this program (compiled for {count} {kind} "
    "roots) cannot return",
    "trim the zero coefficients before the call (np.trim_zeros(p)), or compute the roots "
    "outside the jitted function",
    only="compiler-only: raised when the program runs and meets the zero; the source "
         "does not say whether a coefficient is zero")

# --- traced values needed as Python values (NPX12x) ----------------------------------------
ITEM_TOLIST = _declare(
    "NPX121", "item-tolist", ConcretizationError,
    "'.{method}()' converts a traced array to a Python value, which only exists when the "
    "compiled program runs",
    "keep it an array (a 0-d array works wherever a number does; x.item() compiles), or "
    "return it and convert after the call",
    unconverted=("runtime/staging/abstract.py",))
TRACED_SHAPE = _declare(
    "NPX122", "traced-shape", ConcretizationError,
    "a value computed from array data is used as {what}, which must be known when compiling",
    "derive it from shapes (x.shape[0], len(x)) or pass it as a static argument "
    "(static_argnums)",
    unconverted=("runtime/staging/abstract.py", "runtime/numpy/reductions/reductions.py"))
TRACED_RANGE_ITERATED = _declare(
    "NPX123", "traced-range-iterated-in-python", ConcretizationError,
    "a range whose length depends on array data is iterated in Python ({how}); only a for "
    "loop can run a data-dependent number of times",
    "use it directly as the iterable of a for loop that fills a preallocated array")
TRACED_SEQUENCE_INDEX = _declare(
    "NPX124", "traced-index-into-python-sequence", ConcretizationError,
    "a value computed from array data indexes a Python {kind}, which needs a Python int "
    "(only one of numbers of one type is read like an array)",
    "turn the sequence into an array first (np.array(weights)[i], np.stack(rows)[i])",
    unconverted=("runtime/staging/abstract.py",))
TRACED_KEY = _declare(
    "NPX127", "traced-value-as-dict-key", ConcretizationError,
    "a value computed from array data is used as a dict key or set member, which needs "
    "its value while compiling",
    "count or accumulate in an array indexed by an integer code instead (np.bincount, "
    "np.unique(..., return_inverse=True), out[code] += w)")
PERCENT_FORMAT = _declare(
    "NPX125", "percent-format-of-traced-value", ConcretizationError,
    "'%'-formatting needs the Python value of a traced array while compiling; use an "
    "f-string (@jit formats it when the program runs)",
    unconverted=("runtime/staging/abstract.py",))
TEXT_OF_TRACED = _declare(
    "NPX126", "text-of-traced-value", ConcretizationError,
    "{what} needs the value of a traced array while compiling, and it only exists when "
    "the compiled program runs",
    "print it, log it or warn with it (print, logging and warnings format f-strings, "
    "'%'-formatting and str.format when the program runs), or return it and format it "
    "after the call; a Python float argument can be passed as a static argument "
    "(static_argnums)",
    only="compiler-only: whether the value is a Python int argument (which @jit "
         "specialises on its value, so the text is exact) or comes from array data is "
         "only known when the function is called",
    also=(UnsupportedOperationError,))

# --- data-dependent control flow (NPX134, NPX135) -------------------------------------------
PATH_DEPENDENT_ALIAS = _declare(
    "NPX134", "inplace-update-of-path-dependent-alias", UnsupportedOperationError,
    "'{name}' may be the same array as before (or a view of one) on some paths of a "
    "data-dependent {where} and a new array on others, so this in-place update cannot be "
    "compiled",
    "copy first (y = y.copy()) or write y = y + 1",
    unconverted=("runtime/staging/abstract.py", "runtime/operators/loops.py"))
NONE_ON_PATH = _declare(
    "NPX135", "none-on-data-dependent-path", ConcretizationError,
    "the function returns {inside} on a path of this data-dependent branch and {other} on "
    "another: a compiled function has one result type",
    "add a final 'return' so that every path returns a value",
    also=(UnsupportedOperationError,))

# --- functions and methods @jit does not compile (NPX15x) -----------------------------------
UNSUPPORTED_FUNCTION = _declare(
    "NPX151", "unsupported-numpy-function", UnsupportedFunctionError,
    "'{fn}' is not supported on traced values: {why}{instead}",
    "compute it outside the jitted function and pass the result in, or write it with "
    "the NumPy functions @jit compiles (docs/numpy-support.md lists them)",
    unconverted=("runtime/numpy/core/registry.py",))
UNSUPPORTED_ATTRIBUTE = _declare(
    "NPX152", "unsupported-ndarray-attribute", UnsupportedFunctionError,
    "'.{attr}' is not supported on the arrays of a jitted function{instead}",
    unconverted=("runtime/numpy/core/registry.py",))
LIBRARY_CALL = _declare(
    "NPX153", "library-call-on-traced-array", LibraryCallError,
    "'{fn}' comes from {lib}, which @jit does not compile: called as plain Python on a "
    "traced value it fails{instead}",
    "npxla compiles NumPy functions and your own Python code, not other libraries: "
    "compute this outside the jitted function and pass the result in, or write it with "
    "NumPy functions")

# --- arguments a call passes (NPX16x) ----------------------------------------------------------
IMMUTABLE_DEVICE_ARGUMENT = _declare(
    "NPX161", "inplace-update-of-jax-array-argument", UnsupportedOperationError,
    "argument '{arg}' is a jax.Array, which cannot change, and {fn} updates it in place: "
    "the caller would not see the update",
    "pass npxla.asarray({arg}) instead (a device array that in-place updates replace, "
    "without a copy to the host), or a NumPy array",
    only="compiler-only: whether an argument is a jax.Array is known when the function "
         "is called, not from its source")


# --- what gives a data-dependent shape, per jit flavour ---------------------------------------
@dataclass(frozen=True)
class ShapeRefusal:
    """A function or pattern whose result's size depends on the data: the refusal that
    reports it, and whether each flavour refuses it (npxla's `@jit` learns to give some of
    them a bounded, run-time length: flip `npxla` to False then)."""
    refusal: Refusal
    npxla: bool = True
    jax: bool = True

    def refused_by(self, flavor: str) -> bool:
        return self.npxla if flavor == "npxla" else self.jax


# keys: NumPy names (`"nonzero"`, also as methods `x.nonzero()`), and the patterns
# "x[mask]" (reading through a boolean mask), "where/1" (one-argument np.where) and
# "x[i:j]" (slice bounds computed from data; jax.jit: NPX203, a rule of its own) and
# "x[i:j:k]" (a step computed from data, or such bounds with a step other than 1 or -1)
DATA_DEPENDENT_SHAPES = {
    # @jit computes these into a buffer as long as their bound with a traced count
    # (runtime/numpy/bounded_*.py); jax.jit refuses them
    "x[mask]": ShapeRefusal(BOOLEAN_MASK, npxla=False),
    "x[i:j]": ShapeRefusal(TRACED_SHAPE, npxla=False),
    "x[i:j:k]": ShapeRefusal(TRACED_SHAPE, npxla=False),
    "where/1": ShapeRefusal(WHERE_ONE_ARGUMENT, npxla=False),
    **{name: ShapeRefusal(NONZERO, npxla=False)
       for name in ("nonzero", "flatnonzero", "argwhere")},
    **{name: ShapeRefusal(DATA_DEPENDENT_SIZE, npxla=False)
       for name in ("unique", "extract", "compress")},
    **{name: ShapeRefusal(DATA_DEPENDENT_SIZE) for name in (
        "unique_values", "unique_counts", "unique_inverse", "unique_all", "union1d",
        "intersect1d", "setdiff1d", "setxor1d", "trim_zeros")},
}


def shape_refused(key: str, flavor: str) -> bool:
    """Whether `flavor` ("npxla" or "jax") refuses the data-dependent-shape function or
    pattern `key` (a key of DATA_DEPENDENT_SHAPES)."""
    entry = DATA_DEPENDENT_SHAPES.get(key)
    return entry is not None and entry.refused_by(flavor)


# --- appended: arguments a call passes (NPX16x, continued) ---------------------------------
from npxla.transpiler.base.errors import IntegerOverflowError  # noqa: E402

INT_ARGUMENT_OVERFLOW = _declare(
    "NPX162", "python-int-argument-overflow", IntegerOverflowError,
    "Python int {value} passed as {arg} of {fn} does not fit in int64, the type a Python "
    "int argument has in the compiled program",
    "XLA has no integers wider than 64 bits: pass np.uint64(...) for a value in "
    "uint64's range, or float(...) for a float computation",
    only="compiler-only: the value of an argument is known when the function is called, "
         "not from its source")


# --- masked arrays (NPX17x): np.ma arrays that mask nothing compile ---------------------------
MASKED_MASK = _declare(
    "NPX171", "masked-array-with-a-mask", UnsupportedOperationError,
    "{what} gives a masked array that masks elements, which compiled code cannot hold: "
    "only masked arrays whose mask is empty (np.ma.asarray(x) of a plain array) compile",
    "pass and compute on the values (np.ma.getdata(x), or x.filled(value)) and the mask "
    "(np.ma.getmaskarray(x)) as two plain arrays, and combine them with np.where",
    only="compiler-only: whether an array is masked, and what its mask holds, is known "
         "when the function is called, not from its source")
MASKED_VALUES = _declare(
    "NPX172", "masked-array-masks-values", UnsupportedOperationError,
    "{what} on a masked array masks the elements where {why} (NumPy's masked result), "
    "which compiled code cannot hold",
    "compute on the values, np.ma.getdata(x), and test the domain yourself (np.where("
    "b != 0, a / b, fill)); npxla raises this where the compiled program meets such an "
    "element, or while compiling when it knows the values",
    only="compiler-only: whether an operand is a masked array is known when the function "
         "is called, and whether an element falls outside the domain when it runs")
MASKED_OPERATION = _declare(
    "NPX173", "masked-array-operation", UnsupportedFunctionError,
    "'{fn}' on a masked array (np.ma) is not supported in compiled code: {why}",
    "compute on the values, np.ma.getdata(x) (a plain array), or make the masked array "
    "after the call",
    only="compiler-only: whether an operand is a masked array is known when the function "
         "is called, not from its source")
MASKED_ACROSS_FLOW = _declare(
    "NPX174", "masked-array-across-data-dependent-flow", UnsupportedOperationError,
    "a masked array (np.ma) cannot be kept in a variable that a data-dependent branch or "
    "loop assigns: the value the compiled program merges there is a plain array",
    "compute on the values inside the branch or loop (np.ma.getdata(x)) and make the "
    "masked array after it (np.ma.asarray(result))",
    only="compiler-only: whether a variable holds a masked array is known when the "
         "function is called, not from its source")
