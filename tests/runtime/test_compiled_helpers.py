"""Functions a JIT compiler wrapped (Numba's `@njit`, `@vectorize`, `@guvectorize`)
converted as the Python they keep: packages written for Numba call their own compiled helpers, which
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


class _GUFunc:
    """Stands for Numba's `@guvectorize` wrapper: the Python function, its layout and
    loop types; called plainly, NumPy's loop over the loop dimensions (outputs passed
    in, a `()` core as a 1-element array), which is what Numba's compiled loop does."""

    def __init__(self, fn, signature, loops):
        self._dispatcher = types.SimpleNamespace(py_func=fn)
        self.signature = signature
        nin = signature.split("->")[0].count("(")
        self.ufunc = types.SimpleNamespace(types=loops, nin=nin)
        self._cores = [[tuple(d for d in g.strip("()").split(",") if d)
                        for g in part.split("),")]
                       for part in signature.replace(" ", "").split("->")]

    def __call__(self, *args):
        ins, outs = self._cores
        spec = next(t for t in self.ufunc.types
                    if all(np.can_cast(np.asarray(a).dtype, c, "safe")
                           for a, c in zip(args, t.split("->")[0])))
        arrays = [np.asarray(a, dtype=c) for a, c in zip(args, spec.split("->")[0])]
        sizes = {d: n for a, core in zip(arrays, ins)
                 for d, n in zip(core, a.shape[a.ndim - len(core):])}
        loop = np.broadcast_shapes(*(a.shape[:a.ndim - len(c)] for a, c in zip(arrays, ins)))
        arrays = [np.broadcast_to(a if c else a[..., None],
                                  loop + (tuple(sizes[d] for d in c) or (1,)))
                  for a, c in zip(arrays, ins)]
        results = [np.zeros(loop + (tuple(sizes[d] for d in c) or (1,)), o)
                   for c, o in zip(outs, spec.split("->")[1])]
        for idx in np.ndindex(*loop):
            self._dispatcher.py_func(*[a[idx] for a in arrays], *[r[idx] for r in results])
        results = [r if c else r[..., 0] for r, c in zip(results, outs)]
        results = [r[()] if r.ndim == 0 else r for r in results]     # ufuncs give scalars
        return results[0] if len(results) == 1 else tuple(results)


_GUFunc.__module__ = "numba.np.ufunc.gufunc"
_GUFunc.__name__ = _GUFunc.__qualname__ = "GUFunc"


def _crps_like(observation, forecasts, result):
    # a kernel in properscoring's style: a `()` input read as observation[0], early
    # bare returns on data, a break, the output written through result[0]
    obs = observation[0]
    if np.isnan(obs):
        result[0] = np.nan
        return
    total = 0.0
    for n in range(forecasts.shape[0]):
        if np.isnan(forecasts[n]):
            break
        total += abs(forecasts[n] - obs)
    result[0] = total / forecasts.shape[0]


def _running(a, out, last):
    acc = a[0] - a[0]
    for i in range(a.shape[0]):
        acc += a[i]
        out[i] = acc
    last[0] = acc


crps_like = _GUFunc(_crps_like, "(),(n)->()", ["dd->d"])
running = _GUFunc(_running, "(n)->(n),()", ["l->ll", "d->dd"])


def _score(obs, fc):
    return crps_like(obs, fc).mean(), crps_like(obs, fc)


def _running_both(a):
    return running(a)


def test_a_guvectorize_function_runs_its_python_in_a_loop():
    rng = np.random.default_rng(8)
    obs, fc = rng.standard_normal(7), rng.standard_normal((7, 5))
    obs[2], fc[4, 3] = np.nan, np.nan
    check(_score, obs, fc)
    check(_score, obs[:, None], fc[None, :3])            # broadcast loop dimensions
    check(_running_both, rng.integers(0, 9, (3, 4)))      # int64 loop, two outputs
    check(_running_both, rng.standard_normal((2, 3, 4)))
    check(_running_both, rng.integers(0, 9, 4).astype(np.int32))   # cast to the int64 loop


def _dot_like(a, b, out):
    out[0] = (a * b).sum()


dot_like = _GUFunc(_dot_like, "(n),(n)->()", ["dd->d"])


def test_guvectorize_layout_errors_are_numpys():
    with pytest.raises(ValueError, match="mismatch in its core dimension"):
        jit(lambda a, b: dot_like(a, b))(np.ones(3), np.ones((2, 4)))
    with pytest.raises(ValueError):                     # loop dimensions (3,) and (4,)
        jit(_score)(np.ones(3), np.ones((4, 5)))
    with pytest.raises(TypeError, match="not supported for the input types"):
        jit(_running_both)(np.ones(3, np.complex128))


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

    gu = numba.guvectorize(["void(float64[:], float64[:], float64[:])"], "(),(n)->()",
                           nopython=True)(_crps_like)
    obs, fc = x[:, 0], x
    np.testing.assert_allclose(jit(lambda o, f: gu(o, f))(obs, fc), gu(obs, fc), rtol=1e-12)
