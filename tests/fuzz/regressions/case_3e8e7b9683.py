"""Fuzzer regression (seed 4249): crash:ValueError:operands could not be broadcast together:np=RuntimeError."""
import numpy as np

def f(y):
    for i2 in range(y.shape[1]):
        y[i2 + 1:, i2:] -= y[i2 + 1:, i2:i2 + 1]
    raise RuntimeError('fuzz')


def ARGS():
    return [np.array([[-3, 0, -4], [-5, 3, -4], [-3, 5, -4]], dtype=np.int64)]


EXPECTED_BUG = 'crash:ValueError:operands could not be broadcast together:np=RuntimeError'
KNOWN = None

# File "/tmp/devpath/npxla/runtime/driver/jitted.py", line 327, in _call
#     return entry.run(leaves + list(extra) if extra else leaves, self._output)
#            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
#   File "/tmp/devpath/npxla/runtime/driver/jitted.py", line 121, in run
#     raise raise_for(st.error_messages[int(np.argmax(flags))], payloads)
# ValueError: operands could not be broadcast together
# /tmp/npxla_fuzz_4d6we6fd/p_35.py:5:9
#             y[i2 + 1:, i2:] -= y[i2 + 1:, i2:i2 + 1]
#             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
