"""Shape manipulation: reshape, transpose, stacking, broadcasting, astype.

Views: where NumPy returns a view (`reshape`, `ravel`, `transpose`/`.T`, `swapaxes`,
`moveaxis`, `expand_dims`, `squeeze`, `atleast_*d`), the result is a view handle
(`AbstractArray.view_of`): writes through it reach the base. Whether NumPy can make a
view at all (`a.T.reshape(-1)` copies) is decided by NumPy itself, on a *layout
stand-in* (`layouts`): an ndarray over a one-byte buffer whose strides mirror the
handle's memory layout, one per path where a data-dependent `if` made it. The same stand-ins, and zero-itemsize arrays,
give NumPy's own result shapes and error messages.

`broadcast_to` / `broadcast_arrays` results are read-only views (NumPy makes
`broadcast_arrays` results warn-on-write today and read-only in the future).
"""
from __future__ import annotations

import operator

import numpy as np
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple

from npxla.transpiler.base import catalogue as C
from npxla.transpiler.base.errors import UnsupportedFunctionError, UnsupportedOperationError

from npxla.runtime.staging import journal
from npxla.runtime.staging.abstract import AbstractArray, mark_ambiguous
from npxla.runtime.staging.trace import current_trace
from npxla.runtime.staging.stacked import stack_of
from npxla.runtime.lowering import structural as S
from npxla.runtime.numpy.core.coercion import as_array
from npxla.runtime.numpy.core.convert import cast_to
from npxla.runtime.numpy.core.registry import implements, register_method, register_property
from npxla.runtime.numpy.core.values import (broadcast_value, concat_values, fold_or_lower,
                                             fresh, reshape_value, shape_standin,
                                             transpose_value)
from npxla.runtime.numpy.core.layouts import (derived_layouts, laid_out_like, layout,
                                                path_layouts, set_path_layouts)


def _order(order, what):
    if order not in ("C", None):
        raise UnsupportedFunctionError(
            f"{what}(..., order={order!r}) is not supported: compiled arrays are "
            "row-major (C order)",
            hint="use order='C' (the default), with a transpose where needed")


# --- views -----------------------------------------------------------------------------

def make_view(base, fwd, bwd, lay):
    """A view handle of `base`: `fwd(base)` reads it, `bwd(base, new)` is the base after
    a write of `new` through it; `lay` is its layout stand-in, or a function giving it
    from the base's (applied on each path where the base's layout depends on one).

    A view of a view is made a view of the root base, with composed fwd/bwd: a view
    handle refreshed from its base does not bump its own version, so a chain of views
    would miss writes made to the root."""
    lays = derived_layouts(base, lay) if callable(lay) else [lay]
    while base._view is not None:
        root, f0, b0, _ = base._view
        fwd = (lambda f, g: lambda r: f(g(r)))(fwd, f0)
        bwd = (lambda b, g, b_outer: lambda r, new: b(r, b_outer(g(r), new)))(b0, f0, bwd)
        base = root
    view = AbstractArray.view_of(base, fwd, bwd)
    set_path_layouts(view, lays)
    return view


def _view_on_paths(x: AbstractArray, can_view):
    """Whether NumPy makes a view (`can_view(stand-in)`) of `x` on every path (True),
    on none (False), or on some only (None: the paths that made `x` disagree)."""
    answers = {bool(can_view(lay)) for lay in path_layouts(x)}
    return answers.pop() if len(answers) == 1 else None


def path_dependent_copy(x: AbstractArray, shape):
    """`x` reshaped where NumPy makes a view on some paths and a copy on others (the
    argument `y[:, 1:]` on one, a new array on the other): a copy whose writes, and
    reads after a write to what it may alias, are refused (`mark_ambiguous`) rather
    than reaching the caller's array on the paths where NumPy copied."""
    out = reshape_value(fresh(x), shape)
    mark_ambiguous(out, "branch", [x])
    return out


def _reshapes(lay, shape) -> bool:
    try:
        lay.reshape(shape, copy=False)
    except ValueError:
        return False
    return True


def reshape_view(x: AbstractArray, shape, lay=None):
    """A view of `x` with another shape (a copy where NumPy could not make a view)."""
    shape = tuple(shape)
    if x.weak:
        return reshape_value(x, shape)
    if lay is None:
        views = _view_on_paths(x, lambda stand_in: _reshapes(stand_in, shape))
        if views is None:
            return path_dependent_copy(x, shape)
        if not views:                # NumPy would copy: so do we
            return reshape_value(x, shape)
        lay = lambda stand_in: stand_in.reshape(shape, copy=False)   # noqa: E731
    old = x.shape
    return make_view(x, lambda b: reshape_value(b, shape),
                     lambda b, new: reshape_value(new, old), lay)


def transpose_view(x: AbstractArray, perm):
    perm = tuple(perm)
    if x.weak:
        return transpose_value(x, perm)
    inverse = tuple(np.argsort(perm)) if perm else ()
    inverse = tuple(int(i) for i in inverse)
    return make_view(x, lambda b: transpose_value(b, perm),
                     lambda b, new: transpose_value(new, inverse),
                     lambda lay: lay.transpose(perm))


def refuse_write(base, new):
    """The write-back of a read-only view (NumPy's broadcast and diagonal views)."""
    raise ValueError("assignment destination is read-only")


def broadcast_view(x: AbstractArray, shape):
    shape = tuple(shape)
    if x.weak:
        x = cast_to(x, x.dtype, weak=False)
    return make_view(x, lambda b: broadcast_value(b, shape), refuse_write,
                     lambda lay: np.broadcast_to(lay, shape))


# --- reshape / ravel / flatten ---------------------------------------------------------

def shape_arg(shape):
    """A shape argument (an int or a sequence of ints) as a tuple of ints; a traced
    value raises ConcretizationError (through `__index__`). A bool is no length for
    NumPy, though `operator.index` takes it: NumPy's TypeErrors."""
    if isinstance(shape, (list, tuple)):
        return tuple(_length(s) for s in shape)
    if isinstance(shape, (bool, np.bool_)):
        raise TypeError(f"expected a sequence of integers or a single integer, got "
                        f"'{shape!r}'")
    return (operator.index(shape),)


def _length(s):
    if isinstance(s, (bool, np.bool_)) or (type(s) is AbstractArray and s.dtype == np.bool_):
        raise TypeError("an integer is required")     # (a bool argument: traced here)
    return operator.index(s)


def _reshape(a, shape, order="C", copy=None):
    _order(order, "reshape")
    a = as_array(a)
    new = shape_standin(a.shape).reshape(shape_arg(shape)).shape   # NumPy's errors
    if copy:
        return reshape_value(fresh(a), new)
    if copy is False:
        try:
            lay = layout(a).reshape(new, copy=False)
        except ValueError:
            raise ValueError("Unable to avoid creating a copy while reshaping.") from None
        return reshape_view(a, new, lay)
    return reshape_view(a, new)


@implements(np.reshape, family="shape", fold=False)
def reshape(a, shape=None, order="C", *, copy=None):
    if shape is None:
        raise TypeError("reshape() missing 1 required positional argument: 'shape'")
    return _reshape(a, shape, order, copy)


def _reshape_method(self, *shape, order="C", copy=None):
    if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
        shape = shape[0]
    return _reshape(self, shape, order, copy)


register_method("reshape", _reshape_method, fold=False)


@implements(np.ravel, method="ravel", family="shape", fold=False)
def ravel(a, order="C"):
    """NumPy's `ravel` is a view only of a C-contiguous array (`reshape(-1)` is one
    wherever strides allow, `x[::2].reshape(-1)` too): otherwise a copy."""
    _order(order, "ravel")
    a = as_array(a)
    if not a.weak:
        views = _view_on_paths(a, lambda stand_in: stand_in.flags.c_contiguous)
        if views is None:
            return path_dependent_copy(a, (a.size,))
        if not views:
            return reshape_value(fresh(a), (a.size,))
    return reshape_view(a, (a.size,))


def _flatten(self, order="C"):
    _order(order, "flatten")
    return reshape_value(fresh(self), (self.size,))


register_method("flatten", _flatten)


# --- in-place reshape: `a.shape = ...` ----------------------------------------------------

@implements(setattr, family="shape", creates=True, fold=False,
            notes="only `a.shape = ...` on an array made in the compiled function "
                  "(the converter routes that statement here); views, arguments and "
                  "arrays made outside a staged branch or loop are refused")
def set_attribute(obj, name, value):
    """`obj.name = value` as converted code calls it. Only an array's `shape` is
    accepted: NumPy reshapes that array object in place, so the handle itself takes
    the new shape and value and every alias (the same handle) sees it. The new shape
    and NumPy's errors (-1 inference, "cannot reshape array of size ...") come from a
    stand-in of the old shape."""
    if type(obj) is not AbstractArray or name != "shape" or obj.weak:
        raise C.ATTRIBUTE_STORE.error_for(attr=name)
    why = _fixed_shape(obj)
    if why is not None:
        raise UnsupportedOperationError(
            f"'a.shape = ...' reshapes an array in place, and this array is {why}",
            hint="make a reshaped array instead: a = a.reshape(new_shape)")
    standin = shape_standin(obj.shape)
    standin.shape = value
    new = reshape_value(obj, standin.shape)
    obj.shape = standin.shape
    obj.assign(new)


def _fixed_shape(x: AbstractArray):
    """Why `x` cannot change its shape in place (None when it can)."""
    if x._view is not None or x._switch is not None or x._alias_of is not None:
        return "a view of another array (or may be one, depending on data)"
    scopes = journal._scopes
    if scopes and x._born < scopes[0].serial:
        return ("made before the data-dependent branch or staged loop that reshapes it "
                "(its shape would depend on the path taken)")
    if _may_be_argument(x):
        return "an argument, or may be one (the caller's array would change shape)"
    return None


def _may_be_argument(x: AbstractArray) -> bool:
    """Whether `x` is one of the traced function's argument handles (the driver lists
    them on the trace)."""
    trace = current_trace()
    return trace is not None and any(x is h for h in trace.arguments or ())


# --- axis permutations -----------------------------------------------------------------

@implements(np.transpose, family="shape", fold=False)
def transpose(a, axes=None):
    a = as_array(a)
    if axes is None:
        perm = tuple(range(a.ndim))[::-1]
    else:
        shape_standin(a.shape).transpose(axes)                        # NumPy's errors
        perm = normalize_axis_tuple(axes, a.ndim)
    return transpose_view(a, perm)


def _transpose_method(self, *axes):
    if len(axes) == 0 or (len(axes) == 1 and axes[0] is None):
        return transpose(self)
    if len(axes) == 1 and isinstance(axes[0], (list, tuple)):
        axes = axes[0]
    return transpose(self, tuple(axes))


register_method("transpose", _transpose_method, fold=False)
register_property("T", lambda self: transpose(self), fold=False)


@implements(np.swapaxes, method="swapaxes", family="shape", fold=False)
def swapaxes(a, axis1, axis2):
    a = as_array(a)
    i = normalize_axis_index(operator.index(axis1), a.ndim, "axis1")
    j = normalize_axis_index(operator.index(axis2), a.ndim, "axis2")
    perm = list(range(a.ndim))
    perm[i], perm[j] = perm[j], perm[i]
    return transpose_view(a, perm)


@implements(np.moveaxis, family="shape", fold=False)
def moveaxis(a, source, destination):
    a = as_array(a)
    source = normalize_axis_tuple(source, a.ndim, "source")
    destination = normalize_axis_tuple(destination, a.ndim, "destination")
    if len(source) != len(destination):
        raise ValueError("`source` and `destination` arguments must have the same number "
                         "of elements")
    order = [n for n in range(a.ndim) if n not in source]
    for dest, src in sorted(zip(destination, source)):
        order.insert(dest, src)
    return transpose_view(a, order)


# --- adding / removing unit axes -------------------------------------------------------

@implements(np.expand_dims, family="shape", fold=False)
def expand_dims(a, axis):
    a = as_array(a)
    new = np.expand_dims(shape_standin(a.shape), axis).shape
    return reshape_view(a, new)


@implements(np.squeeze, method="squeeze", family="shape", fold=False)
def squeeze(a, axis=None):
    a = as_array(a)
    new = np.squeeze(shape_standin(a.shape), axis).shape
    return reshape_view(a, new)


def _atleast(nd, arys):
    out = []
    for a in arys:
        a = as_array(a)
        if a.ndim >= nd:
            out.append(a)
        elif nd == 1 or a.ndim == 0:
            out.append(reshape_view(a, (1,) * (nd - a.ndim) + a.shape))
        elif nd == 2:
            out.append(reshape_view(a, (1,) + a.shape))
        else:                                   # atleast_3d: (n,) -> (1, n, 1), (m, n) -> (m, n, 1)
            shape = (1,) + a.shape + (1,) if a.ndim == 1 else a.shape + (1,)
            out.append(reshape_view(a, shape))
    return out[0] if len(out) == 1 else tuple(out)


@implements(np.atleast_1d, family="shape", fold=False)
def atleast_1d(*arys):
    return _atleast(1, arys)


@implements(np.atleast_2d, family="shape", fold=False)
def atleast_2d(*arys):
    return _atleast(2, arys)


@implements(np.atleast_3d, family="shape", fold=False)
def atleast_3d(*arys):
    return _atleast(3, arys)


# --- broadcasting ----------------------------------------------------------------------

@implements(np.broadcast_to, family="shape", fold=False,
            notes="the result is read-only, as in NumPy")
def broadcast_to(array, shape, subok=False):
    a = as_array(array)
    new = np.broadcast_to(shape_standin(a.shape), shape_arg(shape)).shape
    return broadcast_view(a, new)


@implements(np.broadcast_arrays, family="shape", fold=False,
            notes="results that differ in shape from their input are read-only (NumPy "
                  "only warns on write today)")
def broadcast_arrays(*args, subok=False):
    arrays = [as_array(a) for a in args]
    shape = np.broadcast_shapes(*[a.shape for a in arrays])
    if all(a.shape == shape for a in arrays):
        return tuple(arrays)
    return tuple(broadcast_view(a, shape) for a in arrays)


# --- joining ---------------------------------------------------------------------------

def unstack_value(a: AbstractArray):
    """`list(a)`: the sub-arrays along the first axis (copies)."""
    if a.ndim == 0:
        raise TypeError("iteration over a 0-d array")
    rest = a.shape[1:]
    out = []
    for i in range(a.shape[0]):
        part = fold_or_lower(a, lambda c, i=i: c[i:i + 1], lambda v, i=i: S.static_slice(
            v, start=(i,) + (0,) * len(rest), limit=(i + 1,) + rest,
            strides=(1,) * a.ndim))
        out.append(reshape_value(part, rest))
    return out


def _join_dtype(arrays, dtype, casting, what="concatenate"):
    if dtype is None:
        return np.result_type(*[a.dtype for a in arrays])
    dtype = np.dtype(dtype)
    for a in arrays:
        if not np.can_cast(a.dtype, dtype, casting=casting):
            raise TypeError(f"Cannot cast array data from {a.dtype!r} to {dtype!r} "
                            f"according to the rule '{casting}'")
    return dtype


def _store(result, out):
    if out is None:
        return result
    if type(out) is not AbstractArray:
        raise UnsupportedFunctionError(
            "out= must be an array created or passed into the compiled function",
            hint="write the result to a local array and return it")
    if out.shape != result.shape:
        raise ValueError("Output array is the wrong shape")
    out.assign(result)
    return out


@implements(np.concatenate, family="shape", fold=False)
def concatenate(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    if isinstance(arrays, AbstractArray):
        arrays = unstack_value(as_array(arrays))
    arrays = [as_array(a) for a in arrays]
    if out is not None and dtype is not None:
        raise TypeError("concatenate() only takes `out` or `dtype` as an argument, but "
                        "both were provided.")
    if axis is None:
        arrays = [reshape_value(a, (a.size,)) for a in arrays]
        axis = 0
    standins = [shape_standin(a.shape) for a in arrays]
    shape = np.concatenate(standins, axis=axis).shape                 # NumPy's errors
    axis = normalize_axis_index(operator.index(axis), len(shape))
    dt = _join_dtype(arrays, dtype if out is None else None, casting)
    if out is not None and not np.can_cast(dt, out.dtype, casting=casting):
        raise TypeError(f"Cannot cast array data from {dt!r} to {out.dtype!r} according "
                        f"to the rule '{casting}'")
    return _store(concat_values(arrays, axis, dt), out)


@implements(np.stack, family="shape", fold=False)
def stack(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    whole = stack_of(arrays)
    if whole is not None and out is None and dtype is None and \
            normalize_axis_index(operator.index(axis), whole.ndim) == 0:
        return fresh(whole)        # the rows of one array (a staged comprehension)
    arrays = [as_array(a) for a in arrays]
    if not arrays:
        raise ValueError("need at least one array to stack")
    if len({a.shape for a in arrays}) != 1:
        raise ValueError("all input arrays must have the same shape")
    ndim = arrays[0].ndim + 1
    axis = normalize_axis_index(operator.index(axis), ndim)
    shape = arrays[0].shape[:axis] + (1,) + arrays[0].shape[axis:]
    expanded = [reshape_value(a, shape) for a in arrays]
    return concatenate(expanded, axis=axis, out=out, dtype=dtype, casting=casting)


@implements(np.hstack, family="shape", fold=False)
def hstack(tup, *, dtype=None, casting="same_kind"):
    arrs = [atleast_1d(a) for a in tup]
    axis = 0 if arrs and arrs[0].ndim == 1 else 1
    return concatenate(arrs, axis, dtype=dtype, casting=casting)


@implements(np.vstack, family="shape", fold=False)
def vstack(tup, *, dtype=None, casting="same_kind"):
    arrs = [atleast_2d(a) for a in tup]
    return concatenate(arrs, 0, dtype=dtype, casting=casting)


@implements(np.column_stack, family="shape", fold=False)
def column_stack(tup):
    arrs = []
    for a in tup:
        a = as_array(a)
        if a.ndim < 2:
            a = reshape_value(a, (a.size, 1))
        arrs.append(a)
    return concatenate(arrs, 1)


# --- dtype changes and copies ----------------------------------------------------------

def _astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
    _order(None if order in ("K", "A", "C") else order, "astype")
    dtype = np.dtype(dtype)
    if not np.can_cast(self.dtype, dtype, casting=casting):
        raise TypeError(f"Cannot cast array data from {self.dtype!r} to {dtype!r} "
                        f"according to the rule '{casting}'")
    if not copy and dtype == self.dtype:
        return self
    out = cast_to(self, dtype, weak=False)
    out = fresh(out) if out is self else out
    return laid_out_like(out, self) if order in ("K", "A") else out


register_method("astype", _astype)


@implements(np.astype, family="shape", fold=False)
def astype(x, dtype, /, *, copy=True, device=None):
    if type(x) is not AbstractArray or x.weak:
        raise TypeError(f"Input should be a NumPy array. It is a {type(x).__name__} "
                        "instead.") if type(x) is not AbstractArray else TypeError(
            "Input should be a NumPy array. It is a scalar instead.")
    return _astype(x, dtype, copy=copy)


# --- static queries --------------------------------------------------------------------

@implements(np.shape, family="shape", fold=False)
def shape(a):
    return as_array(a).shape if not isinstance(a, AbstractArray) else a.shape


@implements(np.ndim, family="shape", fold=False)
def ndim(a):
    return len(shape(a))


@implements(np.size, family="shape", fold=False)
def size(a, axis=None):
    s = shape(a)
    if axis is None:
        return int(np.prod(s, dtype=np.int64))
    if isinstance(axis, (list, tuple)):
        return int(np.prod([s[normalize_axis_index(operator.index(i), len(s))]
                             for i in axis], dtype=np.int64))
    return s[normalize_axis_index(operator.index(axis), len(s))]

