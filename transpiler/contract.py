"""The `ag__` contract: every name that converted code calls, and how it calls it.

Converters emit calls to these names only; `runtime/operators` implements them with
staging, and the converter tests' pure-Python double (`tests/transpiler/converters/
cf_fake_runtime.py`) with Python's own semantics. `tests/test_contract.py` checks all
three against this table: each name exists, takes these positional parameters in this
order (the generated code passes them by position) and these keyword-only ones.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Operator:
    positional: tuple            # what each positional argument is, in order
    keywords: tuple = ()         # keyword-only flags
    variadic: bool = False       # the positional arguments repeat (`and_(*thunks)`)
    doc: str = ""


OPERATORS = {
    "if_stmt": Operator(("test", "body function", "orelse function", "input values",
                         "output names"),
                        doc="an `if` statement: both branches are functions of the inputs"),
    "while_stmt": Operator(("test function", "body function", "carried values", "names"),
                           ("has_else", "trips"), doc="a `while` loop; `trips`: the bound "
                           "`trip_bound` gives a counted one"),
    "trip_bound": Operator(("counter and limit thunk", "step", "inclusive", "direction"),
                           doc="the most iterations of `while p < n: ... p += step`, or "
                               "None when `p` or `n` is not a Python number"),
    "for_stmt": Operator(("iterable", "extra test function or None", "body function",
                          "carried values", "names"), ("has_else", "appends"),
                         doc="a `for` loop; `break` becomes the extra test; `appends`: a "
                             "thunk of the local lists the loop only appends to"),
    "test_in_try": Operator(("test", "statement kind"),
                            doc="the test of an `if` or `while` inside a user `try`, which "
                                "stays a Python statement"),
    "items_in_try": Operator(("iterable", "extra test thunk or None"),
                             doc="the items of a `for` loop inside a user `try`, which stays "
                                 "a Python loop"),
    "items_of": Operator(("iterable", "extra test thunk or None"),
                         doc="the items of a `for` loop around a `yield` (a generator's "
                             "loop), which stays a Python loop"),
    "staged_in_try": Operator(("test",),
                              doc="whether an `if` inside a user `try` takes its staged "
                                  "form (a traced test) rather than the Python `if`"),
    "user_try": Operator(("handler types thunk",),
                         doc="context manager around the body of a user `try` with "
                             "`except` clauses: checks staged there know what they catch"),
    "if_exp": Operator(("test", "true thunk", "false thunk"), doc="`a if test else b`"),
    "and_": Operator(("operand thunk",), variadic=True, doc="`a and b and ...`"),
    "or_": Operator(("operand thunk",), variadic=True, doc="`a or b or ...`"),
    "not_": Operator(("value",), doc="`not x`"),
    "compare_chain": Operator(("operand thunks", "operator strings"), doc="`a < b <= c`"),
    "is_": Operator(("left", "right"), doc="`a is True`, `a is False` (one side a bool literal)"),
    "is_not": Operator(("left", "right"),
                       doc="`a is not True`, `a is not False` (one side a bool literal)"),
    "converted_call": Operator(("callable", "args tuple", "kwargs dict or None"),
                               doc="every call in converted code"),
    "get_item": Operator(("target", "index"), doc="`target[index]` read, for an index "
                                                  "that is one expression"),
    "set_item": Operator(("target", "index", "value"), doc="`target[index] = value`"),
    "aug_set_item": Operator(("target", "index", "ufunc name", "value"),
                             doc="`target[index] += value` and the other augmented forms"),
    "reraise_refusal": Operator((), doc="first statement of every `except` clause: a caught "
                                        "refusal of npxla's is raised again"),
    "set_attr": Operator(("object", "attribute name", "value"),
                         doc="`obj.name = value` (replayed after the run when `obj` "
                             "outlives the call)"),
    "set_global": Operator(("name", "value"),
                           doc="`global name; name = value` in the calling function"),
    "index": Operator((), doc="`index[...]` returns its subscript (slices as objects)"),
    "format_string": Operator(("parts",), doc="an f-string: text and (value, conversion, "
                                              "spec) parts"),
    "percent_format": Operator(("template", "values"),
                               doc="`'literal %s template' % values`, formatted like an "
                                   "f-string"),
    "list_comp": Operator(("iterable", "element function", "unpack the item"),
                          doc="`[e for i in iterable]`: the element as a function of the "
                              "item (of its parts when unpacked)"),
    "bit_count_applies": Operator(("value", "count"),
                                  doc="whether `while v: v &= v - 1; c += k` may run as "
                                      "one bit count (`converters/bit_count_loops`)"),
    "bit_count": Operator(("value", "count", "step"),
                          doc="(0, c + k * set bits of v): the loop's result"),
    "list_items_distinct": Operator(("list", "positions tuple"),
                                    doc="whether the int positions name distinct items of "
                                        "a list (`converters/list_items`)"),
    "return_value": Operator(("did return", "value"), doc="the value a function returns"),
    "Undefined": Operator(("name",), doc="a variable not yet bound on some path"),
    "UndefinedReturnValue": Operator((), doc="a function that has not returned yet"),
}
