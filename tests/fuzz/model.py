"""The generator's data model: switches, static types (`Val`) and their dummy values.

Why typing by dummies: NumPy 2's promotion rules (NEP 50 weak scalars, Python vs NumPy
scalars, integer/float mixing) are long and easy to get subtly wrong in a re-statement;
evaluating an expression on `np.ones` of the right shape and dtype asks NumPy itself.
"""
from __future__ import annotations

import ast
import dataclasses
import warnings
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class Features:
    """Generator switches. Each switch guards one construct family, so a family the
    compiler is known to get wrong can be turned off in the default test run without
    losing everything else."""
    view_write_in_loop: bool = True     # a view/alias made before a loop, written inside it
    rebind_param_in_loop: bool = True   # a (mutated) argument rebound inside a loop
    raise_assert: bool = True           # `raise` / `assert` under data-dependent conditions
    empty_in_dd_if: bool = True         # `pass` / zero-trip loop inside a data-dependent `if`
    isinstance_checks: bool = True      # isinstance(x, np.ndarray) / type(x) on arrays
    helpers: bool = True                # helper functions defined in the module and called
    # arrays of run-time length (gen_bounded.py): slices bounded by loop indices or data,
    # masks, nonzero/unique/compress/extract, triangular loops, results returned from `f`
    bounded: bool = True
    # `x[::2] = x[:3]`: NumPy copies element by element without buffering when the
    # strides have the same sign, so the result depends on copy order (a NumPy quirk,
    # not a contract); off everywhere unless asked for (--enable overlap_assign)
    overlap_assign: bool = False
    # NaN, inf and -inf at random places in float arguments (NumPy's NaN rules through
    # comparisons, reductions, branches and loops)
    nan_args: bool = True
    # arguments of 4,096 to 12,000 elements: XLA:CPU takes other code paths from a few
    # thousand elements on (YNNPACK reductions skipped NaN there); off by default (a
    # separate campaign: --enable large_args, and the slow run)
    large_args: bool = False
    # transcendental functions among the unary operations (np.exp, np.log1p, np.tanh,
    # np.arctan, np.arctan2, ...): over large arguments they are NumPy's own loops called
    # back from the program (`host_ufuncs`), over small ones npxla's kernels (within an
    # ulp). Off by default, so that the default seeds keep their programs (a separate
    # campaign: --enable transcendental, and the large-argument slow run)
    transcendental: bool = False
    # Python side effects on objects that outlive the call: `f` also receives a `State`
    # object (array and int attributes, a method that stores), a list and a dict, and the
    # module has a global counter, a global rebound to arrays and a global list; the
    # program stores attributes, mutates the containers and rebinds the globals, also
    # inside data-dependent control flow (where a located refusal is a right answer).
    # The runner compares the objects, the containers and the module's globals after
    # the call, and calls the jitted function twice (the second call served from the
    # cache). Off by default (a separate campaign: --enable effects, and its own tests)
    effects: bool = False
    # helper functions written into a package under a temporary `site-packages` folder
    # (an installed package: npxla converts it as legacy code) and imported by the
    # program (`from fuzzpkg import h3`, `fuzzpkg.h4(x)`); off by default, like `effects`
    helpers_pkg: bool = False
    # The program families of issue 35 item 6 (gen_families.py). Each takes a share of
    # the seeds (`FAMILY_SHARE` each, drawn from the seed by an RNG of its own, so the
    # other seeds still make the programs they made before):
    # float32/float64 programs of + - * / only (cancellation, chaotic maps iterated
    # 50-500 times, Horner and Clenshaw recurrences, error-free transformations),
    # compared bit for bit (NaN equals NaN, the sign of zero counts)
    exact_float: bool = True
    # `def f(x, w=W)` with W a module-level array, changed in place between two calls
    # (`__fuzz_between__`): both calls, and W after each, are compared
    default_args: bool = True
    # transposed, Fortran-ordered, strided, reversed, offset and read-only arguments,
    # with ravel/reshape(-1)/flatten/.T and writes into the results and the arguments
    arg_layouts: bool = True
    # astype(np.int64/int32/...), int(), round(), scalar and slice stores into integer
    # arrays of NaN, inf and out-of-range floats (exact: NumPy's x86 INT_MIN, Python's
    # ValueError/OverflowError)
    float_int_casts: bool = True
    # a class with name-mangled attributes (`self.__w`), a private method and a private
    # class attribute; `f` is the bound method `OBJ.f`, the object's state is compared
    private_attrs: bool = True
    # loops over rows whose trips touch only their own row (gen_rows.py), the shape the
    # lanes rewrite runs all at once, compared bit for bit
    row_loops: bool = True
    # lists of arrays built from rows by a comprehension or `append` in a loop, then
    # used (gen_lists.py): the staged comprehensions and collected appends, bit for bit
    list_builds: bool = True
    # dynamic-programming tables filled row by row (gen_tables.py): the inner loop
    # carries the row it writes (lowering/rows.py), bit for bit
    table_loops: bool = True
    # counted loops folding integers (gen_reductions.py): sums, bit folds and counts
    # become one reduce (lowering/loop_reductions.py), bit for bit
    reduce_loops: bool = True
    # loops that swap elements, rows and columns and write under data-dependent `if`s
    # (gen_swaps.py): guarded writes of every trip (lowering/branch_writes.py) and old
    # reads bundled before the first write (lowering/bundled_reads.py), bit for bit
    swap_loops: bool = True
    # (known.KNOWN) exact_float: a division of a division, `(x / 3.0) / 7.0`, also across
    # statements (XLA rewrites it as `x / 21.0`)
    exact_chained_division: bool = True
    # (known.KNOWN) exact_float: a constant added to a sum with a constant, `x + 1.7 - 1.7`,
    # also across statements (XLA folds the two constants first)
    exact_constant_sums: bool = True
    # (known.KNOWN) arg_layouts: read-only arguments (npxla raises NumPy's ValueError only
    # when a write changed values, and only after the run, after any later exception)
    readonly_args: bool = True
    # (known.KNOWN) arg_layouts: `np.ascontiguousarray(a)`, `np.asarray(a, order='C')`,
    # then written (npxla aliases `a` where NumPy copies a non-C-contiguous one)
    layout_contiguous: bool = True
    # force every program into one family (a name above), for a campaign of one family
    family: str | None = None
    min_stmts: int = 3
    max_stmts: int = 15

    def replace(self, **kw) -> "Features":
        return dataclasses.replace(self, **kw)


@dataclass(frozen=True)
class Val:
    """The static type of a value: 'arr' (ndarray), 'np' (NumPy scalar) or 'py'
    (Python scalar), its shape and its dtype name ('int'/'float'/'bool' for Python)."""
    kind: str
    shape: tuple
    dtype: str

    @property
    def is_array(self) -> bool:
        return self.kind == "arr" and len(self.shape) > 0


def val_of(v) -> Val | None:
    if isinstance(v, np.ndarray):
        return Val("arr", v.shape, v.dtype.name)
    if isinstance(v, np.generic):
        return Val("np", (), v.dtype.name)
    if isinstance(v, (bool, int, float)):
        return Val("py", (), type(v).__name__)
    return None


def dummy(val: Val):
    if val.kind == "arr":
        return np.ones(val.shape, dtype=val.dtype)
    if val.kind == "np":
        return np.dtype(val.dtype).type(1)
    return {"int": 1, "float": 1.0, "bool": True}[val.dtype]


@dataclass
class Var:
    name: str
    val: Val
    base: str | None = None      # the name this one views or aliases
    loop: int = 0                # id of the innermost loop it was created in (0: none)
    param: bool = False
    bound: int | None = None     # loop variables: exclusive upper bound of their value


@dataclass
class Ctx:
    loops: tuple = ()            # ids of the enclosing loops, innermost last
    dd_if: bool = False          # inside a data-dependent `if`
    helper: bool = False         # generating a helper's body
    ret: tuple | None = None     # names an early `return` hands back
    top: bool = False            # directly in `f`'s body (not nested in any statement)


@dataclass
class Program:
    """A generated program: module source (defining `f`), its arguments, its seed."""
    seed: int
    source: str
    args: list = field(default_factory=list)


@dataclass
class NewState:
    """An argument standing for `State(*fields)`, an instance of the class the program
    (feature `effects`) defines: built by the runner once the module is loaded."""
    fields: tuple


# The line that separates a program's main module from the source of its installed
# package (feature `helpers_pkg`): what follows it is written to
# `site-packages/<PACKAGE>_<n>/__init__.py`, and `PACKAGE` in the main module is renamed
# to match. An assignment, not a comment, so that it survives `ast.unparse` (shrinking).
PACKAGE = "fuzzpkg"
PACKAGE_MARK = f"__fuzz_package__ = {PACKAGE!r}"


DTYPES = ["float64", "int64", "float32", "int32"]
DTYPE_WEIGHTS = [4, 3, 1, 1]
ARITH = ["+", "-", "*"]
AUG = ["+=", "-=", "*="]
CMP = [">", "<", ">=", "<=", "=="]
REDUCE = ["sum", "mean", "max", "min"]


def empty_body(body) -> bool:
    return len(body) == 1 and isinstance(body[0], ast.Pass)


def quiet_eval(code, ns, mode="eval"):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if mode == "eval":
            return eval(code, ns)
        exec(code, ns)
        return ns
