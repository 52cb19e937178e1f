"""A module of @jit functions in every decorator spelling, used by test_cli_convert:
`npxla convert` turns it into plain Python that must compute the same results."""
from __future__ import annotations

import functools
import math

import numpy as np

import npxla
from npxla import jit
from npxla import jit as njit

SCALE = 2.0


def helper(v):
    """Not jitted: called from jitted code (converted when it runs)."""
    if v.sum() > 0:
        return v * SCALE
    return -v


@jit
def branches(x, t):
    s = x.sum()
    if s > t:
        r = x - t
    elif s > 0:
        r = x * 2
    else:
        r = -x
    return r


@jit(static_argnums=1)
def newton(a, iters):
    x = a
    k = 0
    while np.max(np.abs(x * x - a)) > 1e-12 and k < iters:
        x = 0.5 * (x + a / x)
        k += 1
    return x, k


@npxla.jit
def first_above(x, t):
    idx = -1
    for i, v in enumerate(x):
        if v > t:
            idx = i
            break
    return idx


@njit
def skip_negative(x):
    total = 0.0
    for i in range(x.shape[0]):
        if x[i] < 0:
            continue
        total = total + x[i]
    return total


@functools.partial(jit, static_argnames=("n",))
def early_return(x, n):
    for i in range(n):
        if x[i] > 10:
            return x[i]
    return -1.0


@jit
def expressions(x, lo, hi):
    a = x if lo < x.sum() <= hi else -x
    b = lo > 0 and hi > 0 or not lo
    c = [x[i] * 2 if x[i] > 0 else -x[i] for i in range(x.shape[0])]
    return a, b, sum(c)


@jit
def in_place(u, alpha):
    u = u.copy()
    for _ in range(3):
        u[1:-1] = u[1:-1] + alpha * (u[2:] - 2 * u[1:-1] + u[:-2])
    u[0] += 1.0
    return u


@jit
def nested(x):
    def inner(y):
        if y.sum() > 0:
            return y + 1
        return y - 1
    sq = lambda z: z * z  # noqa: E731
    return inner(sq(x)) + helper(x) + math.sqrt(4.0)


def plain_then_jit(x):
    while x.max() > 1:
        x = x / 2
    return x


wrapped = jit(plain_then_jit)


@jit
def calls_jitted(x, t):
    return branches(x, t) + first_above(x, t)


def not_jitted(x):
    return x + 1
