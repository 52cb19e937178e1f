"""Fuzzer regression (seed 123057): crash:ValueError:operands could not be broadcast together."""
import numpy as np

def f(x):
    for i7 in range(x.shape[1]):
        x[i7:, i7 + 1:] -= x[1:, i7:i7 + 1]


def ARGS():
    return [np.array([[-0.6898410845828069, -0.026622675638579906, -0.4781795049253408], [-0.8375420506690125, 0.6637800906789469, 0.6267843213711993]], dtype=np.float64)]


EXPECTED_BUG = 'crash:ValueError:operands could not be broadcast together'
KNOWN = None

# File "/tmp/devpath/npxla/runtime/driver/jitted.py", line 327, in _call
#     return entry.run(leaves + list(extra) if extra else leaves, self._output)
#            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
#   File "/tmp/devpath/npxla/runtime/driver/jitted.py", line 121, in run
#     raise raise_for(st.error_messages[int(np.argmax(flags))], payloads)
# ValueError: operands could not be broadcast together
# /tmp/npxla_fuzz_5na3gyax/p_152.py:5:9
#             x[i7:, i7 + 1:] -= x[1:, i7:i7 + 1]
#             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
