"""What a jitted function's parameters will be at run time, read from how it uses them.

npxla's `@jit` traces every non-static argument, but it specialises Python `int`,
`bool` and `float` arguments (and containers of them) when it needs their values: a
branch on such an argument runs in Python. A branch on a NumPy scalar or an array is
compiled into the program, with the restrictions that come with it (NPX131-NPX133).
The linter cannot see the caller, so it decides from the function's own code (a
parameter with real-number evidence is a number, but it may be a Python float, so it
is not array data):

* *array evidence*: the parameter is used as an array or a sequence before it is rebound
  (`x.shape`, `x.sum()`, `x[:, 0]`, `x[0]`, `x[x > 0]`, `x @ y`, `a, b, c = x`), or
  passed where NumPy expects an array (`np.asarray(x)`, `np.linalg.norm(x)`, `np.dot(x, y)`);
* *real-number evidence*: compared with a float literal (`t < 0.5`), passed to a
  `math` function of reals (`math.cos(z)`), or annotated `float` / an array type;
* *integer evidence*, which wins over both: a `range()` bound or an `int()` argument
  (anywhere, also after `n = np.asarray(n)`), an index (`a[n]`), or annotated
  `int`/`bool`.

Measured on published NumPy code (`tests/lint/realcode.py`: transforms3d, pyrr,
numpy-financial, pymannkendall): with this evidence the linter finds 4 more of the
functions `@jit` refuses (branches on angles, `if not np.isclose(np.linalg.norm(v), 1.)`,
`if dot < 0.0` after `q = np.asarray(q)`, `if length == 0.0` on `segment[1] - segment[0]`)
and flags none of the 102 that compile. A parameter with no evidence stays "maybe a
Python int", which npxla specialises (no finding).
"""
from __future__ import annotations

import ast

from npxla.transpiler.lint import knowledge as K

# annotations (the last dotted part) that say what the argument is
_REAL_ANNOTATIONS = frozenset({"float", "complex", "ndarray", "NDArray", "ArrayLike",
                               "Array", "floating", "float64", "float32"})
_INT_ANNOTATIONS = frozenset({"int", "bool", "integer", "int64", "int32"})
# calls whose arguments are integers (or integral values the code turns into ones)
_INT_CALLS = frozenset({"builtins.range", "builtins.int", "operator.index"})


def _annotation_name(node):
    if isinstance(node, ast.Subscript):
        node = node.value
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value.rsplit(".", 1)[-1].split("[")[0]
    return None


def _is_mask(node):
    """A comparison used as an index (`x[x > 0.5]`, `x[(x > 0) & (x < 1)]`): the
    indexed value is an array, whatever the comparison says about it."""
    if isinstance(node, ast.Compare):
        return True
    return isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr)) \
        and (_is_mask(node.left) or _is_mask(node.right))


def parameter_evidence(fn, nodes_of, qualify, facts):
    """(array parameters, real-number parameters) of `fn`; see the module docstring.
    `nodes_of(fn, types)` lists the nodes of the given types in `fn`; `qualify(node)`
    gives the qualified name a callee expression refers to (`"numpy.linalg.norm"`);
    `facts()` gives the `ast_facts.FunctionFacts` that say which assignments reach a
    use (asked only when a parameter is rebound somewhere)."""
    args = fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs
    params = {a.arg for a in args} - K.NAMESPACE_NAMES
    rebound = {n.id for n in nodes_of(fn, ast.Name)
               if n.id in params and not isinstance(n.ctx, ast.Load)}
    reaching = facts().reaching if rebound else None

    def use(name_node):
        """The parameter this expression is, where the value passed in may reach it
        (reaching definitions: `x = np.asarray(x)` reads the argument, uses after it
        do not, a use after `if c: x = f(x)` still may)."""
        if not isinstance(name_node, ast.Name) or name_node.id not in params:
            return None
        if name_node.id not in rebound or \
                any(d is fn.args for d in reaching(fn, name_node.id, name_node)):
            return name_node.id
        return None

    arrays, reals, ints, not_array = set(), set(), set(), set()
    for a in args:
        kind = _annotation_name(a.annotation) if a.annotation is not None else None
        if kind in _REAL_ANNOTATIONS:
            reals.add(a.arg)
        elif kind in _INT_ANNOTATIONS:
            ints.add(a.arg)
    for node in nodes_of(fn, ast.Attribute):
        name = use(node.value)
        if name is None:
            continue
        if node.attr in K.NDARRAY_ATTRS or node.attr in K.NDARRAY_METHODS:
            arrays.add(name)
        elif node.attr not in K.NDARRAY_ALL:
            not_array.add(name)
    for node in nodes_of(fn, ast.Subscript):
        name = use(node.value)
        if name is not None and (isinstance(node.slice, (ast.Tuple, ast.Slice)) or (
                isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, int))
                or _is_mask(node.slice)):
            arrays.add(name)
        index = use(node.slice)
        if index is not None:
            ints.add(index)
    for node in nodes_of(fn, ast.BinOp):
        if isinstance(node.op, ast.MatMult):
            arrays.update(n for n in (use(node.left), use(node.right)) if n)
    for node in nodes_of(fn, ast.Assign):
        if isinstance(node.targets[0], (ast.Tuple, ast.List)):
            name = use(node.value)
            if name is not None:
                arrays.add(name)
    for node in nodes_of(fn, ast.Compare):
        operands = [node.left] + node.comparators
        if any(isinstance(o, ast.Constant) and isinstance(o.value, float) for o in operands):
            reals.update(n for n in map(use, operands) if n)
    for node in nodes_of(fn, ast.Call):
        qual = qualify(node.func) or ""
        module, _, name = qual.partition(".")
        if qual in _INT_CALLS:            # any use, rebound or not: `n = np.asarray(n)`
            ints.update(a.id for a in node.args if isinstance(a, ast.Name))
        elif module == "numpy" and name in K.ARRAY_ARGUMENTS:
            arrays.update(n for n in map(use, node.args[:K.ARRAY_ARGUMENTS[name]]) if n)
        elif module == "math" and name in K.MATH_REAL_FUNCTIONS:
            reals.update(n for n in map(use, node.args) if n)
    return frozenset(arrays - not_array - ints), frozenset(reals - arrays - ints)
