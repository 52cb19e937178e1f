"""Fuzzer regression (seed 302126): crash:badloc:UnsupportedOperationError."""
import numpy as np

def h13(a):
    a[:, 2] = np.max(a, axis=None)

def f(x):
    s1 = x
    t2 = x
    for i10 in range(len(x)):
        return (x, s1)
    h13(t2)
    k15 = 0
    while k15 < 2 and (t2[-3, 1] >= 1 or k8 % 2 < 0):
        k15 += 1
        if k15:
            x = np.abs(x)
            t2[:, 3] = np.sum(t2, axis=1)
    return (x, s1)


def ARGS():
    return [np.array([[3, 1, 0, -3], [3, -1, -4, -4], [3, 1, 3, 4]], dtype=np.int64)]


EXPECTED_BUG = 'crash:badloc:UnsupportedOperationError'
KNOWN = None

# a return from a staged loop, then an in-place update: refused, and the refusal must point into the
