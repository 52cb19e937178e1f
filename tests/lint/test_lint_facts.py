"""The linter's NumPy facts (transpiler/lint/numpy_facts.py) are generated from the
runtime's registry and NumPy itself, not kept by hand: the committed file must be what
`python -m npxla.runtime.numpy.lint_facts --write` writes now."""
import os

from npxla.transpiler.lint import knowledge as K
from npxla.transpiler.lint import numpy_facts as F

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_numpy_facts_are_generated_from_the_registry():
    from npxla.runtime.numpy.lint_facts import COMMAND, FACTS_PATH, render
    with open(os.path.join(ROOT, FACTS_PATH), encoding="utf-8") as fh:
        committed = fh.read()
    assert committed == render(), f"{FACTS_PATH} is stale: run {COMMAND}"


def test_the_facts_say_what_numpy_does():
    assert {"shape", "ndim", "finfo", "result_type", "iscomplexobj"} <= F.STATIC_RESULT
    assert {"isnan", "less", "logical_and", "isclose"} <= F.BOOL_RESULT
    assert {"sum", "mean", "argmax", "linalg.norm"} <= F.REDUCTIONS
    assert {"any", "all", "allclose", "array_equal"} <= F.BOOL_REDUCTIONS
    assert {"reshape", "transpose", "ravel", "asarray"} <= F.VIEW_FUNCTIONS
    assert {"zeros", "ones_like", "full", "eye", "arange"} <= F.CREATION
    assert "array" not in F.CREATION and "copy" not in F.CREATION   # values from the data
    assert F.FILL_ARGS["full"] == (1, "fill_value")
    assert F.SHAPE_PARAMS["zeros"] == ((0,), ("shape",))
    assert "start" not in F.SHAPE_PARAMS["linspace"][1]                # values, not sizes
    assert K.SHAPE_METHOD_PARAMS["reshape"] == ((0, "*"), ("shape",))
    assert F.ARRAY_ARGUMENTS["linalg.solve"] == 2 and "add" not in F.ARRAY_ARGUMENTS
    assert {"reshape", "ravel", "transpose"} <= F.VIEW_METHODS
    assert "copy" in F.SHARED_METHODS and "sum" not in F.SHARED_METHODS
    assert {"PCG64", "SeedSequence"} <= F.BIT_GENERATORS <= F.RANDOM_GENERATORS
