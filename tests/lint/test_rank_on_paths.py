"""NPX139 in the linter: a Python number on one path and an array of one or more
dimensions on another, inside a loop on array data, flagged where the linter knows the
array's rank; and the readings it needs on real code (pymap3d): `except NameError`
around bound names never runs, names a sibling module re-exports from NumPy are
NumPy's, `math.pi` is a number. Each flagged example is refused by `@jit` too."""
import ast
import importlib.util
import sys
import textwrap

import numpy as np
import pytest

from npxla.transpiler.analysis.jit_discovery import collect_imports
from npxla.transpiler.base.errors import ShapeMismatchError
from npxla.transpiler.lint import lint_file, lint_source

HEAD = "import numpy as np\nfrom math import pi\nfrom npxla import jit\n\n"

FLAGGED = {
    "branch_in_loop": """
        @jit
        def f(x):
            lamb = np.atleast_1d(x) * 2.0
            while np.abs(lamb).max() > 1e-3:
                if (lamb > pi).any():
                    lamb = pi
                else:
                    lamb = lamb / 3.0
            return lamb
        """,
    "carried_from_a_number": """
        @jit
        def f(x):
            c = 0.0
            y = np.atleast_1d(x)
            while np.abs(y).max() > 1e-3:
                c = y * 2.0
                y = y / 2.0
            return c
        """,
    "bound_names_under_except_name_error": """
        @jit
        def f(x):
            try:
                x = np.atleast_1d(x)
            except NameError:
                pass
            lamb = x * 2.0
            while np.abs(lamb).max() > 1e-3:
                if (lamb > 5.0).any():
                    lamb = np.pi
                else:
                    lamb = lamb / 3.0
            return lamb
        """,
}

CLEAN = {
    "outside_loops": """
        @jit
        def f(x):
            lamb = np.atleast_1d(x) * 2.0
            if (lamb > pi).any():
                lamb = pi
            return lamb
        """,
    "unknown_rank": """
        @jit
        def f(x):
            lamb = x * 2.0
            while np.abs(lamb).max() > 1e-3:
                if (lamb > pi).any():
                    lamb = pi
                else:
                    lamb = lamb / 3.0
            return lamb
        """,
    "array_on_every_path": """
        @jit
        def f(x):
            lamb = np.atleast_1d(x) * 2.0
            while np.abs(lamb).max() > 1e-3:
                if (lamb > pi).any():
                    lamb = np.full_like(lamb, 1e-4)
                else:
                    lamb = lamb / 3.0
            return lamb
        """,
}


def _module(tmp_path, name, body):
    path = tmp_path / f"{name}.py"
    path.write_text(HEAD + textwrap.dedent(body))
    return path


def _load(path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", sorted(FLAGGED))
def test_flagged_and_refused(name, tmp_path):
    path = _module(tmp_path, name, FLAGGED[name])
    assert "NPX139" in {f.code for f in lint_file(str(path))}
    with pytest.raises(ShapeMismatchError):
        _load(path).f(np.array([3.0, 5.0]))


@pytest.mark.parametrize("name", sorted(CLEAN))
def test_not_flagged(name, tmp_path):
    path = _module(tmp_path, name, CLEAN[name])
    assert "NPX139" not in {f.code for f in lint_file(str(path))}


def test_the_try_body_binds_what_its_import_error_fallback_also_binds():
    tree = ast.parse(textwrap.dedent("""
        try:
            from numpy import sin, radians as rad
        except ImportError:
            from math import sin, radians as rad, tau
        """))
    table = {}
    collect_imports(tree.body, table)
    assert table == {"sin": "numpy.sin", "rad": "numpy.radians", "tau": "math.tau"}


def test_a_sibling_reexport_of_numpy_is_numpy(tmp_path, monkeypatch):
    pkg = tmp_path / "geo"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "mathfun.py").write_text(textwrap.dedent("""
        try:
            from numpy import radians
        except ImportError:
            from math import radians
        """))
    (pkg / "dist.py").write_text(textwrap.dedent("""
        from math import pi
        try:
            from numpy import atleast_1d
        except ImportError:
            pass
        from .mathfun import radians

        def dist(a):
            try:
                a = atleast_1d(a)
            except NameError:
                pass
            lamb = radians(a)
            while abs(lamb).max() > 1e-3:
                if (lamb > pi).any():
                    lamb = pi
                else:
                    lamb = lamb / 3.0
            return lamb
        """))
    source = (pkg / "dist.py").read_text()
    found = lint_source(source, str(pkg / "dist.py"), jitted=("dist",))
    assert [f.line for f in found if f.code == "NPX139"] == [16]
    monkeypatch.syspath_prepend(str(tmp_path))
    from npxla import jit
    dist = importlib.import_module("geo.dist").dist
    with pytest.raises(ShapeMismatchError):
        jit(dist)(np.array([10.0, 20.0]))
    sys.modules.pop("geo.dist", None)
    sys.modules.pop("geo.mathfun", None)
    sys.modules.pop("geo", None)
