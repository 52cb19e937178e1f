"""Functions for test_cli_emit (`npxla emit` imports this file)."""
import numpy as np

from npxla import jit

print("module-level print goes to stderr while emit imports the file")


@jit
def step(x, n):
    y = x * 2.0
    if y.sum() > n:
        y = y - 1.0
    return y


def annotated(x: "f32[4]", k: int, s: "f64" = 1.0):
    return x * k + s


def scalar_types(x: np.float32, flag: bool):
    return x if flag else -x


def no_shape(x: np.ndarray):
    return x


@jit(static_argnums=2)
def heat(u, alpha, steps):
    for _ in range(steps):
        u[1:-1] = u[1:-1] + alpha * (u[2:] - 2 * u[1:-1] + u[:-2])
    return u


def make(n, x):
    return np.zeros(n) + x


def repeated(x):
    return np.repeat(x, (x > 0).astype(np.int64))


def mismatch(x, y):
    return x + y


class Model:
    @staticmethod
    def forward(x):
        return np.tanh(x)


if __name__ == "__main__":
    raise SystemExit("the __main__ block must not run")
