"""Fuzzer regression (seed 77090): crash:ValueError:operands could not be broadcast together."""
import numpy as np

def f(x):
    for i4 in range(len(x), 1, -1):
        x[i4:, i4:] -= x[i4:, i4:i4 + 1]


def ARGS():
    return [np.array([[5, 2, 5, -3], [0, -5, 0, -3], [5, 5, -3, 2]], dtype=np.int32)]


EXPECTED_BUG = 'crash:ValueError:operands could not be broadcast together'
KNOWN = None

# File "/tmp/devpath/npxla/runtime/driver/jitted.py", line 327, in _call
#     return entry.run(leaves + list(extra) if extra else leaves, self._output)
#            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
#   File "/tmp/devpath/npxla/runtime/driver/jitted.py", line 121, in run
#     raise raise_for(st.error_messages[int(np.argmax(flags))], payloads)
# ValueError: operands could not be broadcast together
# /tmp/npxla_fuzz_l4qim1gu/p_126.py:5:9
#             x[i4:, i4:] -= x[i4:, i4:i4 + 1]
#             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
