"""A Python container made inside a data-dependent branch or loop body (by `list()`,
`dict()`, `set()`, `collections.deque()`) belongs to that path: changing it there is
plain Python (pyrr's `parameters_as_numpy_arrays` decorator: `args = list(args);
args[i] = np.asarray(v)` in a helper called in a branch). One made before a staged loop
is still refused when the loop changes it (before a branch outside loops: the branch's
condition is assumed and the branch taken runs as Python)."""
import collections

import numpy as np
import pytest

from differential import check
from npxla import jit
from npxla.runtime.operators.mutation import ContainerMutation


def as_arrays(*args):
    args = list(args)
    for i, v in enumerate(args):
        if v is not None:
            args[i] = np.asarray(v) * 1.0
    table = dict(first=args[0])
    table["second"] = args[1]
    seen = set()
    seen.add("x")
    queue = collections.deque()
    queue.append(args[0])
    return table["first"] + table["second"] * len(seen) + queue.popleft()


def branch_calls_helper(a, b):
    if a.sum() > 0:
        r = as_arrays(a, b)
    else:
        r = as_arrays(b, a) * 2
    return r


def loop_calls_helper(a, b):
    acc = np.zeros_like(a)
    for i in range(int(a.sum() > 0) + 2):
        acc = acc + as_arrays(a, b * i)
    return acc


def list_made_before(a):
    out = []
    if a.sum() > 0:
        out.append(a)
    return a


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_containers_made_inside_a_branch(sign):
    check(branch_calls_helper, sign * np.array([1.0, 2.0]), np.array([3.0, -4.0]))


def test_containers_made_inside_a_loop_body():
    check(loop_calls_helper, np.array([1.0, 2.0]), np.array([3.0, -4.0]))


def list_made_before_a_loop(a):
    out = []
    while a.sum() < 10:
        a = a * 2
        out.append(a)
    return a


def test_a_list_made_before_the_branch_is_assumed_and_one_before_a_loop_refused():
    # outside loops the branch's condition is assumed (checked at run time) and the
    # branch taken runs as Python; a staged loop's body runs once while compiling
    check(list_made_before, np.array([1.0, 2.0]))
    check(list_made_before, np.array([-1.0, -2.0]))
    with pytest.raises(ContainerMutation):
        jit(list_made_before_a_loop)(np.array([1.0, 2.0]))
