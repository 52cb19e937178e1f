"""Fuzzer regression (seed 40029, family `arg_layouts`, NaN/inf arguments):
crash:OverflowError:Python integer out of bounds for intN. A NumPy float scalar stored
into an integer array through a boolean mask (`y[mask] = np.float64(inf)`) is an unsafe
cast in NumPy: INT_MIN, with a RuntimeWarning (only a basic index, `y[1] = v` or
`y[1:] = v`, converts like int() and raises). npxla checks the masked store like a
basic one and raises OverflowError (ValueError for NaN)."""
import numpy as np

def f(x, y):
    y[y[:, 2] > 1] = x[x > 0.5].prod()


def ARGS():
    return [(_a := np.array([[np.inf, -0.36537547941179943], [-11.0, 77.0], [2.6706163117474517, np.nan]], dtype=np.float64)[::2], _a.setflags(write=False))[0], np.array([[-11, 4, 3, 1], [-55, 4, 2, 2]], dtype=np.int64)[:, 1:]]



# OverflowError: Python integer out of bounds for int64
#         y[y[:, 2] > 1] = x[x > 0.5].prod()
#         ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
