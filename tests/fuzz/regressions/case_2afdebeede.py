"""Fuzzer regression (seed 4369): crash:TypeError:vector_norm() missing N required positional argument: Q."""
import numpy as np

def f(y, z):
    z[3] = np.linalg.norm(y[y[3, 1]:, 2])


def ARGS():
    return [np.array([[-1, -4, 2], [-1, -5, -4], [1, 4, -5], [-4, 3, -2]], dtype=np.int32), np.array([-2.2349857002763027, -2.3150411176179886, 0.9732275574121763, 1.5269855057096522, -1.1554637606999387, 0.14582632227995596], dtype=np.float64)]


EXPECTED_BUG = 'crash:TypeError:vector_norm() missing N required positional argument: Q'
KNOWN = None

# File "/tmp/devpath/npxla/runtime/numpy/registry.py", line 163, in _call_entry
#     return bounded_layer.call(entry, fn, args, kwargs)
#            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
#   File "/tmp/devpath/npxla/runtime/numpy/bounded_methods.py", line 78, in call
#     return handler(fn, args, kwargs)
#            ^^^^^^^^^^^^^^^^^^^^^^^^^
# TypeError: vector_norm() missing 1 required positional argument: 'kwargs'
# /tmp/npxla_fuzz_4d6we6fd/p_248.py:4:12
#         z[3] = np.linalg.norm(y[y[3, 1]:, 2])
#                ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
