"""Fuzzer regression (seed 60022, family `exact_float`): mismatch:result:value.
A sum with a constant, plus a constant: `x1 + 1.7 - 1.7` is computed by XLA as
`x1 + (1.7 - 1.7)` (its algebraic simplifier folds the constants of a sum first; also
across statements, also `x + 1.5 + 2.25`): NumPy rounds `x1 + 1.7` first, so about
half of the elements differ. Compared bit for bit (`__fuzz_exact__`)."""
import numpy as np
__fuzz_exact__ = True

def f(x1):
    t3 = x1 + 1.7 - 1.7
    return t3


def ARGS():
    return [np.array([np.inf, 0.5644388198852539, -0.15275339782238007, -0.9774625897407532, -0.31725025177001953], dtype=np.float32)]



# Not equal to tolerance rtol=0, atol=0
# result
# Mismatched elements: 1 / 5 (20%)
# Mismatch at index:
#  [2]: -0.15275339782238007 (ACTUAL), -0.15275335311889648 (DESIRED)
# Max absolute difference among violations: 4.4703484e-08
# Max relative difference among violations: 2.926514e-07
#  ACTUAL: array([      inf,  0.564439, -0.152753, -0.977463, -0.31725 ],
#       dtype=float32)
#  DESIRED: array([      inf,  0.564439, -0.152753, -0.977463, -0.31725 ],
#       dtype=float32)
# NumPy: array([        inf,  0.5644388 , -0.15275335, -0.9774626 , -0.31725025],
