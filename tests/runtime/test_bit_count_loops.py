"""Kernighan's bit count (`while v: v &= v - 1; c += k`) runs as one `popcnt`
(`converters/bit_count_loops.py`, `operators/bit_loops.py`), bit for bit NumPy's loop
for every integer dtype, the most negative value included; a Python int, a float
count or another loop shape keeps the loop."""
import numpy as np
import pytest

from benchmarks.loop_kernels import xorshift_popcount
from differential import check
from npxla import jit

RNG = np.random.default_rng(23)


def kernighan(xs):
    out = np.zeros(xs.shape[0], dtype=np.int64)
    for i in range(xs.shape[0]):
        v = xs[i]
        c = np.int64(3)
        while v != 0:
            c += 2
            v = v & (v - 1)
        out[i] = c + v
    return out


def kernighan_python_count(x):
    v = x[0]
    c = 0
    while v:
        v &= v - np.uint64(1)
        c += 1
    return c, v


def float_count(x):
    v = x[0]
    c = 0.5
    while v:
        v &= v - 1
        c += 1
    return c


def python_int(n):
    c = 0
    v = n
    while v:
        v &= v - 1
        c += 1
    return c


@pytest.mark.parametrize("dtype", [np.uint64, np.int64, np.int32, np.uint8, np.int16])
def test_every_dtype_and_the_extremes(dtype):
    info = np.iinfo(dtype)
    xs = RNG.integers(info.min, info.max, 60, dtype=dtype, endpoint=True)
    xs[:3] = [0, info.min, info.max]
    with np.errstate(over="ignore"):
        check(kernighan, xs, rtol=0, atol=0)
    text = jit(kernighan).lower(xs).as_text()
    assert "stablehlo.popcnt" in text and text.count("stablehlo.while") <= 1


def test_python_count_and_its_type():
    x = np.array([0xF0F0F0F0F0F0F0F0, 0], dtype=np.uint64)
    out = check(kernighan_python_count, x, rtol=0, atol=0)
    assert type(out[0]) is int


@pytest.mark.parametrize("fn,arg", [(float_count, np.array([7, 1], dtype=np.int64)),
                                    (python_int, 12345)])
def test_other_counts_keep_the_loop(fn, arg):
    check(fn, arg, rtol=0, atol=0)


def test_the_benchmark_kernel():
    seeds = RNG.integers(1, 2 ** 63, 300, dtype=np.uint64)
    check(xorshift_popcount, seeds, 8, rtol=0, atol=0)
    assert "stablehlo.popcnt" in jit(xorshift_popcount).lower(seeds, 8).as_text()
