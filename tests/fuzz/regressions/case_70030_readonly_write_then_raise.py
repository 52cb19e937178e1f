"""Fuzzer regression (seed 70030, family `arg_layouts`): crash:RuntimeError:fuzz:np=ValueError.
A write into a read-only argument, then a `raise`: NumPy raises `ValueError:
assignment destination is read-only` at the write; npxla checks the read-only
argument after the run, so the later `RuntimeError('fuzz')` (or a failed `assert`)
is raised instead."""
import numpy as np

def f(z):
    z *= z
    raise RuntimeError('fuzz')


def ARGS():
    return [(_a := np.array([[-3, -2, 1], [5, 1, -2], [4, 3, 3], [1, -1, -3]], dtype=np.int32)[:, ::-1], _a.setflags(write=False))[0]]


EXPECTED_BUG = 'crash:RuntimeError:fuzz:np=ValueError'

# File "/work/main/runtime/driver/staging.py", line 135, in _finish
#     result = fn(*call_args, **call_kwargs)
#              ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
#   File "/tmp/npxla_fuzz_ygaim0jq/p_104.py", line 5, in f
#     raise RuntimeError('fuzz')
# RuntimeError: fuzz
# /tmp/npxla_fuzz_ygaim0jq/p_104.py:5:5
#         raise RuntimeError('fuzz')
#         ^^^^^^^^^^^^^^^^^^^^^^^^^^
