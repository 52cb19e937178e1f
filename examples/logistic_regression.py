"""Logistic regression by batch gradient descent, stopping when the gradient is small.

Run: python examples/logistic_regression.py [--size small|medium|large]
"""
import numpy as np

from _harness import Example
from npxla import jit


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


@jit
def logistic_regression(X, y, lr=0.5, tol=1e-6, max_iter=2000):
    n, d = X.shape
    w = np.zeros(d)
    b = 0.0
    for it in range(max_iter):
        p = sigmoid(X @ w + b)
        grad_w = X.T @ (p - y) / n
        grad_b = np.mean(p - y)
        w -= lr * grad_w
        b -= lr * grad_b
        if np.sqrt(grad_w @ grad_w + grad_b ** 2) < tol:
            break
    return w, b, it + 1


def make_inputs(n, rng):
    d = 10
    X = rng.normal(size=(n, d))
    true_w = rng.normal(size=d)
    y = (rng.random(n) < 1.0 / (1.0 + np.exp(-(X @ true_w)))).astype(np.float64)
    return X, y


EXAMPLE = Example(logistic_regression, make_inputs,
                  sizes={"small": 100, "medium": 20_000, "large": 500_000},
                  rtol=1e-7, atol=1e-9, description="n samples, 10 features")

if __name__ == "__main__":
    EXAMPLE.main()
