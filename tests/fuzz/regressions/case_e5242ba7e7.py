"""Fuzzer regression (seed 230): mismatch:args:value."""
import numpy as np

def f(x, y):
    s1 = x
    for i3 in range(len(x)):
        y += y
        return (y, s1)
    return (y, s1)


def ARGS():
    return [np.array([1, -5, 4], dtype=np.int64), np.array([-0.5277919769287109, 1.1763956546783447, -0.39757904410362244, -0.7910504937171936, -2.247570514678955, 0.39543235301971436], dtype=np.float32)]


EXPECTED_BUG = 'mismatch:args:value'
KNOWN = None

# Not equal to tolerance rtol=0.0002, atol=0.00109903
# arguments after the call[1]
# Mismatched elements: 6 / 6 (100%)
# First 5 mismatches are at indices:
#  [0]: -0.5277919769287109 (ACTUAL), -1.0555839538574219 (DESIRED)
#  [1]: 1.1763956546783447 (ACTUAL), 2.3527913093566895 (DESIRED)
#  [2]: -0.39757904410362244 (ACTUAL), -0.7951580882072449 (DESIRED)
#  [3]: -0.7910504937171936 (ACTUAL), -1.5821009874343872 (DESIRED)
#  [4]: -2.247570514678955 (ACTUAL), -4.49514102935791 (DESIRED)
# Max absolute difference among violations: 2.2475705
# Max relative difference among violations: 0.5
#  ACTUAL: array([-0.527792,  1.176396, -0.397579, -0.79105 , -2.247571,  0.395432],
