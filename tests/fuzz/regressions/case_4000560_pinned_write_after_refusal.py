"""Fuzzer regression (seed 4000560, features effects and helpers_pkg):
mismatch:refused-but-changed. `st.buf` is baked in by value (the `while` needs it), so
the installed helper runs plain NumPy on the caller's array while staging; the later
refusal (a traced store into that baked array) left the helper's write in place."""
import numpy as np
from fuzzpkg import h15


class State:

    def __init__(self, acc, count, buf):
        self.acc = acc
        self.count = count
        self.buf = buf


def f(x, st):
    for i1 in range(x.shape[0]):
        u12 = st.buf[:, -2]
        k14 = 0
        while np.all(st.buf < 1):
            if k14 >= 3:
                break
            k14 += 1
            st.count -= 3
        h15(u12)
        st.buf[i1:] = st.acc.sum()


def ARGS():
    return [np.array([[0.328331857919693, 0.8034334182739258], [1.351144790649414, -1.024734377861023], [0.49122950434684753, -1.147125244140625]], dtype=np.float32), State(np.array([[0.153294898941752, -0.1378112324421063], [-1.4730946081934946, 1.0093357978897912], [-0.4057319683614207, -0.03526191934056645]], dtype=np.float64), 0, np.array([[0.3057476580142975, 0.2841499447822571], [0.02036977931857109, -0.09147608280181885], [0.7459381222724915, 0.15911899507045746]], dtype=np.float32))]


EXPECTED_BUG = 'mismatch:refused-but-changed'


# the installed package `fuzzpkg` (see `regress.load`)
__fuzz_package__ = 'fuzzpkg'
import numpy as np

def h15(a):
    a[1:3] *= np.count_nonzero(a)
