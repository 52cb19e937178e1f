"""Which `while` loops `counted_loops` marks as counted (a static bound on their trips),
and the bound the runtime computes from the counter's start and the limit."""
import textwrap

import gast
import pytest

from npxla.runtime.operators.loops import trip_bound
from npxla.transpiler.converters.counted_loops import counter_of


def _loop(source):
    tree = gast.parse(textwrap.dedent(source))
    return next(n for n in gast.walk(tree) if isinstance(n, gast.While))


COUNTED = {
    "while p < n:\n    x = f(x)\n    p += 1\n    if x < 0: break": ("p", 1, False, 1),
    "while n > p:\n    p = p + 2": ("p", 2, False, 1),
    "while k >= 0:\n    k -= 1\n    if g(k): break": ("k", 1, True, -1),
    "while p <= n - 1:\n    p += 3\n    for i in r:\n        continue": ("p", 3, True, 1),
}

NOT_COUNTED = [
    "while p < n:\n    p -= 1",                          # away from the limit
    "while p < n:\n    if c: p += 1",                    # not every iteration
    "while p < n:\n    p += 1\n    p += 1",              # twice
    "while p < n:\n    if c: continue\n    p += 1",      # may be skipped
    "while p < n:\n    p += 1\n    n = n + 1",           # the limit moves
    "while p < n:\n    p += 1\nelse:\n    pass",         # an else clause
    "while p < len(x):\n    p += 1",                     # a call in the limit
    "while p < n:\n    p += s",                          # a step that is not a literal
    "while p < n and q:\n    p += 1",                    # more than the comparison
    "while p < n:\n    p += 1\n    for p in r: pass",    # rebound elsewhere
]


@pytest.mark.parametrize("source", sorted(COUNTED))
def test_counted_while_loops_are_recognised(source):
    name, _limit, step, inclusive, direction = counter_of(_loop(source))
    assert (name, step, inclusive, direction) == COUNTED[source]


@pytest.mark.parametrize("source", NOT_COUNTED)
def test_other_while_loops_are_not_counted(source):
    assert counter_of(_loop(source)) is None


@pytest.mark.parametrize("start, limit, step, inclusive, direction, want", [
    (0, 10, 1, False, 1, 10), (0, 10, 3, False, 1, 4), (0, 9, 3, True, 1, 4),
    (5, 0, 1, True, -1, 6), (5, 0, 2, False, -1, 3), (10, 0, 1, False, 1, 0),
    (0, 2.5, 1, False, 1, 4)])
def test_trip_bound_counts_the_iterations_at_most(start, limit, step, inclusive, direction,
                                                  want):
    assert trip_bound(lambda: (start, limit), step, inclusive, direction) == want
    p, runs = start, 0
    while (p <= limit if inclusive else p < limit) if direction > 0 else \
            (p >= limit if inclusive else p > limit):
        p, runs = p + direction * step, runs + 1
    assert runs <= want


def test_trip_bound_of_values_that_are_not_python_numbers_is_none():
    assert trip_bound(lambda: (0.5, 3), 1, False, 1) is None
    assert trip_bound(lambda: (0, None), 1, False, 1) is None
