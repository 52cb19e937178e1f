"""Fuzzer regression (seed 2001192): mismatch:result:value."""
import numpy as np

def f(x):
    s1 = 0
    t2 = x
    if np.any(x):
        x = x.copy()
    for i4 in range(1, t2.shape[0]):
        for j5 in range(i4):
            x[x < 2.0] -= t2[j5]
            x[x[1]:x[1]] += t2[x[1]:x[1]]
    return (x, s1)


def ARGS():
    return [np.array([-5, 5, -3], dtype=np.int64)]


EXPECTED_BUG = 'mismatch:result:value'
KNOWN = None

# a view of an array an `if` may have replaced read its value from the end of the `if`
