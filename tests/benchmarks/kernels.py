"""The benchmark kernels: the NumPy originals, their inputs and their families.

Each kernel is plain NumPy code as found in legacy programs. The suite-defined ones are
written here; the others are the `examples/` programs, imported by name (their `@jit`
function's `__wrapped__` is the unmodified original). The JAX hand ports live in
`ports.py` under the same names.

This module imports neither npxla nor JAX, so that `coldstart.py` can time a fresh
process that imports only what one peer needs.
"""
from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

EXAMPLES_DIR = Path(__file__).resolve().parents[2] / "examples"
FAMILIES = ("elementwise", "reductions", "stencils", "solvers", "recurrences", "matrix")


# --- suite-defined kernels (unchanged NumPy; npxla and Numba compile these sources) ------

def ew_chain(x):
    y = np.exp(-0.5 * x * x) * np.sin(3.0 * x) + np.sqrt(np.abs(x)) - np.tanh(x)
    return np.where(y > 0, y, 0.1 * y)


def logsumexp_rows(x):
    m = np.max(x, axis=1)
    return m + np.log(np.sum(np.exp(x - m[:, np.newaxis]), axis=1))


def summary_stats(x):
    return x.mean(), x.std(), x.min(), x.max(), np.argmax(x)


def standardize_cols(X):
    X = X - X.mean(axis=0)
    return X / X.std(axis=0)


def blur3x3(img):
    out = img.copy()
    out[1:-1, 1:-1] = (img[:-2, :-2] + img[:-2, 1:-1] + img[:-2, 2:]
                       + img[1:-1, :-2] + img[1:-1, 1:-1] + img[1:-1, 2:]
                       + img[2:, :-2] + img[2:, 1:-1] + img[2:, 2:]) / 9.0
    return out


def newton_sqrt(a, tol=1e-12):
    x = a
    while np.max(np.abs(x * x - a)) > tol:
        x = 0.5 * (x + a / x)
    return x


def linear_recurrence(a, b):
    y = np.empty_like(b)
    y[0] = b[0]
    for i in range(1, b.shape[0]):
        y[i] = a[i] * y[i - 1] + b[i]
    return y


def running_max_drawdown(prices):
    peak = prices[0]
    worst = 0.0
    for i in range(1, prices.shape[0]):
        if prices[i] > peak:
            peak = prices[i]
        drawdown = (peak - prices[i]) / peak
        worst = drawdown if drawdown > worst else worst
    return worst


def mlp_chain(x, W1, W2, W3):
    h = np.tanh(x @ W1)
    h = np.tanh(h @ W2)
    return h @ W3


def add1(x):
    """The dispatch-overhead probe: one tiny elementwise op."""
    return x + 1


def axpy(a, x, y):
    """Dispatch with three arguments, one of them a Python float."""
    return a * x + y


def sum_and_scale(x):
    """Dispatch with two results (a 0-d one and an array)."""
    return x.sum(), x * 2.0


# --- inputs ------------------------------------------------------------------------------

def _vector(n, rng):
    return rng.normal(size=n),


def _positive(n, rng):
    return rng.uniform(1.0, 100.0, n),


def _rows(n, rng):                      # n = total elements, 100 per row
    return rng.normal(size=(max(n // 100, 1), 100)),


def _matrix(n, rng):                    # n = total elements
    side = max(int(round(n ** 0.5)), 3)
    return rng.normal(size=(side, side)),


def _recurrence(n, rng):
    return rng.uniform(-0.99, 0.99, n), rng.normal(size=n)


def _prices(n, rng):
    return 100.0 * np.exp(np.cumsum(0.01 * rng.normal(size=n))),


def _mlp(n, rng):                        # n = batch rows; 256 -> 256 -> 256 -> 16
    d = 256
    return (rng.normal(size=(n, d)), rng.normal(size=(d, d)) / 16, rng.normal(size=(d, d)) / 16,
            rng.normal(size=(d, 16)) / 16)


def _tiny(n, rng):
    return np.arange(4, dtype=np.float64),


# --- the kernel table --------------------------------------------------------------------

@dataclass
class Kernel:
    """One benchmark. `fn` is the NumPy original (or `example` names an examples/ module
    whose EXAMPLE supplies function and inputs). `sizes` maps a mode ("quick", "full",
    "smoke") to the size parameter passed to `make_inputs(n, rng)`. `jax_static` are the
    argument positions a JAX user would mark static (loop counts, shapes)."""
    name: str
    family: str
    fn: Callable | None = None
    make_inputs: Callable | None = None
    sizes: dict = field(default_factory=dict)
    example: str | None = None
    rtol: float = 1e-9
    atol: float = 1e-12
    jax_static: tuple = ()
    note: str = ""
    ports: str = "ports"        # the module of tests/benchmarks holding the JAX port

    def resolve(self):
        """(NumPy original, make_inputs): imports the example module when needed."""
        if self.example is None:
            return self.fn, self.make_inputs
        ex = load_example(self.example).EXAMPLE
        return ex.fn.__wrapped__, ex.make_inputs

    def original(self):
        return self.resolve()[0]

    def inputs(self, mode="full", n=None):
        n = self.sizes[mode] if n is None else n
        return self.resolve()[1](n, np.random.default_rng(0))

    @property
    def source(self):
        return f"examples/{self.example}.py" if self.example else "suite"


def load_example(name):
    if str(EXAMPLES_DIR) not in sys.path:
        sys.path.insert(0, str(EXAMPLES_DIR))
    return importlib.import_module(name)


def _ex(name, family, sizes, rtol, atol=1e-12, jax_static=(), note=""):
    return Kernel(name, family, example=name, sizes=sizes, rtol=rtol, atol=atol,
                  jax_static=jax_static, note=note)


def _s(fn, family, make_inputs, sizes, rtol=1e-9, atol=1e-12, jax_static=(), note=""):
    return Kernel(fn.__name__, family, fn, make_inputs, sizes, rtol=rtol, atol=atol,
                  jax_static=jax_static, note=note)


def _sizes(smoke, quick, full):
    return {"smoke": smoke, "quick": quick, "full": full}


KERNELS = [
    # elementwise chains
    _s(ew_chain, "elementwise", _vector, _sizes(100, 100_000, 1_000_000)),
    _ex("black_scholes", "elementwise", _sizes(100, 100_000, 1_000_000), 1e-10, 1e-10),
    _ex("horner", "elementwise", _sizes(100, 100_000, 1_000_000), 1e-12, 1e-14),
    _ex("mandelbrot", "elementwise", _sizes(16, 64, 200), 0, jax_static=(4, 5, 6)),
    # reductions
    _s(logsumexp_rows, "reductions", _rows, _sizes(400, 100_000, 1_000_000)),
    _s(summary_stats, "reductions", _vector, _sizes(100, 100_000, 1_000_000), 1e-9),
    _s(standardize_cols, "reductions", _rows, _sizes(400, 100_000, 1_000_000)),
    _ex("moving_average", "reductions", _sizes(4, 50, 200), 1e-9, 1e-9, jax_static=(1,)),
    # stencils
    _s(blur3x3, "stencils", _matrix, _sizes(400, 100_000, 1_000_000)),
    _ex("heat2d", "stencils", _sizes(16, 64, 256), 1e-12, 1e-12, jax_static=(2,)),
    _ex("game_of_life", "stencils", _sizes(16, 64, 256), 0, jax_static=(1,)),
    # iterative solvers with data-dependent loops
    _s(newton_sqrt, "solvers", _positive, _sizes(100, 100_000, 1_000_000)),
    _ex("jacobi", "solvers", _sizes(16, 100, 300), 1e-9),
    _ex("bisection", "solvers", _sizes(100, 10_000, 100_000), 0, 2e-12),
    _ex("power_iteration", "solvers", _sizes(16, 100, 300), 1e-7, 1e-9),
    _ex("logistic_regression", "solvers", _sizes(100, 1000, 5000), 1e-7, 1e-9),
    _ex("kmeans", "solvers", _sizes(64, 1000, 10_000), 1e-9),
    _ex("mandelbrot_loops", "solvers", _sizes(8, 24, 60), 0, jax_static=(2,)),
    # loops writing a[i] from a[i-1]
    _ex("prefix_scan", "recurrences", _sizes(50, 2000, 20_000), 0),
    _s(linear_recurrence, "recurrences", _recurrence, _sizes(50, 2000, 20_000), 1e-9),
    _s(running_max_drawdown, "recurrences", _prices, _sizes(50, 2000, 20_000), 1e-12),
    _ex("gauss_seidel", "recurrences", _sizes(12, 40, 100), 1e-9),
    # matrix work
    _s(mlp_chain, "matrix", _mlp, _sizes(8, 256, 1024), 1e-9),
    _ex("floyd_warshall", "matrix", _sizes(12, 64, 200), 0),
    _ex("lu_decomposition", "matrix", _sizes(8, 32, 100), 1e-10),
    _ex("nbody", "matrix", _sizes(16, 64, 256), 1e-9, jax_static=(4,)),
]

BY_NAME = {k.name: k for k in KERNELS}

# `--quick`: one or two kernels per family
QUICK = ("ew_chain", "black_scholes", "logsumexp_rows", "blur3x3", "heat2d", "newton_sqrt",
         "jacobi", "prefix_scan", "linear_recurrence", "mlp_chain")

# the scaling sweep: sizes 1e3 .. 1e6 (x10 steps)
SWEEP = ("ew_chain", "summary_stats", "linear_recurrence")
SWEEP_SIZES = {"smoke": (100, 1000), "quick": (1_000, 10_000, 100_000),
               "full": (1_000, 10_000, 100_000, 1_000_000)}

# dispatch overhead probes: 4-element arrays
DISPATCH = [
    Kernel("add1", "dispatch", add1, _tiny, {}),
    Kernel("axpy", "dispatch", axpy,
           lambda n, rng: (2.0, np.arange(4, dtype=np.float64), np.ones(4)), {}),
    Kernel("sum_and_scale", "dispatch", sum_and_scale, _tiny, {}),
]
DISPATCH_BY_NAME = {k.name: k for k in DISPATCH}

# kernels timed in a fresh process (cold vs warm disk cache)
COLDSTART = {"quick": ("ew_chain", "newton_sqrt"),
             "full": ("ew_chain", "logsumexp_rows", "newton_sqrt", "linear_recurrence",
                      "mlp_chain")}
