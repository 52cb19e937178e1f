"""Fuzzer regression (seed 100567): crash:badloc:UnsupportedOperationError."""
import numpy as np

def h5(a):
    a[1:3] = np.mean(a)

def f(x, y, z):
    if np.any(z):
        if y[1]:
            return x
        return x
    h5(x)
    return x


def ARGS():
    return [np.array([0.6584304767702506, 0.3895553095072271, 1.0453575068155532, 0.3554198505746378, -0.564489425781983], dtype=np.float64), np.array([1, -2, -3, -4, -3], dtype=np.int32), np.array([0.7268752111673757, -0.07124121796680555, -0.5275153688655186, -0.04040814554182477, 0.7932933881143427], dtype=np.float64)]


EXPECTED_BUG = 'crash:badloc:UnsupportedOperationError'
KNOWN = None

# an early return of an argument from a nested data-dependent if, then an in-place update of it: ref
