"""Lambdas are converted like functions wherever they were written: `jit(lambda ...)`, a
lambda passed in as an argument, kept in an object or a module global. Each is found in
its file by the line and the columns its code comes from (several on one line are told
apart); only a lambda without a file runs as it is (tests/runtime/test_call_refusals.py).

Found in filterpy: a lambda calling a library method (`MerweScaledSigmaPoints.
sigma_points`, which calls scipy's cholesky) ran unconverted, so the method met traced
arrays as plain Python and was refused."""
import numpy as np
import pytest

from differential import check
from npxla import jit, to_source
from npxla.transpiler.base.errors import SourceUnavailableError, TranspileError


def _flip(v):
    if v.sum() > 0:
        return v * 2.0
    return -v


def _apply(g, x):
    return g(x)


def _apply_each(gs, x):
    out = np.zeros(len(gs))
    for i in range(len(gs)):
        out[i] = gs[i](x + i).sum()
    return out


TWO = (lambda a: a + 1.0 if a.max() > 2 else a - 1.0), (lambda a: a * 10.0 if a.min() < 0 else a)
NESTED = lambda k: (lambda a: a * k if a.sum() > 0 else a / k)      # noqa: E731
POSITIVE, NEGATIVE = np.array([1.0, 2.0, 3.0]), np.array([-1.0, -2.0, -3.0])


class Model:
    def __init__(self, scale):
        self.fx = lambda s: _flip(s) * scale


@pytest.mark.parametrize("x", [POSITIVE, NEGATIVE], ids=["positive", "negative"])
def test_jitted_lambda_calling_a_helper_with_a_branch_on_data(x):
    check(lambda v: _flip(v) + 1.0, x)


@pytest.mark.parametrize("x", [POSITIVE, NEGATIVE], ids=["positive", "negative"])
def test_lambda_passed_in_is_converted(x):
    check(_apply, lambda v: _flip(v) - 1.0, x)
    check(_apply, lambda v: v.sum() if v[0] > 0 else v.max(), x)


def test_two_lambdas_on_one_line_are_each_converted():
    for x in (POSITIVE, NEGATIVE, np.array([0.5, 1.0])):
        check(TWO[0], x)
        check(TWO[1], x)
        check(_apply_each, list(TWO), x)


def test_lambda_made_by_a_lambda_keeps_its_closure():
    for k in (2.0, 4.0):
        for x in (POSITIVE, NEGATIVE):
            check(NESTED(k), x)
            check(_apply, NESTED(k), x)


def test_lambda_kept_in_an_object_is_converted():
    m = Model(3.0)
    for x in (POSITIVE, NEGATIVE):
        check(lambda v: m.fx(v), x)


def test_lambda_with_defaults_and_keywords():
    g = lambda v, *, lo=0.0, scale=2.0: v * scale if v.min() > lo else v   # noqa: E731
    for x in (POSITIVE, NEGATIVE):
        check(g, x)
        check(g, x, lo=-5.0, scale=3.0)


def test_multi_line_lambda_and_its_loop():
    g = (lambda v:
         v.sum() if v.max() > 2.0
         else v.min())

    def run(x):
        out = np.zeros(4)
        for i in range(4):
            out[i] = g(x * i)
        return out
    for x in (POSITIVE, NEGATIVE):
        check(run, x)


def test_lambda_calling_scipy_is_lowered():
    linalg = pytest.importorskip("scipy.linalg")
    a = np.array([[4.0, 1.0], [1.0, 3.0]])
    check(lambda m: linalg.cholesky(m, lower=True) if m[0, 0] > 0 else m, a)


def test_error_inside_a_lambda_names_the_lambdas_line():
    bad = lambda v: v.reshape(7)   # noqa: E731
    with pytest.raises(ValueError) as info:         # NumPy's error, at the lambda
        jit(bad)(np.ones(3))
    text = "\n".join(info.value.__notes__)
    assert f"{__file__}:{bad.__code__.co_firstlineno}:" in text and "v.reshape(7)" in text
    ternary = lambda v: v if v.sum() > 0 else v.reshape(7)   # noqa: E731
    with pytest.raises(ValueError) as info:
        jit(ternary)(-np.ones(3))
    assert f"{__file__}:{ternary.__code__.co_firstlineno}:" in "\n".join(info.value.__notes__)


def test_lambda_returning_a_value_of_another_type_on_each_path_is_refused_there():
    mixed = lambda v: v if v.sum() > 0 else "negative"   # noqa: E731
    with pytest.raises(TranspileError) as info:
        jit(mixed)(np.ones(3))
    assert info.value.location.file == __file__


def test_converted_source_of_a_lambda():
    text = to_source(lambda v: v if v.sum() > 0 else -v)
    assert "ag__.if_exp" in text


def test_lambda_that_cannot_be_told_apart_says_so():
    # two lambdas with the same parameters and body on one line: their code covers the
    # same columns of different lambdas, so the columns decide; identical text is fine
    f, g = (lambda v: v * 2.0), (lambda v: v * 2.0)
    check(f, POSITIVE)
    check(g, POSITIVE)
    made = eval("lambda v: v")
    with pytest.raises(SourceUnavailableError):
        to_source(made)
