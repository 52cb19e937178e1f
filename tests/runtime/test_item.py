"""`x.item(...)` on traced arrays (was refused): the element as the Python scalar NumPy
returns (float for any float dtype, int for any integer, bool, complex), by no index,
a flat index (constant or traced), a multi-index or a tuple; on arrays of run-time
length too; NumPy's ValueError/IndexError; inside a staged loop; and numpy-financial's
`irr`, which ends with `rate.item(np.argmin(np.abs(rate)))`."""
import numpy as np
import pytest

from npxla import jit

V = np.array([1.0, -2.0, 3.0, 2.0, 0.5])


def _same(got, want):
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    assert [type(g) for g in got] == [type(w) for w in want]
    assert got == want


def picks(v):
    m = v.reshape(1, 5)
    return (v[0].item(), v.item(2), v.item(-1), v.sum().item() + 1, np.argmax(v).item(),
            v.astype(np.float32)[1].item(), m.item(0, 3), m.item((0, 4)),
            m[0:1, 1:2].item(), v.item(np.argmin(np.abs(v))))


def kinds(v):
    return (v.astype(np.int8)[2].item(), v.astype(np.uint8).item(3), (v > 0).item(0),
            (v * 1j).item(1), v.astype(np.float16).item(4))


@pytest.mark.parametrize("fn", [picks, kinds], ids=lambda f: f.__name__)
def test_item_is_numpys_python_scalar(fn):
    _same(jit(fn)(V), fn(V))


def selected(v):
    y = v[v > 0]
    return y.item(1), y[y > 2.5].item(), y.item(-1)


def test_item_of_a_run_time_length_array():
    _same(jit(selected)(V), selected(V))


def only(v):
    return v[v > 0].item()


def far(v):
    return v.item(7)


def test_numpys_errors():
    for fn, error in ((only, ValueError), (far, IndexError)):
        with pytest.raises(error):
            fn(V)
        with pytest.raises(error):
            jit(fn)(V)
    with pytest.raises(ValueError, match="size 1"):
        jit(lambda v: v.item())(V)


def running(v):
    s = 0.0
    i = 0
    while s < 5.0 and i < 10:          # data-dependent: a staged loop
        s += v.item(i % 5)
        i += 1
    return s, i


def test_item_in_a_staged_loop():
    _same(jit(running)(V), running(V))


def test_numpy_financial_irr_shape_of_code():
    # numpy-financial's irr, unmodified in shape: roots, a mask, .item of an argmin
    def irr(values):
        res = np.roots(values[::-1])
        mask = (res.imag == 0) & (res.real > 0)
        if not mask.any():
            return np.nan
        res = res[mask].real
        rate = 1 / res - 1
        rate = rate.item(np.argmin(np.abs(rate)))
        return rate

    cf = np.r_[-1000.0, np.linspace(80.0, 260.0, 11)]
    want, got = irr(cf), jit(irr)(cf)
    assert type(got) is type(want) and got == want
