"""Objects of the user's classes constructed inside a jitted function: their `__init__`
is converted like any method, so the arrays it makes (`self.buf = np.zeros(n)`) are
arrays of the program, which later methods may write traced values into. Run as plain
Python, that `__init__` made NumPy arrays, and the first write of a traced value into
one was refused as "an array that was not created inside the compiled function"
(filterpy's UnscentedKalmanFilter: `self.sigmas_f[i] = fx(s, dt)`)."""
import abc
import dataclasses

import numpy as np
import pytest

from npxla import jit
from tests.differential import check


class Rows:
    def __init__(self, n, width):
        self.buf = np.zeros((n, width))
        self.count = 0

    def put(self, v):
        self.buf[self.count] = v
        self.count += 1


def fill_rows(x):
    r = Rows(x.shape[0], x.shape[1])
    for i in range(x.shape[0]):
        r.put(x[i] * 2.0 + 1.0)
    return r.buf, r.count


class ScaledRows(Rows):
    def __init__(self, n, width, scale):
        super().__init__(n, width)
        self.scale = scale

    def put(self, v):
        super().put(v * self.scale)


def fill_scaled(x, s):
    r = ScaledRows(x.shape[0], x.shape[1], s)
    for i in range(x.shape[0]):
        r.put(x[i])
    r.buf[0, 0] += x[0, 0]           # an in-place update through the attribute
    return r.buf


class Normaliser:
    def __init__(self, x):
        if x.max() > 0:              # a branch on array data, in __init__
            self.scale = x.max()
        else:
            self.scale = 1.0
        self.out = np.empty_like(x)

    def apply(self, x):
        self.out[:] = x / self.scale
        return self.out


def normalise(x):
    return Normaliser(x).apply(x)


class Base(abc.ABC):
    @abc.abstractmethod
    def step(self, x):
        ...


class Doubler(Base):
    __slots__ = ("acc",)

    def __init__(self, n):
        self.acc = np.zeros(n)

    def step(self, x):
        self.acc += 2 * x
        return self.acc


def doubled(x):
    d = Doubler(x.shape[0])
    d.step(x)
    return d.step(x)


@dataclasses.dataclass
class Pair:
    a: np.ndarray
    b: float = 1.0


def with_dataclass(x):
    p = Pair(x * 2)           # a generated __init__ (no source file) runs as Python
    return p.a + p.b


class Holder:
    def __init__(self, x):
        self.x = x


def returns_object(x):
    h = Holder(x + 1)
    h.x[0] = -5.0
    return h


@pytest.mark.parametrize("fn, args", [
    (fill_rows, (np.arange(12.0).reshape(4, 3),)),
    (fill_scaled, (np.arange(6.0).reshape(3, 2), 0.5)),
    (normalise, (np.array([1.0, 4.0, 2.0]),)),
    (normalise, (np.array([-1.0, -4.0]),)),
    (doubled, (np.arange(5.0),)),
    (with_dataclass, (np.arange(3.0),)),
], ids=["buffer", "subclass-super", "branch-in-init", "branch-other-side", "abc-slots",
        "dataclass"])
def test_objects_constructed_in_the_call_match_numpy(fn, args):
    check(fn, *args)


def test_an_object_made_in_the_call_is_returned_with_the_runs_values():
    x = np.arange(3.0)
    h = jit(returns_object)(x)
    assert isinstance(h, Holder)
    np.testing.assert_array_equal(h.x, [-5.0, 2.0, 3.0])
    np.testing.assert_array_equal(x, [0.0, 1.0, 2.0])


def test_an_abstract_class_still_refuses_construction():
    def make_base(x):
        return Base().step(x)
    with pytest.raises(TypeError, match="abstract"):
        jit(make_base)(np.ones(2))


class Declared:
    def __init__(self, n):
        self.table: np.ndarray            # declared here, assigned below
        self.table = np.zeros(n)

    def fill(self, x):
        self.table[:] = x * 3.0
        return self.table


def declared_then_filled(x):
    return Declared(x.shape[0]).fill(x)


def test_an_attribute_annotation_without_a_value_stores_nothing():
    # numdifftools' _Limit.__init__ (`self.richardson: RichardsonLike`) was refused as
    # "deleting an attribute or binding it as a for/with target" once __init__ converted
    check(declared_then_filled, np.arange(4.0))
