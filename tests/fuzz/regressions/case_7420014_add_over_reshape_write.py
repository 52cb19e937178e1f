"""Fuzzer regression (seed 7420014): mismatch:result:value. `u2 = x.reshape(16)` of a
strided argument that NumPy can view (`[:, ::2]` of a wider array), then `u2 += 1.5`
and the overlapping `u2[1:3] = u2[:2]`: the write's operand is `add(reshape(x))`, and
XLA:CPU fused the add into the in-place write and read `u2[1]` after writing it (the
same with a contiguous argument, and under `jax.jit`). The write now goes through a
select (`lowering/inplace.py`), as for a reshape directly under it."""
import numpy as np

def f(x):
    s1 = x
    u2 = x.reshape(16)
    u2 += 1.5
    u2[1:3] = u2[:2]
    u5 = x[1:]
    u6 = u5.flatten()
    return (x, s1, u2, u6)


def ARGS():
    return [np.array([[-1.4645990345947053, 22.0, np.nan, 11.0, 0.7985120601935167, -44.0, -0.8788180702823264, -88.0], [-0.4706120241525322, -77.0, 1.2931651271919653, 88.0, -0.1849072567460786, -99.0, -1.3521763559263376, 88.0], [-0.44855089127729547, 88.0, -0.7127478119241121, 0.0, -1.3875209015795313, 0.0, 1.5857686623783052, 11.0], [-1.5653425960218321, -88.0, -np.inf, 99.0, -0.43310417548852376, 66.0, -0.5043369614678271, -88.0]], dtype=np.float64)[:, ::2]]


EXPECTED_BUG = 'mismatch:result:value'
KNOWN = None
