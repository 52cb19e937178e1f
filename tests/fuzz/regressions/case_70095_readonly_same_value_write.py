"""Fuzzer regression (seed 70095, family `arg_layouts`): mismatch:noraise:ValueError.
`y[0] += s3` with `s3 == 0` on a read-only argument: NumPy raises `ValueError:
assignment destination is read-only` on any write; npxla runs the program on a copy
and raises only when the read-only argument's values changed, so a write of the
values already there (`y[0] += 0`, `y *= 1`, `y[0] = y[0]`) raises nothing."""
import numpy as np

def f(y):
    s3 = 0
    y[0] += s3


def ARGS():
    return [(_a := np.array([-3, 0, 1, 33, 3], dtype=np.int64)[::2], _a.setflags(write=False))[0]]


EXPECTED_BUG = 'mismatch:noraise:ValueError'

# NumPy raised ValueError: assignment destination is read-only; jit returned None
