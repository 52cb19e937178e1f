"""Fuzzer regression (seed 0): crash:badloc:UnsupportedOperationError."""
import numpy as np

def h22(a):
    a[:, 1] = 5

def f(x, y):
    if x.sum():
        return (y, x)
    h22(x)
    if 1 > 2:
        return (y, x)
    return (y, x)


def ARGS():
    return [np.array([[0.1257302210933933, -0.1321048632913019], [0.6404226504432821, 0.10490011715303971], [-0.535669373161111, 0.36159505490948474]], dtype=np.float64), np.array([[0, 1], [5, 3], [1, 0]], dtype=np.int32)]


EXPECTED_BUG = 'crash:badloc:UnsupportedOperationError'
KNOWN = None

# early return of arguments, then an in-place update in a helper: refused before alias switches
