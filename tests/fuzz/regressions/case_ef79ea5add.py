"""Fuzzer regression (seed 10118): mismatch:args:value."""
import numpy as np

def f(x):
    for i3 in range(len(x)):
        x = x[::1]
    x[1:3] = np.mean(x, axis=None)


def ARGS():
    return [np.array([-1.4120758126337012, 0.6226483733644047, -1.6395744822741085], dtype=np.float64)]


EXPECTED_BUG = 'mismatch:args:value'
KNOWN = None

# Not equal to tolerance rtol=1e-09, atol=2.41208e-09
# arguments after the call[0]
# Mismatched elements: 2 / 3 (66.7%)
# Mismatch at indices:
#  [1]: 0.6226483733644047 (ACTUAL), -0.809667307181135 (DESIRED)
#  [2]: -1.6395744822741085 (ACTUAL), -0.809667307181135 (DESIRED)
# Max absolute difference among violations: 1.43231568
# Max relative difference among violations: 1.76901756
#  ACTUAL: array([-1.412076,  0.622648, -1.639574])
#  DESIRED: array([-1.412076, -0.809667, -0.809667])
# NumPy: None
# jit:   None
