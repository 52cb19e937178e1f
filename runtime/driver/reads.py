"""What a function's code reads from outside its own locals, found from its bytecode.

A staged program bakes in whatever Python values the code read while it was staged, so
the call path must know what those are to guard them (see `guards`). Reading the
bytecode finds them without running anything: every global name, closure cell and
parameter the code loads, each with the attribute chains read through it (`conf.SCALE`,
`np.exp`, `self.w`). A load not followed by an attribute (the object used as a value:
passed to a helper, indexed, called) is the empty chain `()`; the object of an
attribute store (`self.x = v`) is not read. The result is a superset
of what one staging run reads (both branches of every `if`), which only costs guards.
"""
from __future__ import annotations

import dis
import functools
import types

_ATTR_OPS = frozenset({"LOAD_ATTR", "LOAD_METHOD"})
_FAST_OPS = frozenset({"LOAD_FAST", "LOAD_FAST_CHECK"})
_DEREF_OPS = frozenset({"LOAD_DEREF", "LOAD_CLASSDEREF"})
_DUP_OPS = frozenset({"COPY", "DUP_TOP"})


@functools.lru_cache(maxsize=4096)
def roots(code: types.CodeType) -> dict:
    """{root: frozenset of attribute tuples}, root = ("global", name), ("cell", name)
    for a free variable of `code`, or ("param", index) for a parameter. Nested code
    (lambdas, comprehensions, inner functions) is included: its globals are the same
    globals, and the cells it loads are this function's free variables or parameters."""
    n_params = code.co_argcount + code.co_kwonlyargcount
    params = {name: i for i, name in enumerate(code.co_varnames[:n_params])}
    out: dict = {}
    _scan(code, params, frozenset(code.co_freevars), True, out)
    return {root: frozenset(chains) for root, chains in out.items()}


def _scan(code, params, freevars, top, out):
    root, attrs = None, []
    instructions = list(dis.get_instructions(code))
    for k, ins in enumerate(instructions):
        op = ins.opname
        if root is not None:
            if op in _ATTR_OPS:
                attrs.append(ins.argval)
                continue
            if op in _DUP_OPS and ins.arg in (None, 1):
                continue        # `o.a += v` duplicates `o` to read and then store `o.a`
            if root[0] == "param" and not attrs and _is_none_test(instructions, k):
                root = None     # `if obj is not None`: the cache key holds the argument
            elif op != "STORE_ATTR" or attrs:
                # (`self.x = v` reads nothing of `self`: the store is a side effect,
                # replayed after the run; `self.a.x = v` reads `self.a`)
                out.setdefault(root, set()).add(tuple(attrs))
            root = None
        if op == "LOAD_GLOBAL" or (op == "LOAD_NAME" and top):
            root = ("global", ins.argval)
        elif op in _DEREF_OPS:
            name = ins.argval
            if name in freevars:
                root = ("cell", name)
            elif name in params:      # a parameter captured by nested code
                root = ("param", params[name])
        elif top and op in _FAST_OPS and ins.argval in params:
            root = ("param", params[ins.argval])
        if root is not None:
            attrs = []
    if root is not None:
        out.setdefault(root, set()).add(tuple(attrs))
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            _scan(const, params, freevars, False, out)


def _is_none_test(instructions, k):
    """Whether instructions[k:] compare the value just loaded with None by identity."""
    ins = instructions[k]
    if ins.opname == "LOAD_CONST" and ins.argval is None and k + 1 < len(instructions):
        return instructions[k + 1].opname in ("IS_OP", "COMPARE_OP") and \
            instructions[k + 1].argval in (0, 1, "is", "is not")
    return ins.opname in ("POP_JUMP_IF_NONE", "POP_JUMP_IF_NOT_NONE",
                          "POP_JUMP_FORWARD_IF_NONE", "POP_JUMP_FORWARD_IF_NOT_NONE",
                          "POP_JUMP_BACKWARD_IF_NONE", "POP_JUMP_BACKWARD_IF_NOT_NONE")


@functools.lru_cache(maxsize=4096)
def stored_attributes(code: types.CodeType) -> frozenset:
    """The attribute names `code` (and code nested in it) stores (`o.name = v`,
    `o.name += v`): what the program changes on objects that outlive the call."""
    names = {ins.argval for ins in dis.get_instructions(code) if ins.opname == "STORE_ATTR"}
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= stored_attributes(const)
    return frozenset(names)
