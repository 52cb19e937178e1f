"""Fuzzer regression (seed 5016): crash:ValueError:operands could not be broadcast together."""
import numpy as np

def f(x, y):
    for i3 in range(len(y)):
        x[i3 + 1:, i3 + 1:] -= x[i3:i3 + 1, i3 + 1:]


def ARGS():
    return [np.array([[-0.33908285860126114, -0.8293808264633034, 0.9905657701430082, -0.9862461318514436], [0.05237264530533637, -0.8947899590088619, -0.2588588904776912, 2.1692339551365594], [-1.251048145809694, 0.5439048949694913, -1.8773939491176395, -0.054973019680973484]], dtype=np.float64), np.array([[5, 0, -3, -1], [1, -2, -1, -3], [-1, 5, -1, 3]], dtype=np.int64)]


EXPECTED_BUG = 'crash:ValueError:operands could not be broadcast together'
KNOWN = None

# File "/tmp/devpath/npxla/runtime/driver/jitted.py", line 327, in _call
#     return entry.run(leaves + list(extra) if extra else leaves, self._output)
#            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
#   File "/tmp/devpath/npxla/runtime/driver/jitted.py", line 121, in run
#     raise raise_for(st.error_messages[int(np.argmax(flags))], payloads)
# ValueError: operands could not be broadcast together
# /tmp/npxla_fuzz_jl816_eo/p_143.py:5:9
#             x[i3 + 1:, i3 + 1:] -= x[i3:i3 + 1, i3 + 1:]
#             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
