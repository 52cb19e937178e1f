"""Fuzzer regression (seed 10466): mismatch:args:value."""
import numpy as np

def f(x):
    for i1 in range(len(x)):
        if np.sum(x):
            break
        x = x % 3
    a8 = x
    a8[1:3] = x[:2].copy()


def ARGS():
    return [np.array([-0.32832993476717637, 0.1136486074446991, -1.38860878319386], dtype=np.float64)]


EXPECTED_BUG = 'mismatch:args:value'
KNOWN = None

# Not equal to tolerance rtol=1e-09, atol=1.32833e-09
# arguments after the call[0]
# Mismatched elements: 2 / 3 (66.7%)
# Mismatch at indices:
#  [1]: 0.1136486074446991 (ACTUAL), -0.32832993476717637 (DESIRED)
#  [2]: -1.38860878319386 (ACTUAL), 0.1136486074446991 (DESIRED)
# Max absolute difference among violations: 1.50225739
# Max relative difference among violations: 13.21844081
#  ACTUAL: array([-0.32833 ,  0.113649, -1.388609])
#  DESIRED: array([-0.32833 , -0.32833 ,  0.113649])
# NumPy: None
# jit:   None
