"""A shifted argument that a loop updates keeps the memcpy without a compile: XLA copies
any parameter a `while` changes into a buffer of its own, so a superset variant could
only be refused after compiling it (1.5 s for a 400 x 400 Cholesky, inside a steady
call). `superset.updated_in_loops` tells from the module."""
import numpy as np

from npxla import jit
from npxla.runtime.xla import superset

from tests.runtime.test_transfer import _after_nans, _fresh, _shifter

N = 200          # 320 KB of float64


def row_sweeps(A):
    for i in range(1, A.shape[0]):
        A[i, :] += 0.5 * A[i - 1, :]
    return A


def reshaped_sweeps(a):
    A = a.reshape(N, N)
    for i in range(1, N):
        A[i, :] -= 0.25 * A[i - 1, :]
    return a


def row_sums_in_loop(A):
    total = 0.0
    for i in range(A.shape[0]):
        total += A[i, :].sum()
    return total


def _calls_with_fresh_shifted_copies(f, fn, shape, offsets):
    for offset in offsets:
        A = _after_nans(N * N, offset).reshape(shape)
        expected = fn(A.copy())
        got = f(A)
        np.testing.assert_allclose(got, expected, rtol=1e-13)
        if np.ndim(expected):
            np.testing.assert_array_equal(A, expected)   # the write-back reached A


def test_an_argument_a_loop_updates_never_compiles_a_variant(monkeypatch):
    f = _fresh(row_sweeps)
    _calls_with_fresh_shifted_copies(f, row_sweeps, (N, N), [16])
    shifter = _shifter(f)
    compiles = []
    monkeypatch.setattr(shifter, "_compile", lambda *a: compiles.append(a))
    _calls_with_fresh_shifted_copies(f, row_sweeps, (N, N), [16, 16, 48, 48, 32, 32, 16])
    assert compiles == []
    assert shifter._looped == {0}
    assert set(shifter._variants) == {(2,), (6,), (4,)}
    assert not any(shifter._variants.values())


def test_through_a_reshape_too(monkeypatch):
    f = _fresh(reshaped_sweeps)
    _calls_with_fresh_shifted_copies(f, reshaped_sweeps, (N * N,), [16, 16, 48, 48])
    shifter = _shifter(f)
    assert shifter._looped == {0}
    assert not any(shifter._variants.values())


def test_a_loop_that_only_reads_the_argument_still_tries_the_variant():
    f = _fresh(row_sums_in_loop)
    _calls_with_fresh_shifted_copies(f, row_sums_in_loop, (N, N), [16, 16, 16])
    shifter = _shifter(f)
    assert shifter._looped == set()
    assert (2,) in shifter._variants         # compiled and judged from XLA's program


def test_read_from_the_module():
    text = """
module {
  func.func public @main(%a: tensor<8xf64>, %b: tensor<8xf64>, %c: tensor<2x4xf64>)
      -> (tensor<8xf64>, tensor<8xf64>, tensor<8xf64>) {
    %r = stablehlo.reshape %c : (tensor<2x4xf64>) -> tensor<8xf64>
    %w:3 = stablehlo.while(%x = %a, %y = %b, %z = %r) : tensor<8xf64>, tensor<8xf64>, tensor<8xf64>
    cond {
      %t = stablehlo.constant dense<false> : tensor<i1>
      stablehlo.return %t : tensor<i1>
    } do {
      %s = stablehlo.add %x, %y : tensor<8xf64>
      %u = stablehlo.add %z, %y : tensor<8xf64>
      stablehlo.return %s, %y, %u : tensor<8xf64>, tensor<8xf64>, tensor<8xf64>
    }
    return %w#0, %w#1, %w#2 : tensor<8xf64>, tensor<8xf64>, tensor<8xf64>
  }
}"""
    assert superset.updated_in_loops(text, [0, 1, 2]) == {0, 2}
    assert superset.updated_in_loops(text, [1]) == set()
