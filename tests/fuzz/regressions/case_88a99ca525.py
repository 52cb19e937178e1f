"""Fuzzer regression (seed 11913): crash:ValueError:fuzz."""
import numpy as np

def f(y):
    k1 = 0
    while k1 < 4 and -np.mean(y) > 1.5:
        k1 += 1
        raise ValueError('fuzz')


def ARGS():
    return [np.array([[0.6409086474008923, -0.7375339993459359], [1.2191040912523572, 1.938270386483875], [1.768109053366778, -1.1871330763080188], [-0.04352674217590162, -1.6730000745083273]], dtype=np.float64)]


EXPECTED_BUG = 'crash:ValueError:fuzz'
KNOWN = None

# File "/work/main/runtime/operators/loops.py", line 274, in run
#     new = tuple(body(*unflatten(treedef, iter(leaves))))
#                 ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
#   File "/tmp/npxla_fuzz_u7k9de32/p_2.py", line 7, in loop_body__0
#     raise ValueError('fuzz')
# ValueError: fuzz
# /tmp/npxla_fuzz_u7k9de32/p_2.py:7:9
#             raise ValueError('fuzz')
#             ^^^^^^^^^^^^^^^^^^^^^^^^
