"""Fuzzer regression (seed 3200359): crash:lowering failed: MLIRError: a run-time-length
slice of an empty array (`u1[:i3]` with `u1 = x[1:1]`) broadcast against another empty
one asked for a one-element slice of a zero-length buffer."""
import numpy as np

def f(x):
    u1 = x[1:1]
    for i3 in range(x.shape[0]):
        u1[1:1] = u1[1:1] + u1[:i3][::1]


def ARGS():
    return [np.array([4, -1, -1], dtype=np.int32)]


EXPECTED_BUG = 'crash:lowering failed: MLIRError: Operation creation failed:'
KNOWN = None
