"""Fuzzer regression (seed 4347): crash:ValueError:operands could not be broadcast together."""
import numpy as np

def f(x, y):
    for i4 in range(x.shape[0], -1, -1):
        y[i4:, i4:] -= y[1:, i4:i4 + 1]


def ARGS():
    return [np.array([[-0.2671892046928406, 1.2536468505859375], [-0.4586409628391266, 0.5316423773765564]], dtype=np.float32), np.array([[1.3546808913837052, -0.7667834760518545], [1.486474595923083, -0.21052840308976378]], dtype=np.float64)]


EXPECTED_BUG = 'crash:ValueError:operands could not be broadcast together'
KNOWN = None

# File "/tmp/devpath/npxla/runtime/driver/jitted.py", line 327, in _call
#     return entry.run(leaves + list(extra) if extra else leaves, self._output)
#            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
#   File "/tmp/devpath/npxla/runtime/driver/jitted.py", line 121, in run
#     raise raise_for(st.error_messages[int(np.argmax(flags))], payloads)
# ValueError: operands could not be broadcast together
# /tmp/npxla_fuzz_4d6we6fd/p_191.py:5:9
#             y[i4:, i4:] -= y[1:, i4:i4 + 1]
#             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
