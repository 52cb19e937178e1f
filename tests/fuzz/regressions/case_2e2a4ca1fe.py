"""Fuzzer regression (hand-written): mismatch:refused-but-changed."""
import numpy as np


class State:

    def __init__(self, acc, count, buf):
        self.acc = acc


def f(st):
    st.acc[::2] = 2.0
    if np.all(st.acc > 2.0):
        st.out = 1


def ARGS():
    return [State(np.array([-0.25, -1.125, -0.125, -0.25, -0.0625], dtype=np.float64), 0, np.array([0.0, 0.0], dtype=np.float64))]


EXPECTED_BUG = 'mismatch:refused-but-changed'

# jit refused, yet changed outside state: Not equal to tolerance rtol=0, atol=0
# arguments after the call[0]['acc']
# Mismatched elements: 3 / 5 (60%)
# Mismatch at indices:
#  [0]: 2.0 (ACTUAL), -0.25 (DESIRED)
#  [2]: 2.0 (ACTUAL), -0.125 (DESIRED)
#  [4]: 2.0 (ACTUAL), -0.0625 (DESIRED)
# Max absolute difference among violations: 2.25
# Max relative difference among violations: 33.
#  ACTUAL: array([ 2.   , -1.125,  2.   , -0.25 ,  2.   ])
#  DESIRED: array([-0.25  , -1.125 , -0.125 , -0.25  , -0.0625])
# UnsupportedOperationError: /tmp/npxla_fuzz_pptyk8p8/p_0.py:10:1
