"""Nested staged loops are traced a number of times that grows with the nesting depth,
not exponentially: a loop nested in another is staged again in every trace of the outer
body, and it starts from what its last staging learnt (the handles it updates in place)
instead of retracing to discover them; a body's first run-time check adds the carried
check code without a retrace."""
import numpy as np

from npxla import jit
from npxla.runtime.operators import while_staging


def _nest(x, y):
    t = 0.0
    for a in range(2):
        for b in range(2):
            for c in range(2):
                for d in range(2):
                    for e in range(2):
                        for f in range(2):
                            for g in range(2):
                                for h in range(2):
                                    x[a + b] += y[c, d] * (e - f) + g - h
                                    t = t + x[f]
    return t


def test_an_eight_deep_nest_is_traced_a_linear_number_of_times(monkeypatch):
    traces = []
    real = while_staging.trace_body

    def counting(*args, **kwargs):
        traces.append(1)
        return real(*args, **kwargs)
    monkeypatch.setattr(while_staging, "trace_body", counting)
    x, y = np.arange(4.0), np.ones((3, 3))
    want_x = x.copy()
    want = _nest(want_x, y)
    assert jit(_nest)(x, y) == want
    np.testing.assert_array_equal(x, want_x)
    assert len(traces) <= 6 * 8          # it was 2 ** 8 and more
