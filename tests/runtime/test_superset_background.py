"""Superset variants compile on a thread of their own, as users get them: a steady call
never waits for a variant's compile (about 1 s for a Gauss-Seidel sweep of 1000 x 1000,
paid by every call that met a new alignment offset). Calls run on the base executable,
with its memcpy, until the variant is published. The rest of the suite builds them on
the calling thread (tests/conftest.py)."""
import threading

import numpy as np
import pytest

from npxla.runtime.xla import superset

from tests.runtime.test_transfer import SIZE, _after_nans, _fresh, _shifter


def elementwise(a, b):
    return a * 2.0 + b


def stencil(a):
    a[1:-1] += 0.5 * (a[2:] - a[:-2])


@pytest.fixture
def background(monkeypatch):
    monkeypatch.setattr(superset, "BACKGROUND", True)
    yield
    superset.wait_for_variants()


def _gated_compile(monkeypatch, shifter):
    """The shifter's compile, held until the returned event is set; the modules it was
    given go to `gate.calls`."""
    gate, real = threading.Event(), shifter._compile
    gate.calls = []

    def compile_text(*args):
        assert threading.current_thread().name == "npxla-variant"
        gate.calls.append(args[0])
        gate.wait(timeout=60)
        return real(*args)
    monkeypatch.setattr(shifter, "_compile", compile_text)
    return gate


def test_calls_go_on_while_the_variant_compiles(background, monkeypatch):
    f = _fresh(elementwise)
    a, b = _after_nans(SIZE, 16), _after_nans(SIZE, 48)
    np.testing.assert_array_equal(f(a, b), elementwise(a, b))
    shifter = _shifter(f)
    gate = _gated_compile(monkeypatch, shifter)
    for _ in range(3):               # the first of these starts the build; none waits
        np.testing.assert_array_equal(f(a, b), elementwise(a, b))
        assert shifter.prepare([a, b])[1] is None
    assert (2, 6) in shifter._pending and (2, 6) not in shifter._variants
    gate.set()
    superset.wait_for_variants()
    assert shifter._variants[(2, 6)] and not shifter._pending
    assert len(gate.calls) == 1                     # one build, however many calls
    params, variant = shifter.prepare([a, b])
    assert variant is not None and params[0].ctypes.data == a.ctypes.data - 16
    for _ in range(2):               # NaN bytes before the arrays never reach a result
        np.testing.assert_array_equal(f(a, b), elementwise(a, b))


def test_in_place_updates_through_the_published_variant(background):
    f = _fresh(stencil)
    a = _after_nans(SIZE, 16)
    expected = a.copy()
    for _ in range(5):
        stencil(expected)
        f(a)
        np.testing.assert_array_equal(a, expected)
        superset.wait_for_variants()
    assert _shifter(f)._variants[(2,)]


def test_builds_in_flight_count_towards_the_limit(background, monkeypatch):
    monkeypatch.setattr(superset, "_MAX_VARIANTS", 2)
    f = _fresh(elementwise)
    arrays = [(_after_nans(SIZE, off), _after_nans(SIZE, 0)) for off in (16, 32, 48)]
    f(*arrays[0])
    shifter = _shifter(f)
    gate = _gated_compile(monkeypatch, shifter)
    for _ in range(2):
        for a, b in arrays:
            np.testing.assert_array_equal(f(a, b), elementwise(a, b))
    assert shifter._pending == {(2, 0), (4, 0)}
    assert shifter._variants == {(6, 0): False}     # over the limit while two build
    gate.set()
    superset.wait_for_variants()
    assert shifter._variants[(2, 0)] and shifter._variants[(4, 0)]


def test_a_failed_build_leaves_the_base_executable(background, monkeypatch):
    f = _fresh(elementwise)
    a, b = _after_nans(SIZE, 16), _after_nans(SIZE, 48)
    f(a, b)
    shifter = _shifter(f)

    def broken(*args):
        raise RuntimeError("the compile failed")
    monkeypatch.setattr(shifter, "_compile", broken)
    f(a, b)
    superset.wait_for_variants()
    assert shifter._variants == {(2, 6): False} and not shifter._pending
    np.testing.assert_array_equal(f(a, b), elementwise(a, b))
