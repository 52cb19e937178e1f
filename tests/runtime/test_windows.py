"""Speculative windows: slices whose bounds come from array data are staged at the length
the data has needed so far, checked at run time, widened and rerun when too short
(`runtime/numpy/indexing/bounded_window.py`). Each program is compared with NumPy, including the
caller's arrays after the call."""
import numpy as np
import pytest

from npxla import jit
from npxla.runtime.numpy.indexing import bounded_window
from tests.benchmarks.real_kernels import csr_matvec




def segment_scale(v, bounds, s):
    """Writes through data-bounded slices of an argument."""
    for k in range(bounds.shape[0] - 1):
        v[bounds[k]:bounds[k + 1]] *= s[k]
    return v.sum()


def prefix_means(x, ends):
    out = np.zeros(ends.shape[0])
    for k in range(ends.shape[0]):
        out[k] = x[:ends[k]].mean()
    return out


def seek(x, lo, hi, target):
    """NumPy never enters the loop; a window too short would make it run forever."""
    n = 0
    while x[lo[0]:hi[0]].sum() < target:
        n += 1
    return n


def printing_segments(v, bounds):
    total = 0.0
    for k in range(bounds.shape[0] - 1):
        total += v[bounds[k]:bounds[k + 1]].sum()
    print("total", total)
    return total


def _csr(rng, rows, lo, hi):
    per_row = rng.integers(lo, hi, rows)
    A_row = np.zeros(rows + 1, dtype=np.int64)
    A_row[1:] = np.cumsum(per_row)
    nnz = int(A_row[-1])
    return (rng.normal(size=nnz), rng.integers(0, rows, nnz).astype(np.int64), A_row,
            rng.normal(size=rows))


def _fresh(fn):
    """jit(fn) with nothing compiled and no window widened yet (jit(fn) is one object per
    function: other tests may have run it)."""
    f = jit(fn)
    f.clear_cache()
    return f


def _sites(f):
    return sorted(f._windows.values())


def test_csr_rows_take_a_short_window_at_real_size():
    rng = np.random.default_rng(0)
    args = _csr(rng, 400, 8, 25)
    f = _fresh(csr_matvec)
    np.testing.assert_allclose(f(*args), csr_matvec(*args), rtol=1e-12, atol=1e-12)
    assert f._windows == {}                  # the first guess held: nothing widened
    text = f.lower(*args).as_text()
    nnz = args[0].size
    assert f"tensor<{nnz}xf64>" in text      # the argument itself
    assert f"tensor<{bounded_window.FIRST}xf64>" in text   # but rows are windows
    assert f"tensor<{nnz}xi1>" not in text   # no mask as long as all nonzeros


def test_long_rows_widen_once_and_stay_right():
    rng = np.random.default_rng(1)
    args = _csr(rng, 60, 100, 300)
    f = _fresh(csr_matvec)
    np.testing.assert_allclose(f(*args), csr_matvec(*args), rtol=1e-12, atol=1e-12)
    assert _sites(f) == [512, 512]       # both slices on their lines, next power of two
    again = _csr(rng, 60, 100, 300)      # shorter than the window now: no more widening
    np.testing.assert_allclose(f(*again), csr_matvec(*again), rtol=1e-12, atol=1e-12)
    assert _sites(f) == [512, 512]


def test_windows_that_reach_half_the_axis_keep_the_whole_axis():
    rng = np.random.default_rng(2)
    args = _csr(rng, 3, 200, 300)         # rows of ~250 of ~750 nonzeros
    f = _fresh(csr_matvec)
    np.testing.assert_allclose(f(*args), csr_matvec(*args), rtol=1e-12, atol=1e-12)
    assert "WindowOverflow" not in repr(f.lower(*args).as_text()) and \
        f"tensor<{args[0].size}xi1>" in f.lower(*args).as_text()


def test_a_failed_run_writes_nothing_back():
    rng = np.random.default_rng(3)
    v = rng.normal(size=2000)
    bounds = np.array([0, 10, 400, 410, 2000])
    s = np.array([2.0, -1.0, 3.0, 0.5])
    want_v, got_v = v.copy(), v.copy()
    want = segment_scale(want_v, bounds, s)
    f = _fresh(segment_scale)
    got = f(got_v, bounds, s)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_array_equal(got_v, want_v)     # scaled once, not once per run
    assert max(_sites(f)) >= 1590


def test_prefix_slices_with_data_stops():
    rng = np.random.default_rng(4)
    x = rng.normal(size=1000)
    ends = np.array([1, 5, 63, 64, 65, 700, 1000, 3])
    f = _fresh(prefix_means)
    np.testing.assert_allclose(f(x, ends), prefix_means(x, ends), rtol=1e-12)


def test_a_while_loop_stops_when_its_window_was_too_short():
    x = np.ones(1000)
    lo, hi = np.array([0]), np.array([500])
    f = _fresh(seek)
    assert f(x, lo, hi, 500.0) == seek(x, lo, hi, 500.0) == 0
    assert _sites(f) == [512]


def test_programs_that_print_speculate_and_print_once(capfd):
    # a run whose window was too short is redone: its prints wait until a run is
    # accepted (`printing.execute`), so each call prints once, as NumPy does
    v = np.arange(1000.0)
    bounds = np.array([0, 300, 1000])
    f = _fresh(printing_segments)
    assert f(v, bounds) == printing_segments(v, bounds)
    out = capfd.readouterr().out
    assert out.count("total") == 2            # NumPy's print and one from the program
    assert f._windows != {}                   # it speculated (and was redone)
    assert f(v, bounds) == printing_segments(v, bounds)
    assert capfd.readouterr().out.count("total") == 2


def test_index_bounded_slices_are_not_speculative():
    def tri(A):
        s = 0.0
        for i in range(A.shape[0]):
            s += A[i, :i].sum()
        return s
    A = np.random.default_rng(5).normal(size=(300, 300))
    f = _fresh(tri)
    np.testing.assert_allclose(f(A), tri(A), rtol=1e-12)
    assert f._windows == {}
    assert "WindowOverflow" not in str(f.lower(A).as_text())


@pytest.fixture
def tiny_windows(monkeypatch):
    """Windows of 2 elements on axes of 4 and more: every program here overflows."""
    monkeypatch.setattr(bounded_window, "FIRST", 2)
    monkeypatch.setattr(bounded_window, "MIN_AXIS", 4)


@pytest.mark.parametrize("seed", range(4))
def test_tiny_windows_agree_with_numpy(tiny_windows, seed):
    rng = np.random.default_rng(10 + seed)
    args = _csr(rng, 12, 0, 9)
    f = _fresh(csr_matvec)
    np.testing.assert_allclose(f(*args), csr_matvec(*args), rtol=1e-12, atol=1e-12)
    v = rng.normal(size=50)
    bounds = np.sort(rng.integers(0, 50, 6))
    s = rng.normal(size=5)
    want_v, got_v = v.copy(), v.copy()
    np.testing.assert_allclose(_fresh(segment_scale)(got_v, bounds, s),
                               segment_scale(want_v, bounds, s), rtol=1e-12)
    np.testing.assert_array_equal(got_v, want_v)
    ends = rng.integers(1, 50, 7)
    np.testing.assert_allclose(_fresh(prefix_means)(v, ends), prefix_means(v, ends),
                               rtol=1e-12)
