"""Fuzzer regression (seed 7301221): mismatch:args:value. After a data-dependent `if`
that rebinds `y` on one path, `y` is the argument (a view `[:, 1:]`, not contiguous) on
the other: `np.ravel(y)` is a view of the new array on one path and a copy of the
argument on the other, so NumPy never writes the caller's `y`; the staged view wrote
it. Now the ravel is a copy whose writes are refused (a located error)."""
import numpy as np

def f(x, y):
    if not y.max():
        y = x.astype(np.int32)
    u5 = np.ravel(y)
    u5[:] = 4


def ARGS():
    return [np.array([[-0.332668374575882, 0.37947737854408037, -0.6010028653542314, -0.8760248708119923], [-0.46784932287059644, -1.3281171666776386, -0.12537977693527663, np.nan]], dtype=np.float64), np.array([[-11, -3, 2, 2, 3], [-55, -4, 0, -5, 1]], dtype=np.int32)[:, 1:]]


EXPECTED_BUG = 'mismatch:args:value'
KNOWN = None
