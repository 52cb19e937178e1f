"""Fuzzer regression (seed 40042, family `arg_layouts`): mismatch:result:value.
`np.ascontiguousarray(y)` of a non-C-contiguous argument (here reversed on both axes;
also transposed, Fortran-ordered or strided, and `np.asarray(y, order='C')`) is a copy
in NumPy; npxla returns a view of `y`, so the in-place update of `y` shows in `u2`
(and a write into `u2` would change the caller's array)."""
import numpy as np

def f(y):
    u2 = np.ascontiguousarray(y)
    y *= 2
    return u2


def ARGS():
    return [np.array([[-1, -5], [-3, 2]], dtype=np.int64)[::-1, ::-1]]



# Arrays are not equal
# result
# Mismatched elements: 4 / 4 (100%)
#  ACTUAL: array([[  4,  -6],
#        [-10,  -2]])
#  DESIRED: array([[ 2, -3],
#        [-5, -1]])
