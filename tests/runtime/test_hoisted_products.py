"""Products of a loop-picked row of an invariant array with another invariant array,
moved before the loop as one product (`lowering/hoist.py`), against NumPy: values,
and where the product ended up (inside the loop or before it)."""
import numpy as np
import pytest
from jax._src.interpreters import mlir as jax_mlir
from jaxlib.mlir import ir

from differential import check
from npxla import jit

RNG = np.random.default_rng(11)


def products_in_loops(fn, *args):
    """(dots inside a while body, dots outside every loop) in fn's staged module."""
    text = jit(fn).lower(*args).as_text()
    inside, outside = [0], [0]
    with jax_mlir.make_ir_context():
        module = ir.Module.parse(text)

        def visit(op):
            if op.name == "stablehlo.dot_general":
                parent, nested = op.parent, False
                while parent is not None:
                    nested |= parent.name == "stablehlo.while"
                    parent = parent.parent
                (inside if nested else outside)[0] += 1
            return ir.WalkResult.ADVANCE

        module.operation.walk(visit)
    return inside[0], outside[0]


def correlation_columns(data):
    n, m = data.shape
    z = (data - data.mean(axis=0)) / data.std(axis=0)
    corr = np.eye(m)
    for i in range(m - 1):
        corr[i + 1:m, i] = z[:, i] @ z[:, i + 1:m] / n
        corr[i, i + 1:m] = corr[i + 1:m, i]
    return corr


def rows_times_matrix(a, b):
    out = np.empty((a.shape[0], b.shape[1]), dtype=np.result_type(a, b))
    for i in range(a.shape[0]):
        out[i] = a[i] @ b
    return out


def matrix_times_columns(w, x):
    out = np.zeros((w.shape[0], x.shape[1]))
    for j in range(x.shape[1]):
        out[:, j] = w @ x[:, j]
    return out


def reversed_rows(a, b):
    n = a.shape[0]
    out = np.zeros((n, b.shape[1]))
    for i in range(n):
        out[i] = a[n - 1 - i] @ b + i
    return out


def triple_loop_matmul(a, b):
    out = np.zeros((a.shape[0], b.shape[1]))
    for i in range(a.shape[0]):
        for j in range(b.shape[1]):
            out[i, j] = a[i] @ b[:, j]
    return out


def batched_rows(t, b):
    out = np.zeros((t.shape[0], t.shape[1], b.shape[1]))
    for i in range(t.shape[0]):
        out[i] = t[i] @ b
    return out


@pytest.mark.parametrize("fn, shapes", [
    (correlation_columns, [(300, 40)]),
    (rows_times_matrix, [(50, 30), (30, 20)]),
    (matrix_times_columns, [(25, 30), (30, 40)]),
    (reversed_rows, [(40, 30), (30, 10)]),
    (triple_loop_matmul, [(12, 9), (9, 14)]),
    (batched_rows, [(10, 6, 7), (7, 5)]),
], ids=lambda v: getattr(v, "__name__", ""))
def test_loop_products_hoisted_and_equal(fn, shapes):
    args = [RNG.standard_normal(s) for s in shapes]
    check(fn, *args, rtol=1e-11, atol=1e-12)
    inside, outside = products_in_loops(fn, *args)
    assert inside == 0 and outside >= 1


@pytest.mark.parametrize("dtype", [np.int64, np.complex128, np.float32])
def test_other_dtypes(dtype):
    a = (RNG.standard_normal((20, 8)) * 10).astype(dtype)
    b = (RNG.standard_normal((8, 6)) * 10).astype(dtype)
    check(rows_times_matrix, a, b, rtol=1e-5 if dtype == np.float32 else 1e-11,
          atol=1e-4 if dtype == np.float32 else 1e-10)
    assert products_in_loops(rows_times_matrix, a, b)[0] == 0


def few_rows(a, b):
    out = np.zeros((3, b.shape[1]))
    for i in range(3):
        out[i] = a[i] @ b
    return out


def changing_matrix(a, b):
    out = np.zeros((a.shape[0], b.shape[1]))
    for i in range(a.shape[0]):
        out[i] = a[i] @ b
        b = b * 0.5
    return out


def data_dependent_loop(a, b):
    out = np.zeros((a.shape[0], b.shape[1]))
    i = 0
    while i < a.shape[0] and out.sum() < 1e9:
        out[i] = a[i] @ b
        i += 1
    return out


def updated_rows(a, b):
    for i in range(a.shape[0] - 1):
        a[i + 1] = a[i] @ b
    return a


@pytest.mark.parametrize("fn", [few_rows, changing_matrix, data_dependent_loop,
                                updated_rows], ids=lambda f: f.__name__)
def test_not_hoisted_where_it_would_not_pay_or_not_hold(fn):
    a, b = RNG.standard_normal((40, 6)) * 0.3, RNG.standard_normal((6, 6)) * 0.3
    check(fn, a, b, rtol=1e-11, atol=1e-12)
    assert products_in_loops(fn, a, b)[0] >= 1


def test_index_clamped_as_before():
    """An index past the end is clamped by dynamic_slice in both forms (a loop whose
    counter runs past the rows reads the last row, as the unhoisted program does)."""
    def f(a, b):
        out = np.zeros((a.shape[0], b.shape[1]))
        for i in range(a.shape[0]):
            out[i] = a[min(i + 1, a.shape[0] - 1)] @ b
        return out
    a, b = RNG.standard_normal((30, 5)), RNG.standard_normal((5, 4))
    check(f, a, b, rtol=1e-11, atol=1e-12)
