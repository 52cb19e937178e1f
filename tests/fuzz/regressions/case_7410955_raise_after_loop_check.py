"""Fuzzer regression (seed 7410955): crash:ValueError, NumPy AssertionError. Every trip
of a loop that surely runs asserts (a run-time check), then writes into a read-only
argument (NumPy's ValueError, raised while staging). The staged program raised the
ValueError although the first trip's assert fails first in NumPy: the trip's checks
were dropped with its trace. Now that trip is staged again in line, its checks first."""
import numpy as np

def h7(a):
    a[a > 3] -= 2

def f(x, y, z):
    for i2 in range(y.shape[0]):
        assert np.mean(z) < -2
        h7(x)


def ARGS():
    return [(_a := np.array([[-1.1509293311694893, -1.014584168487913, 0.21375501728075436, -1.1310846585312473], [0.016104745852162105, -0.5174890387001485, 0.6929801640160469, np.nan]], dtype=np.float64)[::-1], _a.setflags(write=False))[0], (_a := np.array([-11, -3, 3, 2, -5], dtype=np.int32)[1:], _a.setflags(write=False))[0], np.array([4, -3, -3, 0], dtype=np.int64)]


EXPECTED_BUG = 'crash:ValueError:assignment destination is read-only:np=AssertionError'
KNOWN = None
