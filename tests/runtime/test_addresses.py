"""`runtime/xla/addresses.py`: the data pointer read from the array struct is NumPy's own,
for every kind of array the per-call path sees."""
import numpy as np
import pytest

from npxla.runtime.xla import addresses

BASE = np.arange(1000.0).reshape(20, 50)


@pytest.mark.parametrize("array", [
    BASE, BASE[7:, 3:], BASE.T, BASE[::3, ::-1], BASE.reshape(-1)[1:],
    np.empty(0), np.ones((), np.int16), np.zeros((4, 4), np.complex64)[1:, 1:],
    np.frombuffer(bytearray(64), np.uint8)[5:], np.ma.masked_array(BASE).data,
    np.asfortranarray(BASE)[2:],
], ids=lambda a: f"{a.dtype}{list(a.shape)}")
def test_the_address_is_numpys(array):
    assert addresses.data_address(array) == array.__array_interface__["data"][0]


def test_the_fast_read_is_used_here():
    """On CPython with NumPy's C layout the struct read is what the calls use."""
    assert addresses.data_address is addresses._fast
