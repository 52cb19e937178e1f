"""NPX133 through calls: a helper that changes a Python list, dict or set, called in a
loop on array data, is refused by `@jit` there, even though the helper, read alone, has
no loop (under a data-dependent branch outside loops the condition is assumed and the
branch taken runs as Python: no refusal). Each case below is written to
files (a package with sibling modules where it needs one), imported and compiled, and
linted from its file; NPX133 must fire when, and only when, `@jit` raises."""
import importlib
import sys
import textwrap
import warnings

import numpy as np
import pytest

from npxla import jit
from npxla.transpiler.lint import lint_file, modules

X = np.array([1.0, 2.0, 4.0])

# name -> ({relative path: source}, module holding `f`, whether @jit refuses f(X))
CASES = {
    "same_file_helper": ({"cmmain.py": """
        import numpy as np

        def scaled(v):
            out = []
            out.append(v * 2)
            return out[0]

        def f(x):
            while x.sum() < 100:
                x = scaled(x)
            return x
        """}, "cmmain", True),
    "helper_mutates_global": ({"cmmain.py": """
        import numpy as np

        SEEN = []

        def note(v):
            SEEN.append(1)
            return v + 1

        def f(x):
            while x.sum() < 100:
                x = note(x) * 2
            return x
        """}, "cmmain", True),
    "decorated_helper": ({"cmmain.py": """
        import functools
        import numpy as np

        def as_arrays(fn):
            @functools.wraps(fn)
            def wrapper(*args):
                args = list(args)
                for i, v in enumerate(args):
                    args[i] = np.asarray(v)
                return fn(*args)
            return wrapper

        @as_arrays
        def norm(v):
            return v / np.sqrt((v * v).sum())

        def f(x):
            if x.max() > 1:
                x = norm(x)
            return x
        """}, "cmmain", False),     # `list(args)` made on the path: its own (pyrr)
    "decorator_factory_in_sibling_module": ({
        "cmpkg/__init__.py": "",
        "cmpkg/utils.py": """
            import numpy as np

            def converting(*names):
                def decorator(fn):
                    def wrapper(*args, **kwargs):
                        args = list(args)
                        for i, v in enumerate(args):
                            args[i] = np.asarray(v)
                        return fn(*args, **kwargs)
                    return wrapper
                return decorator
            """,
        "cmpkg/vector.py": """
            import numpy as np
            from .utils import converting

            @converting("v")
            def normalize(v):
                return v / np.sqrt((v * v).sum())
            """,
        "cmpkg/cmmain.py": """
            import numpy as np
            from . import vector

            def f(x):
                if not np.isclose(np.sqrt(x.dot(x)), 1.0):
                    x = vector.normalize(x)
                return x
            """}, "cmpkg.cmmain", False),
    "helper_in_sibling_module_by_name": ({
        "cmpkg/__init__.py": "",
        "cmpkg/helpers.py": """
            def collect(v, acc):
                acc[0] = v
                return acc[0] * 3
            """,
        "cmpkg/cmmain.py": """
            import numpy as np
            from .helpers import collect

            def f(x):
                acc = [None]
                while x.sum() < 100:
                    x = collect(x, acc) * 2
                return x
            """}, "cmpkg.cmmain", True),
    "helper_in_top_level_module": ({
        "helperstop.py": """
            def tally(v):
                counts = {}
                counts["n"] = 1
                return v * counts["n"]
            """,
        "cmmain.py": """
            import numpy as np
            import helperstop

            def f(x):
                while x.sum() < 100:
                    x = helperstop.tally(x) * 2
                return x
            """}, "cmmain", True),
    "helper_re_exported_by_star_import": ({
        "cmpkg/__init__.py": "",
        "cmpkg/base.py": """
            def grow(v):
                parts = []
                parts.extend([v])
                return parts[0] + 1
            """,
        "cmpkg/more.py": """
            from .base import *
            """,
        "cmpkg/cmmain.py": """
            import numpy as np
            from . import more

            def f(x):
                while x.mean() < 100:
                    x = more.grow(x) * 2
                return x
            """}, "cmpkg.cmmain", True),
    "helper_making_and_filling_a_local_list": ({
        # the list is the helper's own, yet @jit refuses it: inside a staged loop
        # every list change would happen once, while compiling
        "cmmain.py": """
            import numpy as np

            def stack3(v):
                rows = []
                for k in range(3):
                    rows.append(v * k)
                return np.stack(rows)

            def f(x):
                while x.sum() < 100:
                    x = stack3(x).sum(axis=0) + 1
                return x
            """}, "cmmain", True),
    # --- not refused ---------------------------------------------------------------------
    "mutation_outside_data_dependent_flow": ({"cmmain.py": """
        import numpy as np

        def stack3(v):
            rows = []
            for k in range(3):
                rows.append(v * k)
            return np.stack(rows)

        def f(x):
            y = stack3(x)
            if x.sum() > 0:
                y = y * 2
            return y
        """}, "cmmain", False),
    "sibling_helper_outside_data_dependent_flow": ({
        "cmpkg/__init__.py": "",
        "cmpkg/helpers.py": """
            def collect(v, acc):
                acc.append(v)
                return acc[0] * 3
            """,
        "cmpkg/cmmain.py": """
            import numpy as np
            from .helpers import collect

            def f(x):
                y = collect(x, [])
                if x.sum() > 0:
                    y = y + 1
                return y
            """}, "cmpkg.cmmain", False),
    "helper_without_mutation": ({
        "cmpkg/__init__.py": "",
        "cmpkg/helpers.py": """
            import numpy as np

            def rows(v):
                parts = [v * k for k in range(3)]
                return np.stack(parts)
            """,
        "cmpkg/cmmain.py": """
            import numpy as np
            from . import helpers

            def f(x):
                if x.sum() > 0:
                    return helpers.rows(x)
                return np.zeros((3, x.shape[0]))
            """}, "cmpkg.cmmain", False),
    "decorator_without_mutation": ({"cmmain.py": """
        import numpy as np

        def as_array(fn):
            def wrapper(v):
                return fn(np.asarray(v))
            return wrapper

        @as_array
        def double(v):
            return v * 2

        def f(x):
            if x.sum() > 0:
                x = double(x)
            return x
        """}, "cmmain", False),
    "mutating_helper_under_a_python_int_condition": ({
        # a Python int argument: @jit specialises on it, the branch runs as Python
        "cmmain.py": """
            import numpy as np

            def stack3(v):
                rows = []
                for k in range(3):
                    rows.append(v * k)
                return np.stack(rows)

            def f(x, n=2):
                if n > 1:
                    return stack3(x)
                return np.zeros((3, x.shape[0]))
            """}, "cmmain", False),
}


def _write(root, files):
    for rel, source in files.items():
        path = root.joinpath(*rel.split("/"))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source), encoding="utf-8")


@pytest.fixture
def on_path(tmp_path):
    """`tmp_path` first on sys.path, and the modules imported from it forgotten after."""
    root = str(tmp_path)
    sys.path.insert(0, root)
    importlib.invalidate_caches()
    yield tmp_path
    sys.path.remove(root)
    for name, module in list(sys.modules.items()):
        if (getattr(module, "__file__", None) or "").startswith(root):
            del sys.modules[name]


def _refused(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            jit(fn)(X.copy())
        except Exception as e:         # noqa: BLE001 - any refusal counts
            return e
    return None


@pytest.mark.parametrize("case", sorted(CASES))
def test_callee_mutation_flagged_exactly_when_jit_refuses(case, on_path):
    files, module_name, expected = CASES[case]
    _write(on_path, files)
    module = importlib.import_module(module_name)
    error = _refused(module.f)
    assert (error is not None) == expected, f"@jit: {error!r}"
    if error is not None:
        assert type(error).__name__ == "ContainerMutation", repr(error)
    findings = [f for f in lint_file(module.__file__, jitted=("f",))
                if f.code == "NPX133"]
    assert bool(findings) == (error is not None), findings
    for f in findings:
        assert f.path == module.__file__


def test_message_names_the_callee_and_where_it_changes_the_list(on_path):
    files, module_name, _ = CASES["helper_re_exported_by_star_import"]
    _write(on_path, files)
    module = importlib.import_module(module_name)
    (finding,) = [f for f in lint_file(module.__file__, jitted=("f",))
                  if f.code == "NPX133"]
    assert "calling 'grow'" in finding.message
    assert "base.py:" in finding.message and "Python list" in finding.message
    assert finding.line == 7          # the call, in cmmain.py


def test_library_helpers_are_not_followed(tmp_path):
    """A helper of an installed package is called as a library by @jit (its lists are
    its own business): only the user's files are read."""
    assert modules.is_library_file(np.__file__)
    assert modules.is_library_file(modules.__file__)       # npxla itself
    assert not modules.is_library_file(str(tmp_path / "cmmain.py"))


def test_modules_are_found_without_executing_them(on_path):
    _write(on_path, {
        "boom/__init__.py": "raise RuntimeError('executed')\n",
        "boom/inner.py": """
            def grow(v):
                acc = []
                acc.append(v)
                return v
            """,
        "cmmain.py": """
            import numpy as np
            import boom.inner

            def f(x):
                while x.sum() < 100:
                    x = boom.inner.grow(x) * 2
                return x
            """})
    findings = lint_file(str(on_path / "cmmain.py"), jitted=("f",))
    assert [f.code for f in findings] == ["NPX133"]
    assert "boom" not in sys.modules and "boom.inner" not in sys.modules
