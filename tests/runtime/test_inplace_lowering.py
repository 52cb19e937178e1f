"""In-place slice updates whose right-hand side reads other rows of the array being
written, on arrays XLA sees as a reshape of another value (runtime/lowering/inplace.py:
XLA:CPU fuses such reads into the in-place write and reads rows it already overwrote).
Each case is compared with NumPy: values and the caller's arrays, straight-line and
inside a loop that is staged (its trip count comes from the data)."""
import numpy as np
import pytest

from npxla.runtime.lowering.inplace import _bitcast_sources, may_read
from jaxlib.mlir.dialects import stablehlo as hlo
from npxla.runtime.staging.trace import Trace
from npxla.runtime.staging.types import tensor_type
from tests.differential import check


def mask_then_row(y):
    y[y >= 0] = y[y >= 0]
    y[0:3] *= y[0]
    return y


def reshaped_row(x):
    y = (x * 2.0).reshape(4, 4)
    y[0:3] *= y[0]
    return y


def reshaped_shift(x):
    y = (x + 1.0).reshape(4, 4)
    y[1:4] = y[0:3]
    return y


def source_read(x):
    p = x * 2.0
    y = p.reshape(4, 4)
    y[0:3] = p[0:12].reshape(3, 4) * p[2]
    return y, p


def transposed(x):
    y = (x * 2.0).reshape(4, 4).T
    y[0:3] *= y[0]
    return y


def argument_view(x):
    y = x.reshape(4, 4)
    y[1:3] += y[0]
    return x


def three_d(x):
    y = (x - 1.0).reshape(2, 2, 4)
    y[1] += y[0]
    y[0, 1:] *= y[1, 0]
    return y


def looped(x, n):
    k = 0
    while k < n[0]:                  # data-dependent trip count: a staged loop
        y = (x * 1.0).reshape(4, 4)
        y[k % 3 + 1:] += y[0]
        x = y.reshape(16)
        k += 1
    return x


def dynamic_start(x, i):
    y = (x * 2.0).reshape(4, 4)
    y[i[0]:i[0] + 2] *= y[0]
    return y


def updated_after_reshape(x):
    """The reshape lies under an elementwise op (fuzzer, seed 7420014): `u += 1.5` is
    `add(reshape(x))`, and XLA fused it into the in-place write: u[2] got the new u[1]."""
    u = x.reshape(16)
    u += 1.5
    u[1:3] = u[:2]
    return u


def scaled_after_reshape(x):
    u = x.reshape(16) * 2.0 + 1.5
    u[1:3] = u[:2]
    return u, x


CASES = [mask_then_row, reshaped_row, reshaped_shift, source_read, transposed,
         argument_view, three_d, updated_after_reshape, scaled_after_reshape]
ON_MATRIX = (mask_then_row, updated_after_reshape, scaled_after_reshape)


@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_update_reading_other_rows_of_a_reshape(fn):
    x = np.arange(16.0) - 3.5
    check(fn, x.reshape(4, 4) if fn in ON_MATRIX else x)


def test_in_a_staged_loop():
    check(looped, np.arange(16.0) - 3.5, np.array([3]))


@pytest.mark.parametrize("start", [0, 1, 2, 3])
def test_traced_start(start):
    check(dynamic_start, np.arange(16.0) - 3.5, np.array([start]))


def test_the_walk_sees_reads_and_their_absence():
    """The rule's two inputs on MLIR values: the reshape chain under the written array,
    and whether the update reads any of it (not what an unrelated value reads)."""
    with Trace() as trace:
        a, b = trace.begin_function([((16,), np.float64), ((3, 4), np.float64)])
        y = hlo.ReshapeOp(tensor_type((4, 4), np.float64), a).result
        chain = _bitcast_sources(y)
        assert len(chain) == 2 and chain[1] == a
        row = hlo.SliceOp(y, [0, 0], [3, 4], [1, 1]).result
        assert may_read(hlo.MulOp(row, b).result, chain)
        assert not may_read(hlo.AddOp(b, b).result, chain)
        assert _bitcast_sources(a) == [a]
        above = hlo.AddOp(y, y).result          # an elementwise op over the reshape
        assert a in _bitcast_sources(above)
        plain = hlo.AddOp(b, b).result          # no reshape below: only itself
        assert _bitcast_sources(plain) == [plain]
