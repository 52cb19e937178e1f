"""Fuzzer regression (seed 3002506): crash:ValueError:attempt to get argmin of an empty
sequence. NumPy's error for an operation inside a data-dependent branch that is not
taken was raised while staging, because NumPy itself (called to reproduce its message)
raised it: the branch must raise only when taken."""
import numpy as np

def h2(a):
    return np.zeros((3, 4))

def f(x, y):
    k1 = 0
    y = h2(y).astype(np.int64)
    for i6 in range(y.shape[0]):
        y[k1:i6] = x[x[2]:y[0, 1]].argmin() if x[x[2]:y[0, 1]].size else 0


def ARGS():
    return [np.array([-4, -2, -5, 0, 1], dtype=np.int64), np.array([[5, 0, 4, -1], [2, 5, 4, -5], [2, -5, -1, 2]], dtype=np.int64)]


EXPECTED_BUG = 'crash:ValueError:attempt to get argmin of an empty sequence'
KNOWN = None
