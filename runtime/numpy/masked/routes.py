"""Every operation that touches a masked array: computed as on plain arrays, typed by NumPy.

The registry sends here (`registry.masked_routes`) each call, method, attribute and
ufunc method with a masked operand, and this module wraps `AbstractArray`'s operators,
indexing and text. Each does the same: refuse what is not known to give NumPy's values
on a masked array that masks nothing (`FUNCTIONS`, `METHODS`: functions whose `np.ma`
code paths compute the same values as on the data, checked by tests/runtime/
test_masked.py), check what NumPy would mask by value (`domains`), compute the value
as on plain arrays (`unrouted`), and mark the result as NumPy types it (`standins`).
"""
from __future__ import annotations

import operator

import numpy as np

from npxla.transpiler.base import catalogue as C

from npxla.runtime.staging import pytypes
from npxla.runtime.staging.abstract import AbstractArray
from npxla.runtime.staging.bounded import BoundedArray
from npxla.runtime.staging.pytypes import any_masked, is_marked, mark_masked, mask_state
from npxla.runtime.numpy.core.registry import (_leaves, _public_name, bound_method,
                                               call_entry, dispatch_ufunc, masked_routes)
from npxla.runtime.numpy.masked import domains
from npxla.runtime.numpy.masked.functions import ATTRIBUTES, is_mask_handle
from npxla.runtime.numpy.masked.standins import (as_masked, mark_like, probe, state_of,
                                                 unrouted)

_WHY = "npxla does not compile it on masked arrays (its np.ma code path is not known " \
       "to give the plain array's values)"

# registered functions whose result on a masked array that masks nothing has the values
# they give on its data (their types come from NumPy); every ufunc is allowed too
FUNCTIONS = frozenset("""
    np.asarray np.array np.asanyarray np.ascontiguousarray np.copy np.zeros_like
    np.ones_like np.empty_like np.full_like np.diag np.shape np.ndim np.size np.astype
    np.reshape np.ravel np.transpose np.squeeze np.expand_dims np.swapaxes np.moveaxis
    np.atleast_1d np.atleast_2d np.atleast_3d np.concatenate np.stack np.vstack
    np.hstack np.column_stack np.broadcast_to np.flip np.fliplr np.flipud np.diagonal
    np.repeat np.roll np.rot90
    np.dot np.matmul np.outer np.inner np.vdot np.tensordot np.kron np.cross np.einsum
    np.linalg.solve np.linalg.inv np.linalg.pinv np.linalg.det np.linalg.slogdet
    np.linalg.cholesky np.linalg.norm np.linalg.eigh np.linalg.eigvalsh np.linalg.qr
    np.linalg.svd np.linalg.matrix_power np.linalg.multi_dot np.linalg.matmul
    np.sum np.prod np.mean np.var np.std np.max np.min np.amax np.amin np.all np.any
    np.argmax np.argmin np.cumsum np.cumprod np.trace np.clip np.around np.round
    np.where np.isclose np.allclose np.array_equal np.count_nonzero np.nonzero
    np.flatnonzero np.argwhere
    float int bool complex abs round sum max min
""".split())
# ndarray methods and properties (on a masked array, or given one)
METHODS = frozenset("""
    transpose reshape ravel flatten squeeze swapaxes copy astype dot sum prod mean var
    std max min argmax argmin all any cumsum cumprod clip round conj conjugate diagonal
    trace repeat take fill sort argsort searchsorted nonzero
""".split())
PROPERTIES = frozenset(("T", "real", "imag"))
# NumPy's np.ma code divides with a masking operator inside these: a result that is not
# finite may be masked (see `domains.check_finite`)
CHECK_FINITE = frozenset(("np.mean", "np.var", "np.std", "mean", "var", "std"))


def _inputs(args, kwargs):
    return _leaves((args, kwargs), [])


def _typed(result, call, args, kwargs, what, rebind=None, standin=None):
    """`result` marked as NumPy's `call(*args, **kwargs)` on stand-ins. `rebind`: a
    masked operand NumPy changed in place, whose mark follows the mask of its stand-in
    (`standin(args, kwargs)` picks it; the first argument by default)."""
    got = probe(call, args, kwargs, what)
    out = mark_like(result, got.result, _inputs(args, kwargs), what)
    if rebind is not None:
        changed = standin(*got.args) if standin is not None else got.args[0][0]
        state = state_of(changed)
        if state != mask_state(rebind):
            mark_masked(rebind, state)
    return out


# --- registered functions, methods, attributes, ufunc methods -----------------------------
def route_call(entry, fn, args, kwargs):
    name = entry.name if entry is not None else _public_name(fn)
    if fn is setattr and len(args) == 3 and mask_state(args[0]) is not None:
        return _set_attribute(entry, *args)
    if entry is None or not (isinstance(fn, np.ufunc) or name in FUNCTIONS):
        raise C.MASKED_OPERATION.error_for(fn=name, why=_WHY)
    with unrouted():
        if isinstance(fn, np.ufunc):
            domains.check_ufunc(fn, args[:fn.nin], name)
        result = call_entry(entry, fn, args, kwargs)
        if name in CHECK_FINITE:
            domains.check_finite(result, name)
    out = kwargs.get("out") if isinstance(kwargs, dict) else None
    if isinstance(out, tuple) and len(out) == 1:
        out = out[0]
    if type(out) is AbstractArray and mask_state(out) is not None:     # in place
        return _typed(result, fn, args, kwargs, name, rebind=out,
                      standin=lambda a, k: k["out"][0] if isinstance(k["out"], tuple)
                      else k["out"])
    return _typed(result, fn, args, kwargs, name)


def _set_attribute(entry, obj, name, value):
    """`m.name = value` on a masked array: its shape (NumPy reshapes the mask too, so
    the mark stays); a mask, fill value or anything else is refused."""
    if name in ("mask", "_mask", "soften_mask", "harden_mask"):
        raise C.MASKED_MASK.error_for(what=f"setting a masked array's .{name}")
    if name != "shape":
        raise C.MASKED_OPERATION.error_for(fn=f"setting MaskedArray.{name}", why=_WHY)
    with unrouted():
        return call_entry(entry, setattr, (obj, name, value), {})


def _method(self, name, what):
    with unrouted():
        plain = bound_method(self, name)

    def method(*args, **kwargs):
        with unrouted():
            result = plain(*args, **kwargs)
            if name in CHECK_FINITE:
                domains.check_finite(result, what)
        masked_self = mask_state(self) is not None
        return _typed(result, lambda s, *a, **k: getattr(s, name)(*a, **k),
                      (self,) + tuple(args), kwargs, what,
                      rebind=self if masked_self else None)
    method.__name__ = name
    # converted code treats it as the registry's methods (0-d results: array or scalar)
    method.__module__ = bound_method.__module__
    return method


def route_attribute(self, name):
    special = ATTRIBUTES.get(name)
    if special is not None:
        return special(self)
    what = f"MaskedArray.{name}"
    if name in PROPERTIES:
        with unrouted():
            value = bound_method(self, name)
        return _typed(value, lambda s: getattr(s, name), (self,), {}, what)
    if name in METHODS:
        return _method(self, name, what)
    if name.startswith("__"):
        raise AttributeError(name)
    if hasattr(np.ma.MaskedArray, name):
        raise C.MASKED_OPERATION.error_for(fn=what, why=_WHY)
    raise AttributeError(f"'MaskedArray' object has no attribute '{name}'")


def route_method(self, name, args, kwargs):
    what = f"ndarray.{name}"
    if name not in METHODS:
        raise C.MASKED_OPERATION.error_for(fn=what, why=_WHY)
    return _method(self, name, what)(*args, **kwargs)


def route_ufunc_method(ufunc, method, inputs, kwargs):
    what = f"np.{ufunc.__name__}.{method}"
    if domains.domain_of(ufunc) is not None:
        raise C.MASKED_OPERATION.error_for(
            fn=what, why="NumPy masks the elements outside the ufunc's domain")
    with unrouted():
        result = dispatch_ufunc(ufunc, method, inputs, kwargs)
    return _typed(result, getattr(ufunc, method), inputs, kwargs, what)


# --- operators, indexing, text -----------------------------------------------------------
_SYMBOLS = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//",
            "mod": "%", "pow": "**", "matmul": "@", "and": "&", "or": "|", "xor": "^",
            "lshift": "<<", "rshift": ">>", "divmod": "divmod", "lt": "<", "le": "<=",
            "gt": ">", "ge": ">=", "eq": "==", "ne": "!=", "neg": "-", "pos": "+",
            "abs": "abs", "invert": "~"}
# the ufunc an operator calls where it is ndarray's (path of `np.ma`'s __array_wrap__)
_UFUNCS = {"truediv": np.true_divide, "floordiv": np.floor_divide, "mod": np.remainder}


def _numpy_scalar(x) -> bool:
    if isinstance(x, np.generic):
        return True
    return type(x) is AbstractArray and not x.shape and not x.weak and \
        not is_marked(x) and mask_state(x) is None


def _touches(values) -> bool:
    return bool(pytypes._MASKED) and not masked_routes.active and \
        any_masked(_leaves(values, []))


def _operator(base, kind):
    """The wrapper of AbstractArray's `__{base}__` (`kind`: "", "r" reflected, "i"
    in place, "u" unary)."""
    dunder = f"__{kind if kind in ('r', 'i') else ''}{base}__"
    plain = getattr(AbstractArray, dunder)
    symbol = _SYMBOLS[base]
    what = f"'{symbol}'"
    python = divmod if base == "divmod" else getattr(operator, base + "_", None) or \
        getattr(operator, base)
    if kind == "i":
        python = getattr(operator, f"i{base}")

    def op(self, *other):
        if kind == "i" and is_mask_handle(self):
            raise C.MASKED_MASK.error_for(what=f"'{symbol}=' into a masked array's mask")
        if not _touches((self, other)):
            return plain(self, *other)
        operands = (other[0], self) if kind == "r" else (self,) + other
        with unrouted():
            checked = _check_before(dunder, base, kind, self, operands, what)
            result = plain(self, *other)
            if checked:
                domains.check_operator_result(dunder, result, what)
        call = (lambda s, o: python(o, s)) if kind == "r" else python
        return _typed(result, call, (self,) + other, {}, what,
                      rebind=self if kind == "i" and mask_state(self) is not None else None)
    op.__name__ = dunder
    return dunder, op


def _check_before(dunder, base, kind, self, operands, what) -> bool:
    """The domain checks of an operator, before it computes (an in-place one reads
    its old values). Returns whether it is MaskedArray's own (whose result is checked)."""
    if kind == "i" and mask_state(self) is None:
        return False              # ndarray's in-place operator: no mask to set
    if dunder in domains.OPERATORS and not (kind != "i" and _numpy_scalar(operands[0])):
        domains.check_operator(dunder, operands, what)
        return True
    ufunc = _UFUNCS.get(base)
    if ufunc is not None:           # ndarray's operator: the ufunc's __array_wrap__
        domains.check_ufunc(ufunc, operands, what)
    return False


def _getitem(plain):
    def getitem(self, index):
        if mask_state(self) is None or masked_routes.active:
            return plain(self, index)
        with unrouted():
            result = plain(self, index)
        if type(result) is BoundedArray:
            raise C.MASKED_OPERATION.error_for(
                fn="x[...]", why="an index that selects a data-dependent number of "
                                 "elements gives a masked array of run-time length")
        return _typed(result, operator.getitem, (self, index), {}, "x[...]")
    return getitem


def _setitem(plain):
    def setitem(self, index, value):
        if is_mask_handle(self):
            raise C.MASKED_MASK.error_for(what="assigning into a masked array's mask")
        if value is np.ma.masked or isinstance(value, np.ma.MaskedArray) and \
                np.ma.getmaskarray(value).any():
            raise C.MASKED_MASK.error_for(
                what="assigning np.ma.masked (or masked elements)")
        if masked_routes.active or not _touches((self, value)):
            return plain(self, index, value)
        with unrouted():
            plain(self, index, value)
        if mask_state(self) is not None:
            _typed(None, operator.setitem, (self, index, value), {}, "x[...] = v",
                   rebind=self)
        return None
    return setitem


def _text(plain):
    def text(self, *spec):
        state = mask_state(self)
        if state is None or self.const is None:
            return plain(self, *spec)
        value = as_masked(self.const, state)
        return format(value, *spec) if spec else str(value)
    return text


def install():
    masked_routes.call = route_call
    masked_routes.attribute = route_attribute
    masked_routes.method = route_method
    masked_routes.ufunc_method = route_ufunc_method
    for base in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul",
                 "and", "or", "xor", "lshift", "rshift", "divmod"):
        for kind in ("", "r", "i"):
            if kind == "i" and base == "divmod":
                continue
            setattr(AbstractArray, *_operator(base, kind))
    for base in ("lt", "le", "gt", "ge", "eq", "ne"):
        setattr(AbstractArray, *_operator(base, ""))
    for base in ("neg", "pos", "abs", "invert"):
        setattr(AbstractArray, *_operator(base, "u"))
    AbstractArray.__getitem__ = _getitem(AbstractArray.__getitem__)
    AbstractArray.__setitem__ = _setitem(AbstractArray.__setitem__)
    AbstractArray.__str__ = _text(AbstractArray.__str__)
    AbstractArray.__format__ = _text(AbstractArray.__format__)


install()
