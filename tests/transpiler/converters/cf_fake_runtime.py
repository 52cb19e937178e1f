"""A pure-Python stand-in for `runtime.operators` (the `ag__` module converted code
calls), implementing exactly Python's semantics, checking the calling contract and
recording each control-flow call, so converters can be tested without the runtime."""
from __future__ import annotations

import contextlib
import operator
import sys
import types

from npxla.transpiler.conversion import convert_ast
from npxla.transpiler.pyct import loader

CALLS: list = []  # (operator name, keyword arguments) of every control-flow call

_COMPARE = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
            "==": operator.eq, "!=": operator.ne, "is": operator.is_,
            "is not": operator.is_not, "in": lambda a, b: a in b,
            "not in": lambda a, b: a not in b}
_AUG = {"add": operator.iadd, "subtract": operator.isub, "multiply": operator.imul}


class Undefined:
    def __init__(self, name):
        assert isinstance(name, str)
        self.name = name

    def __repr__(self):
        return f"Undefined({self.name!r})"

    def _unbound(self, *args):
        raise UnboundLocalError(f"cannot access local variable '{self.name}' where it is "
                                "not associated with a value")

    __bool__ = __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _unbound
    __mod__ = __lt__ = __le__ = __gt__ = __ge__ = __index__ = __iter__ = _unbound

    def __eq__(self, other):
        self._unbound()

    __ne__ = __eq__
    __hash__ = None


class UndefinedReturnValue:
    pass


def _check_names(values, names):
    assert isinstance(values, tuple) and isinstance(names, tuple), (values, names)
    assert all(isinstance(n, str) for n in names), names


def _outputs(result, names):
    assert isinstance(result, tuple) and len(result) == len(names), (result, names)
    return result


def if_stmt(test, body_fn, orelse_fn, inputs, out_names):
    _check_names(inputs, out_names)
    CALLS.append(("if_stmt", {}))
    return _outputs((body_fn if test else orelse_fn)(*inputs), out_names)


def while_stmt(test_fn, body_fn, carried, names, *, has_else=False, trips=None):
    _check_names(carried, names)
    assert len(carried) == len(names)
    CALLS.append(("while_stmt", {"has_else": has_else} if trips is None else
                  {"has_else": has_else, "trips": trips}))
    count = 0
    while test_fn(*carried):
        count += 1
        carried = _outputs(body_fn(*carried), names)
    assert trips is None or count <= trips, (count, trips)
    return carried


def trip_bound(start_and_limit, step, inclusive, direction):
    start, limit = start_and_limit()
    span = (limit - start) * direction
    return max(0, -(-(span + inclusive) // step)) if isinstance(limit, int) else None


def for_stmt(iterable, extra_test_fn, body_fn, carried, names, *, has_else=False,
             appends=None):
    _check_names(carried, names)
    assert len(carried) == len(names)
    CALLS.append(("for_stmt", {"has_else": has_else,
                               "extra_test": extra_test_fn is not None}))
    iterator = iter(iterable)
    while extra_test_fn is None or extra_test_fn(*carried):
        try:
            item = next(iterator)
        except StopIteration:
            break
        carried = _outputs(body_fn(item, *carried), names)
    return carried


def test_in_try(test, kind):
    CALLS.append(("test_in_try", {"kind": kind}))
    return test


def items_in_try(iterable, extra_test):
    return _items("items_in_try", iterable, extra_test)


def _items(name, iterable, extra_test):
    CALLS.append((name, {"extra_test": extra_test is not None}))
    iterator = iter(iterable)
    while extra_test is None or extra_test():
        try:
            yield next(iterator)
        except StopIteration:
            return


def if_exp(test, body, orelse):
    return body() if test else orelse()


def and_(*thunks):
    assert len(thunks) >= 2
    for thunk in thunks[:-1]:
        value = thunk()
        if not value:
            return value
    return thunks[-1]()


def or_(*thunks):
    assert len(thunks) >= 2
    for thunk in thunks[:-1]:
        value = thunk()
        if value:
            return value
    return thunks[-1]()


def not_(x):
    return not x


def is_(a, b):
    return a is b


def is_not(a, b):
    return a is not b


def compare_chain(thunks, ops):
    assert len(thunks) == len(ops) + 1 >= 3
    left = thunks[0]()
    for op, thunk in zip(ops, thunks[1:]):
        right = thunk()
        result = _COMPARE[op](left, right)
        if not result:
            return result
        left = right
    return result


def return_value(do_return, retval):
    assert not isinstance(retval, UndefinedReturnValue) or not do_return
    return retval if do_return else None


def converted_call(f, args, kwargs):
    return f(*args, **(kwargs or {}))


class _Index:
    def __getitem__(self, item):
        return item


index = _Index()


_CONVERSIONS = {-1: lambda v: v, 115: str, 114: repr, 97: ascii}


def format_string(parts):
    return "".join(p if type(p) is str else format(_CONVERSIONS[p[1]](p[0]), str(p[2]))
                   for p in parts)


def get_item(target, idx):
    return target[idx]


def set_item(target, idx, value):
    target[idx] = value


def aug_set_item(target, idx, op, value):
    target[idx] = _AUG[op](target[idx], value)


def percent_format(template, values):
    return template % values


def reraise_refusal():
    pass


def items_of(iterable, extra_test):
    return _items("items_of", iterable, extra_test)


def staged_in_try(test):
    CALLS.append(("staged_in_try", {}))
    return False


@contextlib.contextmanager
def user_try(handler_types):
    CALLS.append(("user_try", {}))
    yield


def set_attr(obj, name, value):
    setattr(obj, name, value)


def set_global(name, value):
    sys._getframe(1).f_globals[name] = value


def module():
    return types.SimpleNamespace(**{name: value for name, value in globals().items()
                                    if not name.startswith("_")})


def convert(fn):
    """`fn` converted and loaded against this fake runtime."""
    node, filename = convert_ast(fn)
    return loader.load(node, fn, filename, module())


def list_comp(iterable, element, unpack):
    if not unpack:
        return [element(x) for x in iterable]
    out = []
    for item in iterable:
        *parts, = item               # Python's own unpacking errors, then the count's
        n = element.__code__.co_argcount
        if len(parts) != n:
            raise ValueError(f"not enough values to unpack (expected {n}, got "
                             f"{len(parts)})" if len(parts) < n else
                             f"too many values to unpack (expected {n})")
        out.append(element(*parts))
    return out


def bit_count_applies(v, c):
    return False             # Python's own loop


def bit_count(v, c, k):
    raise AssertionError("bit_count_applies is False in the double")


def list_items_distinct(items, positions):
    if type(items) is not list or not all(-len(items) <= k < len(items) for k in positions):
        return False
    return len({k % len(items) for k in positions}) == len(positions)
