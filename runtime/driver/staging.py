"""Staging: run the converted function once on abstract arrays and build the module.

The converted function is ordinary Python; Python values stay Python, abstract arrays
emit StableHLO. Arguments whose handles were mutated become extra outputs so the call
path can write them back into the caller's arrays. *Implicit* inputs (arrays the code
reads from its environment, see `guards`) are parameters after the arguments' leaves:
`bind` gives the function (and arguments) that read them through their handles, and
they are written back like arguments.
"""
from __future__ import annotations

import threading

import numpy as np

from npxla.transpiler.base.errors import UnsupportedOperationError

from npxla.runtime.staging.abstract import AbstractArray, as_abstract
from npxla.runtime.staging.bounded import BoundedArray
from npxla.runtime.numpy.core.extents import counts_vector, to_origin
from npxla.runtime.driver.argcheck import refuse_unsupported_arguments
from npxla.runtime.driver.packing import pack_scalars
from npxla.runtime.numpy.core.convert import cast_to
from npxla.runtime.lowering.dead import erase_dead
from npxla.runtime.lowering.divisors import spread_divisors
from npxla.runtime.lowering.extreme_tests import fold_extreme_tests
from npxla.runtime.lowering.hoist import hoist_loop_products
from npxla.runtime.lowering.lanes import vectorise_row_loops
from npxla.runtime.lowering.loop_tests import move_tests_to_cond
from npxla.runtime.lowering.loop_writes import write_loop_windows_in_place
from npxla.runtime.lowering.loop_reductions import reduce_loop_carries
from npxla.runtime.lowering.maps import hoist_loop_maps
from npxla.runtime.lowering.read_ahead import read_ahead
from npxla.runtime.lowering.bundled_reads import bundle_old_reads
from npxla.runtime.lowering.branch_order import order_branches
from npxla.runtime.lowering.branch_writes import convert_branch_writes
from npxla.runtime.lowering.scalar_ifs import flatten_scalar_ifs
from npxla.runtime.lowering.rows import privatise_rows
from npxla.runtime.lowering.shared_ahead import carry_shared_values
from npxla.runtime.lowering.unroll import unroll_scalar_loops
from npxla.runtime.lowering.dot_trees import split_loop_dots
from npxla.runtime.lowering.split_reductions import split_reductions
from npxla.runtime.lowering.unneeded_rounding import drop_unneeded_rounding
from npxla.runtime.lowering.widened_values import widen_write_values
from npxla.runtime.staging.pytypes import (FALSE, NOMASK, is_marked, mark_masked,
                                           mark_ndarray, mask_state)
from npxla.runtime.staging.pytree import element_strides, flatten, unflatten
from npxla.runtime.numpy.core.layouts import set_layout
from npxla.runtime.staging.trace import Trace
from npxla.runtime.staging.speculation import AssumptionFailed
from npxla.runtime.xla.addresses import data_address
from npxla.runtime.xla.program import Staged
from npxla.runtime.operators.effects import Effects
from npxla.runtime.operators.fstrings import DeferredStr
from npxla.runtime.driver.text_results import text_slot
from npxla.runtime.operators.path_sequences import refuse_escaping
from npxla.runtime.numpy.core.errorflags import check_raises, message_payloads, output_slots
from npxla.runtime.numpy.core.errorflags import combine
from npxla.transpiler.base.dtypes import dtype_of_python_scalar


# Held while converting and staging (not while XLA compiles). All staging state lives
# on the trace, but staging is pure Python, so two stagings at once gain nothing under
# the GIL, and CPython 3.11's `ast` module keeps interpreter-wide state that concurrent
# parses of user code corrupt ("AST constructor recursion depth mismatch").
LOCK = threading.RLock()


def _leaf_handle(leaf, param):
    if type(leaf) in (bool, int, float, complex):
        return dtype_of_python_scalar(leaf), True
    if isinstance(leaf, AbstractArray):
        return leaf.dtype, leaf.weak
    return np.dtype(leaf.dtype), False


def memory_sharing(leaves) -> tuple:
    """((kind, i, j), ...) for array leaves i < j that are one array ("same") or may
    share memory ("overlap", e.g. two views of one array). Part of the cache key: a
    program compiled for separate arrays would lose NumPy's aliasing between them.

    One array passed several times is named by its first position alone: ("same",
    first, j) for each later one, and overlaps only between first positions (a later
    one shares the first's handle, so it overlaps what the first does). "May share" is
    `np.may_share_memory`'s test (the byte ranges overlap), found by a sweep over the
    ranges sorted by start. Pairwise, 200 array arguments (a Kalman filter given lists
    of 50 matrices, each list one matrix repeated) cost 7 ms per call."""
    out, first, spans = [], {}, []
    for j, y in enumerate(leaves):
        if type(y) not in (np.ndarray, np.ma.MaskedArray) or not y.size:
            continue
        i = first.setdefault(id(y), j)
        if i != j:
            out.append(("same", i, j))
        else:
            spans.append((*_byte_range(y), j))
    spans.sort()
    active = []
    for low, high, j in spans:
        active = [s for s in active if s[1] > low]       # ranges still open at `low`
        out += [("overlap", min(i, j), max(i, j)) for _, _, i in active]
        active.append((low, high, j))
    return tuple(sorted(out, key=lambda t: (t[1], t[2])))


def _byte_range(x):
    """[first byte, one past the last byte) that array `x` (not empty) touches."""
    low = high = data_address(x)
    for n, step in zip(x.shape, x.strides):
        if step < 0:
            low += step * (n - 1)
        else:
            high += step * (n - 1)
    return low, high + x.itemsize


# the tag of a signature key's part naming read-only arguments the program writes
READ_ONLY = "read-only"


def read_only_leaves(leaves) -> frozenset:
    """Positions of the read-only arrays among a call's leaves: NumPy raises where the
    function writes one, so these calls get a program staged knowing which they are."""
    return frozenset(i for i, leaf in enumerate(leaves)
                     if type(leaf) in (np.ndarray, np.ma.MaskedArray) and
                     not leaf.flags.writeable)


def key_parts(key):
    """(arguments that are one array, read-only arguments written) of a signature key
    (`JittedFunction._call`)."""
    sharing, read_only = (), frozenset()
    for part in key[2:]:
        if part and part[0] == READ_ONLY:
            read_only = part[1]
        else:
            sharing = part
    return sharing, read_only


def stage(fn, args, kwargs, static_leaves=frozenset(), locate=None, implicit=(), bind=None,
          unrolled=frozenset(), user_error=None, sharing=(), platform="cpu",
          windows=None, arguments_returned=False, host_library=True,
          fast_math=False, read_only=frozenset(), assumptions=None) -> Staged:
    """Stage `fn(*args, **kwargs)`. `static_leaves`: flat positions specialised on value.
    `implicit`: arrays appended to the flat leaves; `bind(their handles, args, kwargs)`
    returns the (function, args, kwargs) to stage. `unrolled`: loop body code objects
    to unroll (a policy of this staging run's trace). `user_error(exc)`: whether an
    exception the function raised is its own run-time behaviour (not a refusal).
    `platform`: what the module is compiled for ("cpu", "gpu", ...). `windows`: the
    lengths of speculative windows by site (None: slices with data-dependent bounds
    keep their whole axis). `arguments_returned`: a result that is an array argument
    itself (`A += ...; return A`) is the caller's array, as in NumPy (the same
    object, after the write-back), not an output of the program. `host_library`: whether
    lowerings may call NumPy's own routines back on the host (CPU, one device).
    `fast_math`: let XLA fuse float products into sums (`lowering.rounding`).
    `read_only`: flat positions of read-only arrays (writing them raises NumPy's
    ValueError where the write happens). `assumptions`: the bools assumed for traced
    conditions that cannot be staged, by site (`staging.speculation`; None: refused)."""
    refuse_unsupported_arguments(fn, args, kwargs)
    leaves: list = []
    treedef = flatten((tuple(args), dict(kwargs)), leaves)
    n_explicit = len(leaves)
    leaves.extend(implicit)
    with Trace(unrolled, platform, windows, host_library, fast_math) as trace:
        trace.assumptions = assumptions
        param_leaves = [i for i in range(len(leaves)) if i not in static_leaves]
        avals = []
        for i in param_leaves:
            dtype, _ = _leaf_handle(leaves[i], True)
            avals.append((tuple(np.shape(leaves[i])), dtype))
        ir_args = trace.begin_function(avals)
        handles = []
        params = iter(ir_args)
        for i, leaf in enumerate(leaves):
            dtype, weak = _leaf_handle(leaf, True)
            if i in static_leaves:
                h = as_abstract(leaf)
                h.deps = frozenset()
            else:
                h = AbstractArray(np.shape(leaf), dtype, ir=next(params), weak=weak,
                                  deps=frozenset([i]))
                if isinstance(leaf, np.ndarray):    # a 0-d array, not a NumPy scalar
                    mark_ndarray(h)
                    if type(leaf) is np.ma.MaskedArray:     # one that masks nothing
                        mark_masked(h, NOMASK)
                    h._readonly = i in read_only
                    if not leaf.flags.c_contiguous:        # transposed, Fortran, strided
                        strides = element_strides(leaf)
                        if type(strides[0]) is int:
                            set_layout(h, strides)
            handles.append(h)
        for kind, i, j in sharing:       # one array passed twice: one handle, as in NumPy
            if kind == "same" and i not in static_leaves and j not in static_leaves:
                handles[j] = handles[i]
        trace.arguments = tuple(handles)
        trace.specialisable = frozenset(i for i, leaf in enumerate(leaves)
                                        if type(leaf) in (int, bool, float) and i not in static_leaves)
        call_args, call_kwargs = unflatten(treedef, iter(handles[:n_explicit]))
        original = fn
        if bind is not None:
            fn, call_args, call_kwargs = bind(handles[n_explicit:], call_args, call_kwargs)
        trace.effects = Effects(call_args, call_kwargs, fn, original)
        try:
            return _finish(trace, fn, call_args, call_kwargs, handles, leaves, n_explicit,
                           static_leaves, user_error, sharing, arguments_returned, avals,
                           param_leaves)
        except Exception as e:
            # the sites this staging assumed a bool for, in order: the path an assumption
            # chose may be the one the data never takes (and fail while staging)
            e.assumed_sites = [m[1] for _, m in trace.error_checks
                               if type(m) is tuple and m and m[0] is AssumptionFailed]
            raise
        finally:
            trace.effects.restore()     # no traced value stays on the user's objects


def _finish(trace, fn, call_args, call_kwargs, handles, leaves, n_explicit, static_leaves,
            user_error, sharing, arguments_returned, avals, param_leaves):
    """Run the function on its handles and build the module and its output recipe."""
    try:
        result = fn(*call_args, **call_kwargs)
    except Exception as e:
        # the program raises on every path, after checks that may raise first at
        # run time (`if x.sum() < 0: raise ValueError` then `raise KeyError`): it
        # becomes the last check, one that always fires
        if not trace.error_checks or user_error is None or not user_error(e):
            raise
        check_raises(AbstractArray((), np.bool_, ir=as_abstract(np.True_).ir), e,
                     message_payloads(e))
        result = None
    if trace.pending_errors:
        raise trace.pending_errors[0]
    refuse_escaping(result)
    refuse_escaping(tuple(trace.effects.payloads), "storing it where the caller sees it")
    out_leaves: list = []
    out_treedef = flatten(result, out_leaves, everything=True,
                          objects=trace.effects.made_in_call)
    originals = trace.object_originals
    out_leaves = [originals.get(id(x), x) if type(x) is not AbstractArray else x
                  for x in out_leaves]
    n_result = len(out_leaves)
    effects = trace.effects
    if effects.log:       # the payloads of the side effects: results like any other
        out_treedef = (tuple, (out_treedef, flatten(tuple(effects.payloads), out_leaves,
                                                    everything=True)))
    outputs: list = []
    slots = _result_slots(out_leaves, n_result, outputs, handles, leaves, n_explicit,
                          static_leaves, arguments_returned)
    pack_scalars(slots, outputs, (True, False, ARRAY))
    writeback = _writeback(handles, leaves, sharing, outputs)
    messages = []
    if trace.error_checks:
        messages, payloads = output_slots(trace.error_checks)
        if payloads:                      # the offending values, before the flags
            outputs.append(combine(payloads))
        outputs.append(combine([f for f, _ in trace.error_checks]))
    trace.finish_function(outputs)
    fold_extreme_tests(trace.module)
    hoist_loop_products(trace.module)
    vectorise_row_loops(trace.module)
    privatise_rows(trace.module)
    reduce_loop_carries(trace.module)
    hoist_loop_maps(trace.module)
    convert_branch_writes(trace.module)
    flatten_scalar_ifs(trace.module)
    bundle_old_reads(trace.module)
    read_ahead(trace.module)
    unroll_scalar_loops(trace.module)
    drop_unneeded_rounding(trace.module)
    write_loop_windows_in_place(trace.module)
    widen_write_values(trace.module)
    spread_divisors(trace.module)
    move_tests_to_cond(trace.module)
    carry_shared_values(trace.module)
    if trace.platform == "cpu":
        split_loop_dots(trace.module)
        split_reductions(trace.module)
    order_branches(trace.module)
    erase_dead(trace.module)
    text = trace.module.operation.get_asm(enable_debug_info=False)
    return Staged(text, avals, param_leaves, out_treedef, slots, writeback, messages,
                  trace.module, list(trace.host_callbacks), list(trace.dependencies),
                  list(effects.log))


def _result_slots(out_leaves, n_result, outputs, handles, leaves, n_explicit, static_leaves,
                  arguments_returned):
    """Where each result leaf comes from at run time: a program output (appended to
    `outputs`), the caller's argument, a constant, or an earlier slot (one object)."""
    slots: list = []
    first: dict = {}       # id(handle) -> position of its first result leaf
    for n, leaf in enumerate(out_leaves):
        if isinstance(leaf, AbstractArray) and id(leaf) in first and \
                type(leaf) is not BoundedArray:
            # returned twice, or stored and returned (`self.x = ...; return self.x`, an
            # object's attribute and the result): one object, as in NumPy
            slots.append(("dup", first[id(leaf)]))
            continue
        if isinstance(leaf, AbstractArray):
            first.setdefault(id(leaf), n)
        if type(leaf) is BoundedArray:
            # a data-dependent size: the buffer with the array at its front, and the
            # counts; the caller's side cuts the array out (`jitted.trim`)
            dyn = tuple(leaf.dynamic_axes())
            slots.append(("bounded", len(outputs), len(outputs) + 1, dyn))
            outputs.append(to_origin(leaf).ir)
            outputs.append(counts_vector(leaf).ir)
        elif isinstance(leaf, AbstractArray):
            # a stored argument is the caller's array (`self.x = x`), as in NumPy
            k = _argument_position(leaf, handles, leaves, len(leaves), static_leaves) \
                if n >= n_result else \
                _argument_position(leaf, handles, leaves, n_explicit, static_leaves) \
                if arguments_returned else None
            if k is not None:
                slots.append(("arg", k))
            elif leaf.const is not None:
                slots.append(("const", _python_or_numpy(leaf.const, _kind(leaf))))
            else:
                slots.append(("out", len(outputs), _kind(leaf)))
                outputs.append(leaf.ir)
        elif type(leaf) is DeferredStr:
            slots.append(text_slot(leaf, outputs))
        else:
            slots.append(("const", leaf))
    return slots


def _writeback(handles, leaves, sharing, outputs):
    """(argument position, output position) of every argument updated in place, whose
    new value is appended to `outputs`; refused where NumPy's aliasing cannot be kept."""
    for kind, i, j in sharing:
        if kind == "overlap" and (handles[i].mutated or handles[j].mutated):
            raise UnsupportedOperationError(
                f"two array arguments (flat positions {i} and {j}) share memory (views "
                "of one array) and the function updates one of them in place: the "
                "compiled program cannot see the update through the other",
                hint="pass a copy of one of them (np.copy(a)), or pass the base array "
                     "once and slice it inside the function")
    writeback = []
    for i, h in enumerate(handles):
        if h.mutated and not isinstance(leaves[i], (np.ndarray,)):
            raise UnsupportedOperationError(
                "a scalar argument was modified in place",
                hint="return the new value instead")
        if h.mutated:
            writeback.append((i, len(outputs)))
            outputs.append(cast_to(h, h.dtype).ir)
    return writeback


def _argument_position(leaf, handles, leaves, n_explicit, static_leaves):
    """The flat position of the array argument whose handle `leaf` is, or None."""
    for i in range(n_explicit):
        if handles[i] is leaf and i not in static_leaves and \
                isinstance(leaves[i], np.ndarray):
            return i
    return None


def _kind(leaf):
    """How a result comes back: MASKED or MASKED_FALSE, an `np.ma.MaskedArray` whose
    mask is `nomask` or all False (any shape, see `pytypes`); for other 0-d results:
    True, a Python scalar (weak); ARRAY, a 0-d array (a handle NumPy keeps as one);
    False, a NumPy scalar."""
    state = mask_state(leaf)
    if state is not None:
        return MASKED_FALSE if state == FALSE else MASKED
    if leaf.weak:
        return True
    return ARRAY if not leaf.shape and is_marked(leaf) else False


ARRAY = "array"
MASKED = "masked"               # a masked array, mask nomask
MASKED_FALSE = "masked-false"   # a masked array whose mask is all False


def as_masked(value, kind):
    """NumPy array `value` as the masked array a MASKED or MASKED_FALSE result is."""
    if kind == MASKED:
        return np.ma.MaskedArray(value)
    return np.ma.MaskedArray(value, mask=np.zeros(value.shape, bool))


def _python_or_numpy(value, kind):
    if kind == MASKED or kind == MASKED_FALSE:
        return as_masked(np.array(value), kind)
    if value.ndim == 0:       # like a computed result: a Python or a NumPy scalar
        if kind == ARRAY:
            return np.array(value)
        return value.item() if kind is True else value[()]
    return value
