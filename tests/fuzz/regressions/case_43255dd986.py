"""Fuzzer regression (seed 302992): mismatch:result:value."""
import numpy as np

def f(x, n):
    u1 = x[::2]
    k3 = 0
    while n // 3 >= -1 or n / (np.abs(2) + 1) > 0:
        if k3 >= 1:
            break
        k3 += 1
        for i5 in range(3):
            x[::2] = u1[i5].copy()
            u1 = u1.copy()
    return x


def ARGS():
    return [np.array([-1, 1, 2, -1, 2], dtype=np.int64), 2]


EXPECTED_BUG = 'mismatch:result:value'
KNOWN = None

# a view made before a staged loop, its base written and the view replaced in the body: the first it
