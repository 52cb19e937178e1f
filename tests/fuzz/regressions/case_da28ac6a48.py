"""Fuzzer regression (seed 595): mismatch:result:value."""
import numpy as np

def h2(a):
    if not a[2]:
        a = np.where(a, a, a)
    return a

def h7(a):
    s8 = 0
    return s8

def f(y):
    s1 = y
    t6 = h2(y)
    y[3] = h7(t6.max())
    s1 += t6.sum()
    return (y, s1)


def ARGS():
    return [np.array([3, 5, 3, 5, -5, 2], dtype=np.int64)]


EXPECTED_BUG = 'mismatch:result:value'
KNOWN = None

# Arrays are not equal
# result[0]
# Mismatched elements: 6 / 6 (100%)
# First 5 mismatches are at indices:
#  [0]: 16 (ACTUAL), 11 (DESIRED)
#  [1]: 18 (ACTUAL), 13 (DESIRED)
#  [2]: 16 (ACTUAL), 11 (DESIRED)
#  [3]: 13 (ACTUAL), 8 (DESIRED)
#  [4]: 8 (ACTUAL), 3 (DESIRED)
# Max absolute difference among violations: 5
# Max relative difference among violations: 1.66666667
#  ACTUAL: array([16, 18, 16, 13,  8, 15])
