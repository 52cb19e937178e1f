"""Fuzzer regression (seed 3002091): mismatch:noraise:OverflowError. A NumPy scalar
stored through a slice bounded by a loop index skipped NumPy's range check of scalars
stored into integer arrays (NumPy raises OverflowError; npxla wrapped)."""
import numpy as np

def f(y, z):
    for i3 in range(y.shape[0]):
        for i5 in range(z.shape[0]):
            y[i3:] = np.sum(y)


def ARGS():
    return [np.array([[2, -3], [0, 4], [-1, -4], [-4, -1]], dtype=np.int32), np.array([[-2.387054681777954, 0.3729565441608429], [-0.7174580097198486, -0.6277614831924438], [0.28491631150245667, -1.4252686500549316], [-1.175362467765808, 0.10173771530389786]], dtype=np.float32)]


EXPECTED_BUG = 'mismatch:noraise:OverflowError'
KNOWN = None
