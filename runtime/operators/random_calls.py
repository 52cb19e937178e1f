"""`np.random` in compiled code: NumPy's own generators, called when the program runs.

A compiled program cannot hold a random stream, and XLA's generators give other
numbers than NumPy's. So every draw becomes an ordered host call
(`printing.emit_host_call`) of the very NumPy method the code names: the global state
(`np.random.rand`, `np.random.seed`), a `RandomState` or `Generator` the function
reaches (an argument, a global, an attribute), or one it makes (`default_rng(seed)`).
The numbers are NumPy's bit for bit by construction, the generator is left where NumPy
leaves it, and a draw inside a data-dependent loop or branch runs once each time the
program passes it, so the number of draws is NumPy's.

What is known while staging: the result's shape and dtype, which NumPy itself gives
when the same call is made on a copy of the generator with stand-ins for the traced
arguments. A Python int argument that is traced (`size=n`) is specialised first (the
driver compiles for its value), so shapes are exact; an int from array data that would
decide the shape (`size=int(x.sum())`) is refused, located. A generator made inside the
function is made again on every run, by a host call that keeps it for the draws after
it in that run.

A program with host calls is not written to the disk cache, and two threads running
one such program at once share the generators it makes.
"""
from __future__ import annotations

import copy

import numpy as np

from npxla.transpiler.base.catalogue import RANDOM_STATE
from npxla.transpiler.base.errors import ConcretizationError

from npxla.runtime.staging.abstract import AbstractArray
from npxla.runtime.staging.pytypes import mark_ndarray
from npxla.runtime.staging.trace import current_trace
from npxla.runtime.operators.printing import _fill, _lift, emit_host_call

NOT_HANDLED = object()

_OWNERS = (np.random.Generator, np.random.RandomState)
# module functions of np.random that make a generator (the others draw or seed)
_MAKERS = (np.random.default_rng, np.random.RandomState, np.random.Generator)
# module functions that act on the global state without being its bound methods
_GLOBAL_FUNCTIONS = (np.random.seed,)


def route(f, args, kwargs):
    """Stage `f(*args, **kwargs)` as a run-time draw if `f` is NumPy random; else
    NOT_HANDLED."""
    trace = current_trace()
    if trace is None:
        return NOT_HANDLED
    owner = getattr(f, "__self__", None)
    if any(f is m for m in _MAKERS):
        return _make(trace, f, args, kwargs)
    if isinstance(owner, _OWNERS):
        return _draw(trace, f, owner, args, kwargs)
    if any(f is g for g in _GLOBAL_FUNCTIONS):
        return _draw(trace, f, None, args, kwargs)
    return NOT_HANDLED


# --- generators made inside the function -------------------------------------------------
class _Made:
    """A generator the function makes: the staging stand-in (for shapes) and the cell
    the run-time maker fills on every run, read by the draws after it."""
    __slots__ = ("standin", "current")

    def __init__(self, standin):
        self.standin, self.current = standin, None


def _make(trace, f, args, kwargs):
    operands: list = []
    template = _lift((list(args), dict(kwargs)), operands)
    _specialise(operands)
    a, k = _fill(template, [np.zeros(o.shape, o.dtype) for o in operands])
    standin = f(*a, **k)
    made = _Made(standin)
    trace.random_made[id(standin)] = made
    emit_host_call(trace, _Maker(f, template, made), operands, [])
    return standin


class _Maker:
    """The run-time half of `default_rng(seed)` and its kind: a fresh generator."""
    __slots__ = ("fn", "template", "made")

    def __init__(self, fn, template, made):
        self.fn, self.template, self.made = fn, template, made

    def __call__(self, *arrays):
        a, k = _fill(self.template, arrays)
        self.made.current = self.fn(*a, **k)
        return ()

    def placeholder(self):
        return ()


# --- draws ---------------------------------------------------------------------------------
def _draw(trace, f, owner, args, kwargs):
    name = getattr(f, "__name__", "?")
    made = trace.random_made.get(id(owner)) if owner is not None else None
    operands: list = []
    template = _lift((list(args), dict(kwargs)), operands)
    _specialise(operands)
    in_place = name == "shuffle"
    probe = _probe(f, owner, template, operands, 1)
    if _probe(f, owner, template, operands, 2) != probe:
        raise RANDOM_STATE.error_for(
            what=f"{name}() with a size or shape taken from array data (known only "
                 "when the program runs)")
    if in_place:
        target = args[0] if args else None
        if not isinstance(target, AbstractArray):
            raise RANDOM_STATE.error_for(what=f"{name}() of a {type(target).__name__} "
                                              "(only arrays are shuffled in place)")
        results = [(target.shape, target.dtype)]
    else:
        kind, shape, dtype = probe
        if kind is None:
            emit_host_call(trace, _Draw(f, owner, made, template, None, False), operands, [])
            return None
        results = [(shape, dtype)]
    draw = _Draw(f, owner, made, template, results[0], in_place)
    (value,) = emit_host_call(trace, draw, operands, results)
    if in_place:
        args[0].assign(value)
        return None
    if kind == "python":
        value.weak = True
    elif kind == "array" and not shape:
        mark_ndarray(value)
    return value


def _specialise(operands):
    """Python int arguments that are traced are made static first (the driver compiles
    for their values): a draw's size is then exact."""
    trace = current_trace()
    special = trace.specialisable if trace is not None else frozenset()
    deps = frozenset().union(*[o.deps & special for o in operands
                               if o.weak and o.dtype.kind in "iub"]) if operands \
        else frozenset()
    if deps:
        raise ConcretizationError("a random draw's arguments decide its shape",
                                  deps=deps)


# offsets of the stand-ins for traced arguments, tried in turn until NumPy takes one:
# small counts first, then a large bound (`randint(1, i)`), then a fraction
_STAND_INS = (0, 1000, 0.5)


def _probe(f, owner, template, operands, fill):
    """(kind, shape, dtype) of the call made on a copy of the generator, with `fill`
    for every traced value (two fills differ only where a value decides the shape)."""
    if owner is None:                       # np.random.seed: acts, returns None
        return None, (), None
    for value in _STAND_INS:
        try:
            a, k = _fill(template, [np.full(o.shape, value + fill, o.dtype)
                                    for o in operands])
            out = getattr(copy.deepcopy(owner), f.__name__)(*a, **k)
            break
        except Exception:     # a stand-in NumPy rejects (`randint(1, i)` with i = 1):
            continue          # the run decides, with the real values
    else:
        raise RANDOM_STATE.error_for(
            what=f"{f.__name__}() with arguments from array data that NumPy rejects "
                 "for every stand-in value npxla tries, so the kind of its result is "
                 "not known before the program runs")
    if out is None:
        return None, (), None
    if isinstance(out, (bool, int, float, complex)):
        return "python", (), np.asarray(out).dtype if not isinstance(out, int) else \
            np.dtype(np.int64)
    if isinstance(out, np.generic):
        return "numpy", (), out.dtype
    if isinstance(out, np.ndarray):
        return "array", out.shape, out.dtype
    raise RANDOM_STATE.error_for(what=f"{f.__name__}() returning a "
                                      f"{type(out).__name__}")


class _Draw:
    """The run-time half of a draw: the same method on the live generator (the one
    the function reached, or the one made earlier in this run)."""
    __slots__ = ("fn", "owner", "made", "template", "result", "in_place")

    def __init__(self, fn, owner, made, template, result, in_place):
        self.fn, self.owner, self.made = fn, owner, made
        self.template, self.result, self.in_place = template, result, in_place

    def __call__(self, *arrays):
        a, k = _fill(self.template, arrays)
        if self.made is not None:
            fn = getattr(self.made.current, self.fn.__name__)
        else:
            fn = self.fn
        if self.in_place:
            a[0] = np.array(a[0])       # the traced array's value: a copy to shuffle
            fn(*a, **k)
            return (a[0],)
        out = fn(*a, **k)
        if self.result is None:
            return ()
        shape, dtype = self.result
        return (np.asarray(out, dtype).reshape(shape),)

    def placeholder(self):
        if self.result is None:
            return ()
        shape, dtype = self.result
        return (np.zeros(shape, dtype),)
