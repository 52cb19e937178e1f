"""Kernighan's bit count, `while v: v &= v - 1; c += k`: one instruction, not a loop.

The loop clears the lowest set bit of `v` per iteration, so it runs once per set bit.
Staged, it is a `while` whose trip count differs from element to element (and from
lane to lane when the loops around it run as lanes): checksums and bit-manipulation
kernels spend most of their time there, where Numba's LLVM recognises the idiom and
emits `popcnt`. This pass recognises the loop as written:

    while v:                     # or `while v != 0:`
        v &= v - 1               # or `v = v & (v - 1)`; the 1 may be `np.uint64(1)`
        c += k                   # k an int literal; the two statements in any order

and rewrites it into
`if ag__.bit_count_applies(v, c): v, c = ag__.bit_count(v, c, k)` with the loop itself,
unchanged, in the `else:`. The runtime applies the count only where it gives the
loop's result bit for bit: `v` a traced integer array scalar of a NumPy dtype (a
Python int could be negative, and Python's loop would then never end) and `c` an
integer. Everything else runs the loop.
"""
from __future__ import annotations

import gast

from npxla.transpiler.pyct import templates

_ONES = {"uint64", "uint32", "uint16", "uint8", "int64", "int32", "int16", "int8"}


def _is_name(node, name):
    return isinstance(node, gast.Name) and node.id == name


def _is_one(node):
    """`1`, or `np.uint64(1)` and the other NumPy integer types of 1."""
    if isinstance(node, gast.Constant):
        return type(node.value) is int and node.value == 1
    return isinstance(node, gast.Call) and len(node.args) == 1 and not node.keywords and \
        isinstance(node.func, gast.Attribute) and node.func.attr in _ONES and \
        isinstance(node.func.value, gast.Name) and node.func.value.id in ("np", "numpy") \
        and _is_one(node.args[0])


def _minus_one(node, v):
    return isinstance(node, gast.BinOp) and isinstance(node.op, gast.Sub) and \
        _is_name(node.left, v) and _is_one(node.right)


def _clears_lowest(stmt, v):
    """`v &= v - 1` or `v = v & (v - 1)`."""
    if isinstance(stmt, gast.AugAssign) and isinstance(stmt.op, gast.BitAnd):
        return _is_name(stmt.target, v) and _minus_one(stmt.value, v)
    if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
            _is_name(stmt.targets[0], v):
        value = stmt.value
        return isinstance(value, gast.BinOp) and isinstance(value.op, gast.BitAnd) and (
            _is_name(value.left, v) and _minus_one(value.right, v) or
            _is_name(value.right, v) and _minus_one(value.left, v))
    return False


def _counts(stmt, v):
    """(c, k) of `c += k` with an int literal k, c another name than `v`."""
    if isinstance(stmt, gast.AugAssign) and isinstance(stmt.op, gast.Add) and \
            isinstance(stmt.target, gast.Name) and stmt.target.id != v and \
            isinstance(stmt.value, gast.Constant) and type(stmt.value.value) is int:
        return stmt.target.id, stmt.value.value
    return None


def _tested(test):
    """The name `while v:` / `while v != 0:` tests, else None."""
    if isinstance(test, gast.Name):
        return test.id
    if isinstance(test, gast.Compare) and len(test.ops) == 1 and \
            isinstance(test.ops[0], gast.NotEq) and isinstance(test.left, gast.Name) and \
            isinstance(test.comparators[0], gast.Constant) and \
            type(test.comparators[0].value) is int and test.comparators[0].value == 0:
        return test.left.id
    return None


def counted_bits(loop):
    """(v, c, k) when `loop` is Kernighan's bit count, else None."""
    v = _tested(loop.test) if isinstance(loop, gast.While) and not loop.orelse else None
    if v is None or len(loop.body) != 2:
        return None
    for first, second in (loop.body, loop.body[::-1]):
        found = _counts(second, v)
        if _clears_lowest(first, v) and found is not None:
            return (v,) + found
    return None


class _Transformer(gast.NodeTransformer):
    def visit_While(self, node):
        self.generic_visit(node)
        found = counted_bits(node)
        if found is None:
            return node
        v, c, k = found
        return templates.replace(
            f"if ag__.bit_count_applies({v}, {c}):\n"
            f"    {v}, {c} = ag__.bit_count({v}, {c}, {k})\n"
            f"else:\n    __loop__\n", origin=node, __loop__=[node])


def transform(node, ctx):
    return _Transformer().visit(node)
