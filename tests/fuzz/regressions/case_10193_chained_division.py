"""Fuzzer regression (seed 10193, family `exact_float`): mismatch:result:value. A
quotient divided again, `x / 10.0 / 0.1`, is computed by XLA as `x / (10.0 * 0.1)`
(its algebraic simplifier rewrites (A / B) / C as A / (B * C), here A / 1.0): NumPy
rounds twice, so the last bit differs (for about a quarter of the elements; also for
`(x / y) / z` of arrays, and across statements). Compared bit for bit
(`__fuzz_exact__`)."""
import numpy as np
__fuzz_exact__ = True

def f(x3):
    t5 = x3 / 10.0 / 0.1
    return t5


def ARGS():
    return [np.array([-0.8806609309517665, 0.9044957992661992, -1.360930559098751, 1.336390506398624], dtype=np.float64)]



# Not equal to tolerance rtol=0, atol=0
# result
# Mismatched elements: 1 / 4 (25%)
# Mismatch at index:
#  [0]: -0.8806609309517665 (ACTUAL), -0.8806609309517663 (DESIRED)
