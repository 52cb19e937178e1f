"""Fuzzer regression (seed 123038): crash:TypeError:vector_norm() missing N required positional argument: Q."""
import numpy as np

def f(x, y):
    if np.linalg.norm(x[y[1, 0]:, 1]):
        pass


def ARGS():
    return [np.array([[-0.8717032084650902, 0.8299235719480444], [-0.09201820304986527, -0.1147160505046688], [0.9551014710759075, 0.6582071366745845]], dtype=np.float64), np.array([[1, 4], [-1, 5], [-1, 3]], dtype=np.int64)]


EXPECTED_BUG = 'crash:TypeError:vector_norm() missing N required positional argument: Q'
KNOWN = None

# File "/tmp/devpath/npxla/runtime/numpy/registry.py", line 163, in _call_entry
#     return bounded_layer.call(entry, fn, args, kwargs)
#            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
#   File "/tmp/devpath/npxla/runtime/numpy/bounded_methods.py", line 78, in call
#     return handler(fn, args, kwargs)
#            ^^^^^^^^^^^^^^^^^^^^^^^^^
# TypeError: vector_norm() missing 1 required positional argument: 'kwargs'
# /tmp/npxla_fuzz_5na3gyax/p_82.py:4:8
#         if np.linalg.norm(x[y[1, 0]:, 1]):
#            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
