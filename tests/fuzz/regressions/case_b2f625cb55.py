"""Fuzzer regression (seed 42): mismatch:refused-but-changed."""
import numpy as np
import fuzzpkg

class State:

    def __init__(self, acc, count, buf):
        self.acc = acc

def f(st):
    t1 = st.acc
    k2 = 0
    while k2 < 4 and np.all(st.acc > 2.0):
        k2 += 1
        k4 = 0
        k4 += 1
        st.out = t1
    fuzzpkg.h6(st.acc)


def ARGS():
    return [State(np.array([-0.22003578082389966, -1.1207765416787316, -0.13215326644334396, -0.27356508306718774, -0.09009399219162276], dtype=np.float64), 0, np.array([0.18613680496825827, -1.050817906003107, 1.6750162815736307, -1.6894357257181152, -0.5776009869611259], dtype=np.float64))]


EXPECTED_BUG = 'mismatch:refused-but-changed'

# jit refused, yet changed outside state: Not equal to tolerance rtol=0, atol=0
# arguments after the call[0]['acc']
# Mismatched elements: 3 / 5 (60%)
# Mismatch at indices:
#  [0]: 2.0 (ACTUAL), -0.22003578082389966 (DESIRED)
#  [2]: 2.0 (ACTUAL), -0.13215326644334396 (DESIRED)
#  [4]: 2.0 (ACTUAL), -0.09009399219162276 (DESIRED)
# Max absolute difference among violations: 2.22003578
# Max relative difference among violations: 23.19903849
#  ACTUAL: array([ 2.      , -1.120777,  2.      , -0.273565,  2.      ])
#  DESIRED: array([-0.220036, -1.120777, -0.132153, -0.273565, -0.090094])
# UnsupportedOperationError: /tmp/npxla_fuzz_vhn90gk_/p_79.py:9:1



# the installed package `fuzzpkg` (see `regress.load`)
__fuzz_package__ = 'fuzzpkg'
import numpy as np

def h6(a):
    a[::2] = 2.0
