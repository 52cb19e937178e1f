"""Fuzzer regression (seed 3010532): mismatch:result:value. A loop variable that starts
as an argument and is rebound to a new array, while the body first writes the argument
through a view made before the loop: the first iteration must read the written
argument (the loop's first iteration is peeled), not the value it had on entry."""
import numpy as np

def f(x):
    s1 = 0
    u2 = x[:, 2]
    for i5 in range(len(u2)):
        t6 = x
        u2[:1] = u2[1:]
        x = t6 + t6
    return (x, s1)


def ARGS():
    return [np.array([[4, 2, -5, 5], [-3, 1, 1, -5]], dtype=np.int32)]


EXPECTED_BUG = 'mismatch:result:value'
KNOWN = None
