"""Fuzzer regression (seed 123179): mismatch:result:value."""
import numpy as np

def f(x, y, z):
    t2 = x
    s1 = x.min()
    if np.mean(y, axis=None) + 2.0:
        pass
    else:
        z[0, y[2, 0]:] = 3
    r17 = x[t2 > 0.5]
    return (z, s1, r17)


def ARGS():
    return [np.array([[-0.4423325751657182, -0.855498746888372, 0.03181755415506498], [-0.3229299561804744, 0.033266207239314345, -1.1482710287413664], [-0.040436014538855966, 0.06517667163296169, -1.125731485233625], [0.6836530302184446, 1.0226590631633854, 1.7255315949924888]], dtype=np.float64), np.array([[5, 1, 0], [2, -2, -5], [-5, -3, -3], [-4, -5, -5]], dtype=np.int32), np.array([[-0.03906055990659583, -0.992208388494187, 0.7345479688574106], [-0.7336079322512293, -0.8275165273035534, -0.42766765728792694], [0.31211815654924646, -0.9503494927374526, 0.7717342033215481], [0.5705721366810159, 0.8740747094011725, 0.8938084685339619]], dtype=np.float64)]


EXPECTED_BUG = 'mismatch:result:value'
KNOWN = 'xla-contracts-float-arithmetic'

# Not equal to tolerance rtol=1e-09, atol=4e-09
# result[0]
# Mismatched elements: 3 / 12 (25%)
# Mismatch at indices:
#  [0, 0]: -0.03906055990659583 (ACTUAL), 3.0 (DESIRED)
#  [0, 1]: -0.992208388494187 (ACTUAL), 3.0 (DESIRED)
#  [0, 2]: 0.7345479688574106 (ACTUAL), 3.0 (DESIRED)
# Max absolute difference among violations: 3.99220839
# Max relative difference among violations: 1.33073613
#  ACTUAL: array([[-0.039061, -0.992208,  0.734548],
#        [-0.733608, -0.827517, -0.427668],
#        [ 0.312118, -0.950349,  0.771734],
