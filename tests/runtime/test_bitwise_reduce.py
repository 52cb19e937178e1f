"""`np.bitwise_and.reduce`, `np.bitwise_or.reduce` and `np.bitwise_xor.reduce` against
NumPy: integer and bool dtypes, axes (the default 0, None, a tuple, negative),
`keepdims`, `initial`, `where` (the op's identity where it is false: every bit set for
`and`), `dtype`, empty reductions (the identity), arrays large enough for
`lowering/split_reductions` to split, and NumPy's TypeError for floats."""
import numpy as np
import pytest
from differential import check

from npxla import jit
from npxla.runtime.lowering import split_reductions

RNG = np.random.default_rng(71)
DTYPES = [np.bool_, np.int8, np.uint8, np.int32, np.uint16, np.int64, np.uint64]


def many_forms(x):
    return (np.bitwise_and.reduce(x), np.bitwise_or.reduce(x, axis=1),
            np.bitwise_xor.reduce(x, axis=None), np.bitwise_and.reduce(x, axis=(0, 1)),
            np.bitwise_or.reduce(x, axis=-1, keepdims=True),
            np.bitwise_xor.reduce(x, axis=0, keepdims=True))


def with_options(x):
    return (np.bitwise_and.reduce(x, axis=1, where=x[0] > 3),
            np.bitwise_or.reduce(x, axis=0, where=x > 10),
            np.bitwise_xor.reduce(x, axis=None, initial=x.dtype.type(5)),
            np.bitwise_and.reduce(x, axis=0, initial=x.dtype.type(6)),
            np.bitwise_or.reduce(x[:0], axis=0), np.bitwise_and.reduce(x[:, :0], axis=1),
            np.bitwise_xor.reduce(x, dtype=np.int64, axis=1))


def _data(dtype, shape):
    if dtype == np.bool_:
        return RNG.random(shape) > 0.3
    info = np.iinfo(dtype)
    return RNG.integers(max(info.min, -(2 ** 40)), min(info.max, 2 ** 40), shape,
                        endpoint=True).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_reductions_match_numpy(dtype):
    x = _data(dtype, (5, 9))
    check(many_forms, x)
    if dtype != np.bool_:
        check(with_options, x)


@pytest.mark.parametrize("dtype", [np.int64, np.uint8, np.bool_])
def test_large_reductions_split_and_match(dtype):
    n = 10 * split_reductions.MIN_ELEMENTS + 7
    check(lambda x: (np.bitwise_and.reduce(x | x.dtype.type(1)), np.bitwise_or.reduce(x),
                     np.bitwise_xor.reduce(x)), _data(dtype, n))
    check(lambda m: np.bitwise_xor.reduce(m, axis=1), _data(dtype, (3, n)))


def test_float_input_raises_numpys_type_error():
    def xor_floats(x):
        return np.bitwise_xor.reduce(x)
    with pytest.raises(TypeError, match="bitwise_xor"):
        xor_floats(np.ones(3))
    with pytest.raises(TypeError, match="bitwise_xor"):
        jit(xor_floats)(np.ones(3))
