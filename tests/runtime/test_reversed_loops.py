"""`for ... in reversed(seq)` over a range or an array's rows is one staged loop whose
trip `i` takes item `count - 1 - i`, like `range`'s own loops: before, `reversed` was
iterated as Python, so the loop was unrolled and the program grew with the trip count
(a Kalman smoother's `for t in reversed(range(n - 1))`: 200 trips, 12 s of XLA
compile). Differential tests against NumPy, and the module's size checked independent
of the trip count."""
import numpy as np
import pytest

from tests.differential import check
from tests.runtime.loop_ops import count_ops


def backward_smooth(x, a):
    y = np.zeros_like(x)
    acc = 0.0
    for t in reversed(range(x.shape[0] - 1)):
        acc = a * acc + x[t]
        y[t] = acc
    return y


def strided_back(x):
    s = 0.0
    for k in reversed(range(1, x.shape[0], 3)):
        s = 0.5 * s + x[k] * k
    return s


def up_to_argmax(x):
    total = 0
    for k in reversed(range(np.argmax(x))):          # a traced trip count
        total = 2 * total + k
    return total


def rows_backward(A):
    acc = np.zeros(A.shape[1])
    for row in reversed(A):
        acc = 0.5 * acc + row
    return acc


def positive_backward(x):
    s = 0.0
    for v in reversed(x[x > 0]):                     # rows of run-time length
        s = s * 0.25 + v
    return s


def enumerate_reversed(x):
    out = np.zeros_like(x)
    for i, t in enumerate(reversed(range(x.shape[0]))):
        out[i] = x[t] * (i + 1)
    return out


def python_sequences(x):
    s = x[0]
    for c in reversed([1.0, 2.0, 3.0]):
        s = s * c + 1.0
    steps = reversed(range(x.shape[0]))
    last = next(steps)                       # an iterator, as the builtin's result
    return s, list(reversed(range(4))), tuple(reversed((x.shape[0], 2))), last, \
        next(steps), x[next(reversed(range(x.shape[0])))]


CASES = [
    (backward_smooth, lambda r: (r.normal(size=9), 0.75)),
    (backward_smooth, lambda r: (r.normal(size=1), 0.75)),     # no trip at all
    (strided_back, lambda r: (r.normal(size=11),)),
    (up_to_argmax, lambda r: (r.permutation(7).astype(float),)),
    (rows_backward, lambda r: (r.normal(size=(5, 3)),)),
    (positive_backward, lambda r: (r.normal(size=12),)),
    (enumerate_reversed, lambda r: (r.normal(size=6),)),
    (python_sequences, lambda r: (r.normal(size=3),)),
]


@pytest.mark.parametrize("fn, make", CASES, ids=[f"{c[0].__name__}-{k}"
                                                 for k, c in enumerate(CASES)])
def test_reversed_loops_match_numpy(fn, make):
    check(fn, *make(np.random.default_rng(3)), rtol=0, atol=0)


def test_reversed_range_stays_one_loop():
    ops = [count_ops(backward_smooth, (np.ones(n), 0.5), lambda op, depth: True)
           for n in (100, 1000)]
    loops = count_ops(backward_smooth, (np.ones(8), 0.5),
                      lambda op, depth: op.name == "stablehlo.while")
    assert ops[0] == ops[1] and loops >= 1
