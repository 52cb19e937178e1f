"""Functions a JIT compiler wrapped (Numba's `@njit`, `@vectorize`) converted as the
Python they keep: packages written for Numba call their own compiled helpers, which
cannot take traced arrays, and `jit(f)` of such an `f` compiles its Python. The wrapper
classes are recognised by their module and name (`provenance._COMPILED_WRAPPERS`), so
the fakes below stand for Numba where it is not installed; the last test runs Numba
itself where it is."""
import math
import types

import numpy as np
import pytest

from differential import check
from npxla import jit
from npxla.runtime.operators.provenance import compiled_original


def _wrapper(module, name, **attrs):
    """An object of a class named `name` from `module`, as the compiler makes them."""
    cls = type(name, (), {"__call__": lambda self, *a: self.py_func(*a)
                          if hasattr(self, "py_func") else self._dispatcher.py_func(*a)})
    cls.__module__ = module
    sub = type("CPUDispatcher", (cls,), {})       # Numba's is a subclass of Dispatcher
    sub.__module__ = "numba.core.registry"
    obj = sub() if name == "Dispatcher" else cls()
    for k, v in attrs.items():
        setattr(obj, k, v)
    return obj


def _slope(x, y):
    n = x.shape[0]
    sx = sy = sxx = sxy = 0.0
    for i in range(n):
        sx += x[i]
        sy += y[i]
        sxx += x[i] * x[i]
        sxy += x[i] * y[i]
    return (n * sxy - sx * sy) / (n * sxx - sx * sx)


def _round_toward_zero(v):
    if v < 0:
        return math.ceil(v)
    return math.floor(v)


slope = _wrapper("numba.core.dispatcher", "Dispatcher", py_func=_slope)
fix = _wrapper("numba.np.ufunc.dufunc", "DUFunc",
               _dispatcher=types.SimpleNamespace(py_func=_round_toward_zero))


def fluctuation(x):
    """Calls a compiled helper with traced arrays, in a loop."""
    out = np.zeros(x.shape[0] // 10)
    t = np.arange(10.0)
    for k in range(out.shape[0]):
        out[k] = slope(t, x[10 * k:10 * k + 10])
    return out


def halves(n):
    """Calls an elementwise compiled function with a traced scalar."""
    return int(fix((n + 1) / 2.0)) * 2


def test_a_compiled_helper_is_converted():
    check(fluctuation, np.cumsum(np.random.default_rng(3).normal(size=200)), rtol=1e-12)


def test_an_elementwise_compiled_function_on_a_scalar():
    for n in (0, 7, 10, -7):
        assert jit(halves)(n) == halves(n)


def test_jit_of_a_compiled_function_compiles_its_python():
    x, y = np.arange(20.0), np.random.default_rng(4).normal(size=20)
    assert jit(slope)(x, y) == pytest.approx(_slope(x, y), rel=1e-12)


def test_only_known_wrappers_are_unwrapped():
    assert compiled_original(slope) is _slope
    assert compiled_original(fix) is None                 # elementwise: scalars only
    assert compiled_original(fix, elementwise=True) is _round_toward_zero
    other = _wrapper("mypackage.compiler", "Dispatcher", py_func=_slope)
    assert compiled_original(other) is None


def test_math_erf_and_erfc_of_traced_scalars():
    def cdf(x):
        return 0.5 * math.erfc(-x / math.sqrt(2.0)) + 0.0 * math.erf(x)
    f = jit(cdf)
    for x in (-8.0, -1.5, -0.3, 0.0, 0.7, 2.0, 6.0):
        assert f(x) == pytest.approx(cdf(x), rel=1e-14, abs=1e-300)


def test_numba_itself():
    numba = pytest.importorskip("numba")

    @numba.njit
    def inner(a):
        s = 0.0
        for v in a:
            s += v * v
        return s

    @numba.vectorize
    def clip01(v):
        return min(max(v, 0.0), 1.0)

    def outer(x):
        total = 0.0
        for i in range(x.shape[0]):
            total += inner(x[i]) * clip01(x[i, 0])
        return total

    x = np.random.default_rng(5).uniform(-0.5, 1.5, (6, 5))
    assert jit(outer)(x) == pytest.approx(outer(x), rel=1e-12)
    assert jit(inner)(x[0]) == pytest.approx(inner(x[0]), rel=1e-12)
