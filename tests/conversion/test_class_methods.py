"""Methods as legacy classes write them: private (name-mangled) attributes and helper
methods, and sources with lines less indented than the method (a column-0 comment, the
text of a multi-line string). Each compared with NumPy, the object's state included."""
import numpy as np
import pytest

from npxla import jit

from differential import _compare


class Model:
    def __init__(self):
        self.__w = np.arange(3.0)
        self.__steps = 0
        self.__dict__["__w"] = np.full(3, 100.0)     # a raw-named decoy: never read

    def __scale(self, x):
        return x * self.__w

    def step(self, x):
        self.__w = self.__w + x
        self.__steps += 1
        return self.__scale(x) + self.__steps

    def kernel(self, x):
# scop begin
        note = """
text at column 0
"""
        if x.sum() > 0:
            x = x * 2
# scop end
        return x + len(note)


@pytest.mark.parametrize("method", ["step", "kernel"])
def test_methods_match_numpy_and_leave_the_same_state(method):
    plain, staged = Model(), Model()
    run = jit(getattr(staged, method))
    for k in range(2):
        x = np.arange(3.0) - k
        _compare(getattr(plain, method)(x), run(x), 0, 0)
        _compare(dict(vars(plain)), dict(vars(staged)), 0, 0, "state")
    assert "_Model__w" in vars(staged) and np.all(vars(staged)["__w"] == 100.0)
