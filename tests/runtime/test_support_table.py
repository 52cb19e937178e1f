"""docs/numpy-support.md is generated from the registry and must not drift from it."""
from pathlib import Path

import numpy as np
import pytest

from npxla.runtime.numpy import support_table
from npxla.runtime.numpy.core import registry
from npxla.transpiler.base.errors import DataDependentShapeError

DOC = Path(__file__).resolve().parents[2] / "docs" / "numpy-support.md"


@pytest.fixture(scope="module")
def text():
    return support_table.render()


def test_committed_doc_matches_the_registry(text):
    expected = text
    committed = DOC.read_text() if DOC.exists() else ""
    assert committed == expected, (
        f"{DOC.name} is out of date with the registry; regenerate it with\n"
        f"    {support_table.COMMAND}")


def test_render_lists_every_registered_function_and_method(text):
    functions, methods = registry.entries()
    for name in functions:
        assert f"`{name}`" in text, name
    for m in methods:
        assert f"`.{m}()`" in text, m
    assert f"**{len(functions)} functions and {len(methods)} ndarray methods**" in text
    assert support_table.COMMAND in text


def test_notes_appear_in_the_table(text):
    functions, _ = registry.entries()
    noted = [e for e in functions.values() if e.notes]
    assert noted, "some registry entry documents a deviation"
    for entry in noted:
        assert support_table._cell(entry.notes) in text, entry.name


# --- status detection -------------------------------------------------------------------

def _refuse_helper(what):
    raise DataDependentShapeError(f"{what} has a data-dependent shape")


def refuses_directly(a):
    """A docstring first."""
    raise DataDependentShapeError("nope")


def refuses_through_a_helper(a):
    _refuse_helper("np.thing")


def refuses_sometimes(a, x=None):
    if x is None:
        raise DataDependentShapeError("one-argument form")
    return a


def needs_static(a):
    from npxla.transpiler.base.errors import ConcretizationError
    raise ConcretizationError("bins must be static")


def test_refusal_is_read_from_the_implementation():
    assert support_table.status_of(refuses_directly) == "refused (DataDependentShapeError)"
    assert support_table.status_of(refuses_through_a_helper) == \
        "refused (DataDependentShapeError)"
    assert support_table.status_of(refuses_sometimes) == "supported"
    assert support_table.status_of(needs_static) == "constant-folded only"
    assert support_table.status_of(np.add) == "supported"     # no Python source: supported


def test_unregistered_common_functions_are_listed_as_folded(monkeypatch):
    monkeypatch.setattr(support_table, "COMMON", {"made up": "linalg.norm sinc no_such_name"})
    rows = support_table.unsupported_common()
    names = {name for _, name, _ in rows}
    assert "np.no_such_name" not in names                     # not in this NumPy: skipped
    for family, name, status in rows:
        assert family == "made up"
        entry = registry.lookup(support_table._resolve(name[3:]))
        assert entry is None and status == "constant-folded only" or \
            status != "supported"


# --- arrays whose length is only known at run time ------------------------------------------

def test_run_time_length_table_is_the_bounded_handlers():
    """transpiler/base/supported.py's NUMPY_RUN_TIME_LENGTH, which the linter reads
    (NPX115), is generated from bounded_methods.HANDLERS and the elementwise ufuncs."""
    from npxla.runtime.numpy.ndarray import bounded as bounded_methods
    from npxla.transpiler.base import supported as S
    for name in bounded_methods.HANDLERS:
        qual = "numpy." + name[len("np."):] if name.startswith("np.") else "builtins." + name
        assert qual in S.NUMPY_RUN_TIME_LENGTH, name
    assert "numpy.sqrt" in S.NUMPY_RUN_TIME_LENGTH          # an elementwise ufunc
    for qual in ("numpy.median", "numpy.kron", "numpy.correlate", "numpy.matmul"):
        assert (qual in S.NUMPY_RUN_TIME_LENGTH) == \
            ("np." + qual[len("numpy."):] in bounded_methods.HANDLERS), qual
    assert {q for q in S.NUMPY_RUN_TIME_LENGTH if q.startswith("numpy.")} <= \
        S.NUMPY_SUPPORTED
    assert {q for q in S.NUMPY_RUN_TIME_LENGTH if q.startswith("builtins.")} <= \
        S.BUILTINS_REGISTERED
    assert set(bounded_methods._METHODS) <= S.NDARRAY_RUN_TIME_LENGTH


@pytest.mark.parametrize("qual, accepted", [("numpy.mean", True), ("numpy.median", True),
                                            ("numpy.cumsum", True), ("numpy.sort", True),
                                            ("numpy.kron", False),
                                            ("numpy.correlate", False)])
def test_the_table_says_what_jit_does_with_a_masked_array(qual, accepted):
    from npxla import jit
    from npxla.transpiler.base import supported as S
    from npxla.transpiler.base.errors import ConcretizationError
    fn = getattr(np, qual[len("numpy."):])
    assert (qual in S.NUMPY_RUN_TIME_LENGTH) == accepted

    def f(x):
        return fn(x[x > 0])
    x = np.array([1.0, -2.0, 3.0])
    if accepted:
        np.testing.assert_allclose(jit(f)(x), f(x))
    else:
        with pytest.raises(ConcretizationError, match="only known at run time"):
            jit(f)(x)
