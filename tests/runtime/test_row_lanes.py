"""Counted loops whose trips touch disjoint rows run as lanes (`lowering/lanes.py`),
against NumPy bit for bit (rtol=0): row recursions, maps, offsets, columns, a moved
axis, gathers, results of the last trip, mutated arguments; and the loops that must
stay loops (a trip reads another trip's row, a running sum, a triangular inner loop, a
host callback), which still agree; nested loops whose lanes end at different trips
(`while v`, a triangular range) run masked."""
import re

import numpy as np
import pytest
from jax._src.interpreters import mlir as jax_mlir
from jaxlib.mlir import ir

from benchmarks.loop_kernels import csr_matvec_loop, iir_rows as iir
from differential import check
from npxla import jit
from npxla.runtime.lowering import lanes_plan

RNG = np.random.default_rng(41)


# the loops a masked loop's tail adds (`lanes_tail`): the loop over the lanes, the search
# for the next lane still running, and the masked loop itself, cloned
TAIL = 3


def _first_of_a_counted_pair(op) -> bool:
    """Whether a `while` is the unguarded copies of a counted loop (`lowering/unroll.py`),
    whose results only start the loop itself: the two count as the one loop they were."""
    users = {id(u.owner) for r in op.results for u in r.uses}
    if len(users) != 1:
        return False
    user = next(u.owner for r in op.results for u in r.uses)
    return user.name == "stablehlo.while" and len(user.operands) == len(op.results) - 1


def loops_and_transposes(fn, *args):
    """(number of `while` ops, number of `transpose` ops) in fn's staged module."""
    text = jit(fn).lower(*args).as_text()
    counts = {"stablehlo.while": 0, "stablehlo.transpose": 0}
    with jax_mlir.make_ir_context():
        module = ir.Module.parse(text)

        def visit(op):
            if op.name in counts and not (op.name == "stablehlo.while" and
                                          _first_of_a_counted_pair(op)):
                counts[op.name] += 1
            return ir.WalkResult.ADVANCE

        module.operation.walk(visit)
    return counts["stablehlo.while"], counts["stablehlo.transpose"]


def exact(fn, *args):
    return check(fn, *args, rtol=0, atol=0)


# --- vectorised --------------------------------------------------------------------------

def two_pass(img, c):
    H, W = img.shape
    out = np.zeros_like(img)
    for i in range(H):
        prev = 0.0
        for j in range(W):
            prev = c * prev + img[i, j]
            out[i, j] = prev
        nxt = 0.0
        for j in range(W - 1, -1, -1):
            out[i, j] += nxt
            nxt = c * nxt + img[i, j]
    return out


@pytest.mark.parametrize("rows,cols", [(1, 5), (3, 1), (16, 40), (7, 300)])
def test_row_recursion_runs_once_for_all_rows(rows, cols):
    x = RNG.standard_normal((rows, cols))
    exact(iir, x, 0.9, 0.25)
    whiles, _ = loops_and_transposes(iir, x, 0.9, 0.25)
    assert whiles == (1 if cols > 1 else 0)


@pytest.mark.parametrize("rows", [5, 200])
def test_causal_and_anticausal_passes(rows):
    img = RNG.standard_normal((rows, 33))
    exact(two_pass, img, 0.7)
    whiles, transposes = loops_and_transposes(two_pass, img, 0.7)
    assert whiles == 2
    # 200 rows of two arrays read one element per trip: the rows' axis is moved last
    assert (transposes > 0) == (rows * 2 > lanes_plan.CACHE_LINES)


@pytest.mark.parametrize("fn,x", [(iir, RNG.standard_normal((16, 50))),
                                  (two_pass, RNG.standard_normal((200, 33)))],
                         ids=["rows", "moved"])
def test_lanes_write_the_shared_array_in_place(fn, x):
    """After XLA's optimisation the lanes' loop copies no whole output array per trip
    (in the moved case the array is carried transposed)."""
    args = (x, 0.9, 0.25) if fn is iir else (x, 0.7)
    text = jit(fn).lower(*args).as_text("hlo")
    assert "while(" in text
    for shape in (x.shape, x.shape[::-1]):
        assert copies_in_loop_bodies(text, shape) == 0


def copies_in_loop_bodies(text, shape):
    """Copies of a `shape` array in the computations a `while` body runs (itself and
    the fusions and calls it makes, transitively); not the moves before and after."""
    computations = {c.split(" ", 1)[0]: c for c in re.split(r"\n(?=\S)", text)
                    if c.startswith("%")}
    todo = re.findall(r"body=(%[\w.\-]+)", text)
    seen = set()
    while todo:
        name = todo.pop()
        if name in seen or name not in computations:
            continue
        seen.add(name)
        todo += re.findall(r"(?:calls|to_apply|body|condition)=(%[\w.\-]+)", computations[name])
    pattern = re.escape(f"[{','.join(map(str, shape))}]") + r"\{[\d,]*\} copy\("
    return sum(len(re.findall(pattern, computations[n])) for n in seen)


def column_recursion(A, a):
    n, m = A.shape
    for j in range(m):
        for i in range(1, n):
            A[i, j] = a * A[i - 1, j] + A[i, j]
    return A


def test_columns_as_lanes_write_the_argument_back():
    A = RNG.standard_normal((50, 9))
    exact(column_recursion, A, 0.5)
    assert loops_and_transposes(column_recursion, A, 0.5)[0] == 1


def in_place_rows(a):
    for i in range(a.shape[0]):
        for j in range(1, a.shape[1]):
            a[i, j] += a[i, j - 1]


def test_mutated_argument_rows():
    a = RNG.integers(-50, 50, size=(12, 20))
    exact(in_place_rows, a)
    assert loops_and_transposes(in_place_rows, a)[0] == 1


def elementwise_map(x, y):
    out = np.empty(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = np.sin(x[i]) * y[i] + np.sqrt(abs(x[i]))
    return out


def shifted(x):
    d = np.zeros(x.shape[0] - 1)
    for i in range(1, x.shape[0]):
        d[i - 1] = x[i] - x[i - 1]
    return d


def gathered(table, idx):
    out = np.zeros(idx.shape[0])
    for k in range(idx.shape[0]):
        n = table.shape[0]
        out[k] = table[(k * 7) % n] * 2.0 + table[idx[k]]
    return out


def last_trip(x):
    y = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        last = x[i, 0] * 3.0
        y[i] = last + x[i, 1]
    return y, last


@pytest.mark.parametrize("fn,args", [
    (elementwise_map, (RNG.standard_normal(37), RNG.standard_normal(37))),
    (shifted, (RNG.standard_normal(20),)),
    (gathered, (RNG.standard_normal(10), RNG.integers(0, 10, 25))),
    (last_trip, (RNG.standard_normal((9, 2)),)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_straight_line_bodies_leave_no_loop(fn, args):
    exact(fn, *args)
    assert loops_and_transposes(fn, *args)[0] == 0


def xorshift_rounds(seeds, rounds):
    out = np.empty_like(seeds)
    for i in range(seeds.shape[0]):
        x = seeds[i]
        for _ in range(rounds):
            x ^= x << np.uint64(13)
            x ^= x >> np.uint64(7)
            x ^= x << np.uint64(17)
        out[i] = x
    return out


def test_unsigned_bit_mixing_per_lane():
    seeds = RNG.integers(1, 2**63, size=40, dtype=np.uint64)
    exact(xorshift_rounds, seeds, 5)
    assert loops_and_transposes(xorshift_rounds, seeds, 5)[0] == 1


# --- left as loops -------------------------------------------------------------------------

def prefix(x):
    y = np.zeros_like(x)
    y[0] = x[0]
    for i in range(1, x.shape[0]):
        y[i] = y[i - 1] + x[i]
    return y


def two_rows(x):
    y = np.zeros(x.shape[0] + 1)
    for i in range(x.shape[0]):
        y[i] += x[i]
        y[i + 1] += x[i]
    return y


def running(x):
    s = 0.0
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        s = s * 0.5 + x[i, 0]
        out[i] = s
    return out


def triangular(L):
    n = L.shape[0]
    out = np.zeros(n)
    for i in range(n):
        s = 0.0
        for j in range(i):
            s += L[i, j]
        out[i] = s
    return out


def printing(x):
    y = np.zeros_like(x)
    for i in range(x.shape[0]):
        print("row", i)
        y[i] = x[i] * 2
    return y


def checked(x, idx):
    y = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        y[i] = x[idx[i]]
    return y


@pytest.mark.parametrize("fn,args,whiles", [
    (prefix, (RNG.standard_normal(30),), 1),
    (two_rows, (RNG.standard_normal(30),), 1),
    (running, (RNG.standard_normal((30, 2)),), 1),
    (triangular, (RNG.standard_normal((30, 30)),), 2),
], ids=lambda v: getattr(v, "__name__", ""))
def test_dependent_trips_stay_loops(fn, args, whiles):
    exact(fn, *args)
    assert loops_and_transposes(fn, *args)[0] == whiles


def test_host_callbacks_run_once_per_trip(capsys):
    x = RNG.standard_normal(4)
    jit(printing)(x)
    assert capsys.readouterr().out.count("row") == 4


def test_run_time_checks_keep_their_first_failure():
    x = RNG.standard_normal(8)
    exact(checked, x, np.arange(8)[::-1].copy())
    bad = np.array([0, 1, 2, 30, 4, 50, 6, 7])
    with pytest.raises(IndexError, match="30"):
        jit(checked)(x, bad)


# --- nested loops whose lanes end at different trips ------------------------------------

def collatz_steps(start):
    steps = np.zeros(start.shape[0], dtype=np.int64)
    for i in range(start.shape[0]):
        n = start[i]
        while n != 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            steps[i] += 1
    return steps


def newton_rows(a, tol):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        x = a[i]
        while abs(x * x - a[i]) > tol * a[i]:
            x = 0.5 * (x + a[i] / x)
        out[i] = x
    return out


def bit_length_rounds(seeds, rounds):
    """xorshift_popcount with a loop per bit position instead of Kernighan's (which
    runs as one popcnt, `converters/bit_count_loops.py`): a masked `while v` nested
    in a counted loop."""
    out = np.empty(seeds.shape[0], dtype=np.int64)
    for i in range(seeds.shape[0]):
        x = seeds[i]
        c = 0
        for _ in range(rounds):
            x ^= x << np.uint64(13)
            x ^= x >> np.uint64(7)
            v = x
            while v:
                v >>= np.uint64(1)
                c += 1
        out[i] = c
    return out


@pytest.mark.parametrize("fn,args", [
    (bit_length_rounds, (RNG.integers(1, 2**63, size=33, dtype=np.uint64), 3)),
    (collatz_steps, (RNG.integers(1, 1000, size=50),)),
    (newton_rows, (RNG.uniform(0.5, 1e4, size=40), 1e-12)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_masked_lanes(fn, args):
    exact(fn, *args)
    # the lanes' loop, the tail (`TAIL`), and in bit_length_rounds the `while v` inside
    # both the lanes' `for` and its clone
    assert loops_and_transposes(fn, *args)[0] == (
        2 + TAIL + 1 if fn is bit_length_rounds else 1 + TAIL)


def test_csr_matvec_loop_and_the_first_bad_index():
    n = 30
    counts = RNG.integers(0, 6, n)
    indptr = np.concatenate([[0], np.cumsum(counts)])
    indices = RNG.integers(0, n, indptr[-1])
    data = RNG.standard_normal(indptr[-1])
    x = RNG.standard_normal(n)
    exact(csr_matvec_loop, indptr, indices, data, x)
    # the rows' gathers, repeated in every trip of a masked loop, cost more than the
    # scalar loop: left as loops
    assert loops_and_transposes(csr_matvec_loop, indptr, indices, data, x)[0] == 2
    bad = indices.copy()
    bad[indptr[7] if counts[7] else indptr[8]] = 99     # an early row fails first ...
    bad[-1] = -77                                        # ... before a later one
    with pytest.raises(IndexError) as want:
        csr_matvec_loop(indptr, bad, data, x)
    with pytest.raises(IndexError) as got:
        jit(csr_matvec_loop)(indptr, bad, data, x)
    assert "99" in str(want.value) and "99" in str(got.value)


def nested_masked(x, hist):
    for i in range(x.shape[0]):
        v = x[i]
        while v > 1:                  # lanes leave at different trips ...
            w = v % 3
            while w > 0:              # ... and so do they here, inside
                hist[i] += 1
                w -= 1
            v = v // 2
    return hist


def test_a_finished_lane_runs_no_nested_loop():
    x = np.array([1, 40, 1, 7, 100, 2, 1, 64, 5, 3])
    exact(nested_masked, x, np.zeros(10, dtype=np.int64))
    assert loops_and_transposes(nested_masked, x, np.zeros(10, dtype=np.int64))[0] == \
        2 + TAIL + 1


def branch_writes(x):
    y = np.zeros_like(x)
    for i in range(x.shape[0]):
        if x[i] > 0:
            y[i] = x[i] * 2
        else:
            y[i] = -x[i]
    return y


def branch_writes_rows(x):
    y = np.zeros_like(x)
    for i in range(x.shape[0]):
        for j in range(1, x.shape[1]):
            if x[i, j] > x[i, j - 1]:
                y[i, j] = y[i, j - 1] + x[i, j]
    return y


@pytest.mark.parametrize("fn,x", [(branch_writes, RNG.standard_normal(40)),
                                  (branch_writes, RNG.standard_normal(9)),
                                  (branch_writes_rows, RNG.standard_normal((6, 9))),
                                  (branch_writes_rows, RNG.standard_normal((300, 5)))],
                         ids=["large", "small", "rows", "rows-moved"])
def test_data_dependent_branches_per_lane(fn, x):
    exact(fn, x)
    assert loops_and_transposes(fn, x)[0] == x.ndim - 1


def picked_columns(x, idx):
    y = np.empty((x.shape[0], idx.shape[0]))
    for i in range(x.shape[0]):
        for t in range(idx.shape[0]):
            y[i, t] = x[i, idx[t]]           # a checked index, the same in every lane
    return y


def test_a_check_inside_a_nested_loop_reports_its_value():
    x = RNG.standard_normal((12, 7))
    idx = np.array([0, 6, -1, 3, 2])
    exact(picked_columns, x, idx)
    assert loops_and_transposes(picked_columns, x, idx)[0] == 1
    bad = np.array([0, 6, 9, 3, -40])
    with pytest.raises(IndexError) as want:
        picked_columns(x, bad)
    with pytest.raises(IndexError) as got:
        jit(picked_columns)(x, bad)
    assert "9" in str(want.value) and "9" in str(got.value)


def last_positive(x, idx):
    last = -1.0
    for i in range(idx.shape[0]):
        v = x[idx[i]]                 # a checked index: the loop may end early
        if v > 0:
            last = v                  # kept from trip to trip: not a check's payload
    return last


def test_a_value_kept_across_trips_is_not_a_payload():
    x = np.array([0.5, -1.0, 2.0, -3.0])
    idx = np.array([0, 2, 1, 3, 1])
    exact(last_positive, x, idx)
    assert loops_and_transposes(last_positive, x, idx)[0] == 1


def first_above(x, t):
    out = np.zeros(x.shape[0], dtype=np.int64)
    for i in range(x.shape[0]):
        k = 0
        while k < x.shape[1] and x[i, k] < t:    # k: the same in every running lane
            k += 1
        out[i] = k
    return out


def test_a_masked_loop_reads_its_counter_s_rows():
    x = RNG.standard_normal((40, 25))
    exact(first_above, x, 1.5)
    exact(first_above, x, 9.0)                   # no lane finds one: all run to the end
    assert loops_and_transposes(first_above, x, 1.5)[0] == 1 + TAIL


def row_extremes(x):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = x[i].max() - x[i].min() + x[i].sum()
    return out


def normalised_rows(x):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = x[i] / np.abs(x[i]).max()
    return out


def integer_row_sums(a):
    out = np.zeros(a.shape[0], dtype=a.dtype)
    for i in range(a.shape[0]):
        out[i] = a[i].sum() * 3 + np.any(a[i] > 5)
    return out


def row_argmax(x):
    out = np.zeros(x.shape[0], dtype=np.int64)
    for i in range(x.shape[0]):
        out[i] = np.argmax(x[i])          # a reduction of two operands: left as a loop
    return out


def smoothed_extremes(x):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        s = 0.0
        for j in range(x.shape[1]):
            s = s * 0.5 + x[i, j]
        out[i] = s + x[i].max() - x[i].min()
    return out


@pytest.mark.parametrize("fn,arg,whiles", [
    (smoothed_extremes, np.where(RNG.random((20, 7)) < 0.1, np.nan,
                                 RNG.standard_normal((20, 7))), 1),
    # straight-line bodies with reductions: left as loops (as fast or faster)
    (row_extremes, np.where(RNG.random((20, 7)) < 0.1, np.nan, RNG.standard_normal((20, 7))), 1),
    (normalised_rows, RNG.standard_normal((15, 9)), 1),
    (integer_row_sums, RNG.integers(-9, 9, (11, 6)), 1),
    (row_argmax, RNG.standard_normal((10, 4)), 1),
], ids=lambda v: getattr(v, "__name__", ""))
def test_reductions_of_each_lane_s_row(fn, arg, whiles):
    exact(fn, arg)
    assert loops_and_transposes(fn, arg)[0] == whiles


W = np.array([0.26, 0.011, 0.42, 0.88, 1.15])


def scale_default(w=W):
    # (fuzzer seed 7114, shrunk: the counter times an element of a default argument)
    for i2 in range(2):
        w[i2] *= i2


def complex_rows(re, im):
    out = np.zeros(re.shape[0], dtype=np.int64)
    for k in range(re.shape[0]):
        z = 0j
        c = complex(re[k], im[k])
        n = 0
        while abs(z) <= 2.0 and n < 30:
            z = z * z + c
            n += 1
        out[k] = n
    return out


def test_shrunk_fuzz_and_example_programs():
    saved = W.copy()
    jit(scale_default)()
    got = W.copy()
    W[:] = saved
    scale_default()
    np.testing.assert_array_equal(got, W)
    W[:] = saved
    re, im = np.linspace(-2.0, 0.6, 23), np.linspace(-1.2, 1.2, 23)
    exact(complex_rows, re, im)
    assert loops_and_transposes(complex_rows, re, im)[0] == 1 + TAIL


# --- scalars carried across trips: the recurrence alone runs in order ------------------------

def row_energy(x):
    total = 0.0
    for i in range(x.shape[0]):
        e = 0.0
        for j in range(x.shape[1]):
            e = e * 0.9 + x[i, j] * x[i, j]
        total += e                       # accumulated in trip order after the lanes
    return total


def dot_loop(a, b):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i] * b[i]
    return s


def int_checksum(a):
    h = 0
    m = 1
    for i in range(a.shape[0]):
        h += a[i] * (i + 1)
        m = max(m, a[i])
    return h, m


def row_peaks(a):
    best = -1
    where = 0
    for i in range(a.shape[0]):
        h = 0
        for j in range(a.shape[1]):
            h = (h * 31 + a[i, j]) % 1009
        if h > best:                     # Python's max, kept with the row it came from
            best = h
            where = i
    return best, where


def smoothed_last(x):
    s = x[0, 0]
    for i in range(x.shape[0]):
        s = s * 0.5 + np.sqrt(abs(x[i, 1])) * x[i, 2]
    return s


def loop_ranks(fn, *args):
    """The largest rank carried by each `while` of fn's staged module."""
    text = jit(fn).lower(*args).as_text()
    ranks = []
    with jax_mlir.make_ir_context():
        module = ir.Module.parse(text)

        def visit(op):
            if op.name == "stablehlo.while" and not _first_of_a_counted_pair(op):
                ranks.append(max(ir.RankedTensorType(v.type).rank for v in op.operands))
            return ir.WalkResult.ADVANCE

        module.operation.walk(visit)
    return sorted(ranks)


@pytest.mark.parametrize("fn,args,ranks", [
    (row_energy, (RNG.standard_normal((30, 11)),), [0, 1]),     # lanes, then the scan
    (row_energy, (RNG.standard_normal((30, 11)).astype(np.float32),), [0, 1]),
    (row_peaks, (RNG.integers(-50, 50, (12, 9)),), [0, 1]),
    # straight-line bodies: left as loops (faster unrolled)
    (dot_loop, (RNG.standard_normal(50), RNG.standard_normal(50)), [0]),
    (int_checksum, (RNG.integers(-50, 50, 40),), [0]),
    (smoothed_last, (RNG.standard_normal((25, 3)),), [0]),
], ids=["nested", "float32", "integers", "dot", "checksum", "recurrence"])
def test_carried_scalars_run_their_recurrence_in_trip_order(fn, args, ranks):
    exact(fn, *args)
    assert loop_ranks(fn, *args) == ranks
