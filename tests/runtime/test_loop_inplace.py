"""Loops that update a matrix in place, written as textbook NumPy (issue 37 item 1):
NumPy's values, the caller's array written back, and no copy of the matrix in any loop
body of XLA's optimised program (`lowering/inplace.py`: a second write to the element
just written takes the array from before the first, and the reads it needs read that
array with the element put in)."""
import numpy as np
import pytest

from benchmarks.loop_sweep import gauss_seidel, gram_schmidt
from npxla import jit
from tests.runtime.test_bounded_scatter import _copies_in_loops


def cholesky_inplace(A):
    n = A.shape[0]
    for i in range(n):
        for j in range(i):
            A[i, j] -= np.dot(A[i, :j], A[j, :j])
            A[i, j] /= A[j, j]
        A[i, i] -= np.dot(A[i, :i], A[i, :i])
        A[i, i] = np.sqrt(A[i, i])
    for i in range(n):
        for j in range(i + 1, n):
            A[i, j] = 0.0
    return A


def lu_right_looking(A):
    n = A.shape[0]
    for k in range(n):
        for i in range(k + 1, n):
            A[i, k] /= A[k, k]
            A[i, k + 1:] -= A[i, k] * A[k, k + 1:]
    return A


def lu_crout_rows(A):
    n = A.shape[0]
    for i in range(n):
        for j in range(i):
            A[i, j] -= np.dot(A[i, :j], A[:j, j])
            A[i, j] /= A[j, j]
        for j in range(i, n):
            A[i, j] -= np.dot(A[i, :i], A[:i, j])
    return A


def forward_substitution(L, b):
    x = b.copy()
    for i in range(L.shape[0]):
        for j in range(i):
            x[i] -= L[i, j] * x[j]
        x[i] /= L[i, i]
    return x


def _spd(n, seed=0):
    B = np.random.default_rng(seed).normal(size=(n, n))
    return B @ B.T + n * np.eye(n)


CASES = {
    "cholesky": (cholesky_inplace, lambda n: (_spd(n),)),
    "lu": (lu_right_looking, lambda n: (_spd(n),)),
    "lu_crout": (lu_crout_rows, lambda n: (_spd(n),)),
    "forward": (forward_substitution, lambda n: (np.tril(_spd(n)), np.arange(n, dtype=float))),
    "gauss_seidel": (gauss_seidel, lambda n: (_spd(n), np.ones(n), np.zeros(n), 2)),
    "gram_schmidt": (gram_schmidt, lambda n: (np.random.default_rng(1).normal(size=(n, n)),)),
}


@pytest.mark.parametrize("name", CASES)
def test_textbook_loop_matches_numpy_and_copies_no_matrix_per_iteration(name):
    fn, make = CASES[name]
    n = 48
    args = make(n)
    expected_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    got_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    expected = fn(*expected_args)
    f = jit(fn)
    got = f(*got_args)
    for e, g in zip(expected if isinstance(expected, tuple) else (expected,),
                    got if isinstance(got, tuple) else (got,)):
        np.testing.assert_allclose(g, e, rtol=1e-11, atol=1e-11)
    for e, g in zip(expected_args, got_args):      # the caller's arrays, written back
        if isinstance(e, np.ndarray):
            np.testing.assert_allclose(g, e, rtol=1e-11, atol=1e-11)
    text = f.lower(*[a.copy() if isinstance(a, np.ndarray) else a for a in args]).as_text("hlo")
    assert _copies_in_loops(text, (n, n)) == 0


def reads_after_element_write(A, k):
    """Second writes of one element whose update reads that element, another one, a
    row, a column and a block (clamped at the edges) of the array after the first."""
    n = A.shape[0]
    out = np.zeros(6)
    for i in range(k):
        j = (3 * i + 1) % n
        A[i, j] -= 1.5
        A[i, j] = A[i, j] * 2 + A[j, i] + A[i, :].sum() + A[:, j].sum() + A[n - 3:, n - 3:].sum()
        out[i % 6] += A[i, j]
    return A, out


@pytest.mark.parametrize("k", [1, 5, 12])
def test_reads_after_an_element_write_see_it(k):
    A = np.random.default_rng(k).normal(size=(12, 12))
    e = reads_after_element_write(A.copy(), k)
    g = jit(reads_after_element_write)(A.copy(), k)
    for a, b in zip(e, g):
        np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-12)


def column_cholesky(A):
    """The shape that met an XLA:CPU miscompile of a `dynamic_update_slice` into a
    slice of a loop-carried array (blocked matrix-vector tiles read after `L[j, j] =
    d`: wrong from row 128 on at n = 400)."""
    n = A.shape[0]
    L = np.zeros_like(A)
    for j in range(n):
        L[j, j] = 1.0
        L[j + 1:, j] = (A[j + 1:, j] - L[j + 1:, :j] @ L[j, :j]) * 1e-3
    return L


def test_blocked_tiles_read_after_an_element_write():
    A = _spd(300)
    np.testing.assert_allclose(jit(column_cholesky)(A), column_cholesky(A), rtol=1e-12,
                               atol=1e-15)


# --- random element-then-window update sequences (the forwarding's cases, generated) ---

_WRITES = ["A[i, j] {op}= {e}", "A[i, j] = {e}", "A[j, i] {op}= {e}", "A[i, j:] {op}= {e}",
           "A[i, :] = A[i, :] * 0.5 + {e}", "A[j:, i] {op}= {e}", "A[i, i] = {e}"]
_READS = ["A[i, j]", "A[j, i]", "A[i, i]", "A[j, j]", "A[i, :].sum()", "A[:, j].sum()",
          "A[i, j:].sum() * 0.1", "np.dot(A[i, :j], A[j, :j])", "0.25"]


def _program(seed):
    rng = np.random.default_rng(seed)
    lines = []
    for _ in range(int(rng.integers(2, 5))):
        e = " + ".join(rng.choice(_READS, int(rng.integers(1, 3))))
        lines.append(str(rng.choice(_WRITES)).format(op=rng.choice(["+", "-", "*"]),
                                                      e=f"0.5 * ({e})"))
    body = "\n".join("            " + line for line in lines)
    return ("import numpy as np\n\n\ndef f(A, n):\n    for i in range(n):\n"
            "        for j in range(i):\n" + body + "\n    return A\n")


@pytest.mark.parametrize("seed", range(24))
def test_generated_update_sequences_match_numpy(seed, tmp_path):
    import importlib.util
    path = tmp_path / f"gen_{seed}.py"
    path.write_text(_program(seed))
    spec = importlib.util.spec_from_file_location(f"gen_{seed}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    A = np.random.default_rng(seed).uniform(-1, 1, size=(9, 9))
    with np.errstate(all="ignore"):
        expected = module.f(A.copy(), 9)
    got = A.copy()
    with np.errstate(all="ignore"):
        out = jit(module.f)(got, 9)
    np.testing.assert_allclose(out, expected, rtol=1e-10, atol=1e-10, equal_nan=True)
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-10, equal_nan=True)
