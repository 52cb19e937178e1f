"""The NumPy behaviour of bounded arrays, installed on the class like methods.py does
for `AbstractArray`: operators, in-place operators, indexing, methods, properties and
NumPy's protocols, plus the registry hook that routes a registered NumPy function to
the bounded implementations (`HANDLERS`). A function without a handler refuses with the
extent's dependencies (see `BoundedArray.refuse`): a loop index makes staging unroll
that loop, as it did before dynamic extents, and data gets a located error.
"""
from __future__ import annotations

import numpy as np

from npxla.runtime.staging.bounded import BoundedArray, bounded_layer, is_bounded
from npxla.runtime.numpy.core import extents as B
from npxla.runtime.numpy.arrays import bounded as arrays
from npxla.runtime.numpy.indexing import bounded_fancy, bounded_results
from npxla.runtime.numpy.linalg import bounded as linalg
from npxla.runtime.numpy.linalg import bounded_lstsq
from npxla.runtime.numpy.reductions import bounded as reductions
from npxla.runtime.numpy.reductions import bounded_functions as functions
from npxla.runtime.numpy.spectral import bounded as spectral
from npxla.runtime.numpy.indexing import bounded_index as BI
from npxla.runtime.numpy.ufuncs import bounded as ops
from npxla.runtime.numpy.core.convert import cast_to
from npxla.runtime.numpy.core.registry import dispatch
from npxla.runtime.numpy.ufuncs.ufunc_core import check_cast, check_out
from npxla.runtime.numpy.core.values import fresh
from npxla.runtime.numpy.ndarray.item import item


def _shape(fn, args, kwargs):
    return B.shape_of(args[0])


def _size(fn, args, kwargs):
    return B.size_of(args[0])


def _copy(fn, args, kwargs):
    x = args[0]
    return B.make(fresh(x.buf), x.ext, x.extent_deps)


def _array(copies):
    """`np.array(x)` (a copy: `copies`) / `np.asarray(x)` (`x` itself) of an array of
    run-time length, with NumPy's `dtype`, `copy` and `order` (the buffer is already in
    C order); `ndmin` above its dimensions and array-likes holding one are refused."""
    def run(fn, args, kwargs):
        names = ("object", "dtype") if copies else ("a", "dtype")
        given = dict(zip(names, args), **kwargs)
        x, dtype = given.pop(names[0], None), given.pop("dtype", None)
        copy = given.pop("copy", True if copies else None)
        given.pop("order", None)
        if not is_bounded(x) or given.pop("ndmin", 0) > x.ndim or \
                any(v is not None and k != "subok" for k, v in given.items()):
            ops.first_bounded((args, kwargs)).refuse(f"np.{fn.__name__}")
        buf = x.buf if dtype is None else cast_to(x.buf, np.dtype(dtype), weak=False)
        if buf is x.buf and not copy:
            return x
        if copy is False:
            raise ValueError("Unable to avoid copy while creating an array as requested.")
        return B.make(fresh(buf) if buf is x.buf else buf, x.ext, x.extent_deps)
    return run


def _cumulative(identity):
    def run(fn, args, kwargs):
        params = ops.bind(fn, args, kwargs)
        x = params.pop("a")
        axis = params.get("axis")
        if axis is None and x.ndim != 1:
            x.refuse(f"np.{fn.__name__} of a multi-dimensional bounded array without axis=")
        buf = B.filled(x, identity)
        return B.make(dispatch(fn, (buf,), params), x.ext, x.extent_deps)
    return run


def _outer(fn, args, kwargs):
    """np.outer of vectors: a column times a row (NumPy ravels; so may only 1-D here)."""
    a, b = (B.as_operand(x) for x in args[:2])
    if a.ndim != 1 or b.ndim != 1:
        ops.first_bounded(args).refuse("np.outer of arrays that are not vectors")
    return ops.elementwise(np.multiply, (_index(a, (slice(None), None)),
                                         _index(b, (None, slice(None)))), {})


def _index(x, index):
    return x[index] if is_bounded(x) else _static_getitem(x, index)


def _reduction(name):
    return lambda fn, args, kwargs: reductions.reduction(fn, name, args, kwargs)


def _contraction(name):
    return lambda fn, args, kwargs: linalg.contraction(fn, name, args, kwargs)


def _builtin_sum(fn, args, kwargs):
    """Python's `sum(x, start)` of an array of run-time length: `start` plus the sum of
    its rows (axis 0), as `reductions.builtin_sum` computes it for a static array;
    EntropyHub writes `Ppi = Counter / sum(Counter)` of a selection."""
    x = args[0]
    start = args[1] if len(args) > 1 else kwargs.get("start", 0)
    if not is_bounded(x) or is_bounded(start):
        ops.first_bounded((args, kwargs)).refuse("sum() with a start of run-time length")
    rows = dispatch(np.sum, (x,), {"axis": 0})
    return dispatch(np.add, (start, rows), {})


HANDLERS = {
    "sum": _builtin_sum,
    # Python's abs of an array is NumPy's absolute, elementwise
    "abs": lambda fn, args, kwargs: ops.elementwise(np.absolute, args[:1], {}),
    "np.clip": ops.elementwise,
    "np.linalg.norm": linalg.vector_norm, "np.shape": _shape, "np.size": _size,
    "np.copy": _copy, "np.outer": _outer, "np.cumsum": _cumulative(0),
    "np.cumprod": _cumulative(1), "np.array": _array(True), "np.asarray": _array(False),
}
for _name in list(reductions.REDUCTIONS) + list(reductions.MOMENTS):
    HANDLERS["np." + _name] = _reduction(_name)
for _name in ("dot", "matmul", "inner", "vdot"):
    HANDLERS["np." + _name] = _contraction(_name)
for _module in (ops, functions, arrays, spectral, bounded_results, bounded_lstsq):
    HANDLERS.update(_module.HANDLERS)


def call(entry, fn, args, kwargs):
    """A registered NumPy function some of whose arguments are bounded arrays."""
    handler = HANDLERS.get(entry.name)
    ufunc = isinstance(fn, np.ufunc) and fn.signature is None
    if handler is None and ufunc:
        handler = ops.elementwise
    if handler is None:
        ops.first_bounded((args, kwargs)).refuse(entry.name)
    if kwargs.get("out") is None:
        return handler(fn, args, kwargs)
    rest = {k: v for k, v in kwargs.items() if k != "out"}
    where = rest.pop("where", True) if ufunc else True
    # only `out` may be bounded (`np.add(a, b, out=y[:k])`): the static function
    result = handler(fn, args, rest) if ops.first_bounded((args, rest)) is not None \
        else dispatch(fn, args, rest)
    return _store(entry.name, fn, kwargs["out"], result, where,
                  rest.get("casting", "same_kind"))


# How `out=` takes a result, per function: NumPy's casting rule, and the ufunc its
# messages name. Reductions and cumulative functions cast unsafely (`np.sum(x,
# out=int_array)` truncates); `std` ends in a `sqrt` into `out`; ufuncs cast
# 'same_kind' (or their `casting=`); `np.dot` wants exactly the result's dtype.
_REDUCING_UFUNC = {"sum": "add", "nansum": "add", "prod": "multiply", "nanprod": "multiply",
                   "max": "maximum", "amax": "maximum", "min": "minimum", "amin": "minimum",
                   "any": "logical_or", "all": "logical_and"}
_OUT_RULES = {
    **{f"np.{name}": ("unsafe", _REDUCING_UFUNC.get(name, name))
       for name in list(reductions.REDUCTIONS) + ["mean", "nanmean", "var", "nanvar", "cumsum",
                                           "cumprod"]},
    "np.std": ("same_kind", "sqrt"), "np.nanstd": ("same_kind", "sqrt"),
    "np.dot": ("no", "dot"), "np.matmul": ("same_kind", "matmul"),
}
_SAME_NDIM = frozenset(f"np.{name}"
                       for name in list(reductions.REDUCTIONS) + list(reductions.MOMENTS))


def _store(name, fn, out, result, where, casting):
    """`fn(..., out=out)`: the result written into `out` (a static array or a view of
    run-time length: lengths checked at run time) under NumPy's casting rule; `where=`
    of a ufunc keeps `out`'s elements where it is False. Returns `out`, as NumPy."""
    if isinstance(out, tuple) and len(out) == 1:
        out = out[0]
    if not is_bounded(out):
        check_out(out)
    casting, ufunc_name = _OUT_RULES.get(name, (casting, getattr(fn, "__name__", name)))
    check_cast(ufunc_name, result.dtype, out.dtype, casting)
    if name in _SAME_NDIM and result.ndim != out.ndim:
        raise ValueError(f"output parameter for reduction operation {ufunc_name} has the "
                         f"wrong number of dimensions: Found {out.ndim} but expected "
                         f"{result.ndim}")
    if where is not True:
        result = ops.elementwise(np.where, (where, result, out), {})
    BI.assign(out, result)
    return out


# --- the class's NumPy behaviour -----------------------------------------------------------
_METHODS = {name: getattr(np, name) for name in (
    "sum", "prod", "max", "min", "mean", "std", "var", "any", "all", "argmax", "argmin",
    "dot", "cumsum", "cumprod", "copy", "clip", "round", "argsort", "nonzero")}


def _getattr(self, name):
    fn = _METHODS.get(name)
    if fn is not None:
        return lambda *args, **kwargs: dispatch(fn, (self,) + args, kwargs)
    prop = _PROPERTIES.get(name)
    if prop is not None:
        return prop(self)
    if name in ("ravel", "flatten") and self.ndim == 1:    # a 1-d array: itself / a copy
        return lambda order="C": self if name == "ravel" else _copy(None, (self,), {})
    if name == "item":
        return lambda *args: item(self, args)
    if name == "astype":
        return lambda dtype, *a, **k: B.make(cast_to(self.buf, np.dtype(dtype)), self.ext,
                                             self.extent_deps)
    if name.startswith("__") or not hasattr(np.ndarray, name):
        raise AttributeError(f"'numpy.ndarray' object has no attribute '{name}'")
    self.refuse(f"ndarray.{name}")


def _transpose(x):
    buf = dispatch(np.transpose, (x.buf,), {})
    return B.make(buf, tuple(reversed(x.ext)), x.extent_deps)


_PROPERTIES = {
    "shape": B.shape_of, "size": B.size_of, "T": _transpose,
    "real": lambda x: ops.elementwise(np.real, (x,), {}) if x.dtype.kind == "c" else x,
    "imag": lambda x: ops.elementwise(np.imag, (x,), {}),
    "itemsize": lambda x: x.dtype.itemsize,
    # a Python int in NumPy: the run-time size times the item size, a weak traced int
    "nbytes": lambda x: B.size_of(x) * x.dtype.itemsize,
}


def _binary(fn, reflected=False):
    def op(self, other):
        if isinstance(other, (str, bytes, dict, set)) or callable(other):
            return NotImplemented
        return dispatch(fn, (other, self) if reflected else (self, other), {})
    return op


def _inplace(fn):
    def op(self, other):
        new = ops.elementwise(fn, (self, other), {})
        check_cast(fn.__name__, new.dtype, self.dtype)
        BI.assign(self, new)
        return self
    return op


def _setitem(self, index, value):
    if self.ext[0] is not None and bounded_fancy.applies(index):
        mask = bounded_fancy.buffer_mask(self, index)
        if mask is not None:                                # y[hits] = v
            _static_setitem(self.buf, mask, value)
        else:
            bounded_fancy.write_bounded(self, index, value)     # y[idx] = v, both bounded
        return
    target = BI.getitem_bounded(self, index, _static_getitem)
    if not is_bounded(target) and (target.ndim == 0 or target._view is None):
        new, _ = BI.translate(self, index)
        _static_setitem(self.buf, tuple(new), value)
        return
    BI.assign(target, value)


def _array_ufunc(self, ufunc, method, *inputs, **kwargs):
    if method != "__call__":
        self.refuse(f"np.{ufunc.__name__}.{method}")
    return ops.elementwise(ufunc, inputs, kwargs)


def _array_function(self, func, types, args, kwargs):
    return dispatch(func, args, kwargs)


_BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "truediv": np.true_divide,
    "floordiv": np.floor_divide, "mod": np.remainder, "pow": np.power,
    "matmul": np.matmul, "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor,
    "lshift": np.left_shift, "rshift": np.right_shift,
}
for _py, _fn in _BINARY.items():
    setattr(BoundedArray, f"__{_py}__", _binary(_fn))
    setattr(BoundedArray, f"__r{_py}__", _binary(_fn, reflected=True))
    setattr(BoundedArray, f"__i{_py}__", _inplace(_fn))
for _py, _fn in {"lt": np.less, "le": np.less_equal, "gt": np.greater,
                 "ge": np.greater_equal, "eq": np.equal, "ne": np.not_equal}.items():
    setattr(BoundedArray, f"__{_py}__", _binary(_fn))
for _py, _fn in {"neg": np.negative, "pos": np.positive, "abs": np.absolute,
                 "invert": np.invert}.items():
    setattr(BoundedArray, f"__{_py}__", lambda self, _f=_fn: ops.elementwise(_f, (self,), {}))

_static_getitem = None
_static_setitem = None


def install(getitem, setitem):
    """Called by the indexing module with the static item access it implements."""
    global _static_getitem, _static_setitem
    _static_getitem, _static_setitem = getitem, setitem
    BoundedArray.__getitem__ = lambda self, index: BI.getitem_bounded(self, index, getitem)
    BoundedArray.__setitem__ = _setitem
    BoundedArray.__getattr__ = _getattr
    BoundedArray.__array_ufunc__ = _array_ufunc
    BoundedArray.__array_function__ = _array_function
    bounded_layer.call = call
