"""A jitted function that lives in an installed package (site-packages): `@jit` converts
it and every helper of the package it reaches, exactly as it converts the user's own
modules (the conversion policy of `transpiler.base.libraries`), so the package's
helpers no longer fail on traced arrays, and the linter, which follows the same
policy, reports nothing.

Each case is shrunk from a function of published code that `tests/lint/realcode.py
--installed` measures (transforms3d, numpy-financial, pyrr, pymannkendall). It is written
twice: under a `site-packages` folder and under a plain folder; both must compile, agree
with NumPy and lint clean."""
import importlib
import sys
import textwrap
import warnings

import numpy as np
import pytest

from npxla import jit
from npxla.transpiler.lint import lint_file

X = np.array([0.3, -0.5, 0.8])
Q = np.array([0.9, 0.1, 0.3, 0.2])

# name -> ({path in the package: source}, arguments of f, whether @jit refuses f when
# the package is installed); `f` is in main.py, the package is called `instpkg`
CASES = {
    # transforms3d.quaternions.qinverse -> qconjugate
    "conversion_in_same_file_helper": ({"main.py": """
        import numpy as np

        def conjugate(q):
            return np.array(q) * np.array([1.0, -1.0, -1.0, -1.0])

        def f(q):
            return conjugate(q) / np.sqrt((q * q).sum())
        """}, (Q,), True),
    # transforms3d.axangles.axangle2aff -> axangle2mat
    "math_on_traced_values": ({"main.py": """
        import math
        import numpy as np

        def scaled_axis(axis, angle):
            x, y, z = axis
            n = math.sqrt(x * x + y * y + z * z)
            return np.stack([x / n, y / n, z / n]) * angle

        def f(axis):
            return scaled_axis(axis, 0.5)
        """}, (X,), True),
    # numpy_financial.ipmt -> pmt
    "map_of_np_array": ({"main.py": """
        import numpy as np

        def payment(rate, nper, pv):
            (rate, nper, pv) = map(np.array, [rate, nper, pv])
            temp = (1 + rate) ** nper
            return -pv * temp * rate / (temp - 1)

        def f(rate):
            return payment(rate, 12.0, 1000.0)
        """}, (X * 0.01 + 0.05,), True),
    # pymannkendall.sens_slope -> __preprocessing (a private helper is read too)
    "private_helper": ({"main.py": """
        import numpy as np

        def __preprocessing(x):
            x = np.asarray(x).astype(float)
            return x, 1

        def f(x):
            x, c = __preprocessing(x)
            return x.sum() * c
        """}, (X,), True),
    # a branch on a traced value in the helper (converted, it would be staged)
    "branch_in_helper": ({"main.py": """
        import numpy as np

        def clip_norm(v):
            n = np.sqrt((v * v).sum())
            if n > 1.0:
                return v / n
            return v

        def f(x):
            return clip_norm(x) * 2
        """}, (X * 3,), True),
    # transforms3d.shears.striu2mat: a store into a NumPy array the helper made
    "store_into_helper_array": ({"main.py": """
        import numpy as np

        def first_row(v):
            m = np.eye(3)
            m[0] = v
            return m

        def f(x):
            return first_row(x).sum(axis=0)
        """}, (X,), True),
    # pyrr.vector3.generate_normals -> vector.normalize (star import, decorator)
    "decorator_of_star_imported_helper": ({
        "utils.py": """
            from functools import wraps
            import numpy as np

            def all_parameters_as_numpy_arrays(fn):
                @wraps(fn)
                def wrapper(*args, **kwargs):
                    args = list(args)
                    for i, v in enumerate(args):
                        if v is not None:
                            args[i] = np.asarray(v)
                    return fn(*args, **kwargs)
                return wrapper
            """,
        "vector.py": """
            import numpy as np
            from .utils import all_parameters_as_numpy_arrays

            @all_parameters_as_numpy_arrays
            def normalize(vec):
                return (vec.T / np.sqrt(np.sum(vec ** 2, axis=-1))).T
            """,
        "main.py": """
            import numpy as np
            from .vector import *

            def f(x):
                return normalize(x) * 2
            """}, (X,), True),
    # pyrr.aabb.create_from_aabbs -> create_from_points (a decorator factory)
    "decorator_factory": ({"main.py": """
        import numpy as np

        def parameters_as_numpy_arrays(*names):
            def decorator(fn):
                def wrapper(*args):
                    args = list(args)
                    for i, v in enumerate(args):
                        if v is not None:
                            args[i] = np.array(v)
                    return fn(*args)
                return wrapper
            return decorator

        @parameters_as_numpy_arrays("points")
        def lowest(points):
            return points.min(axis=0)

        def f(x):
            return lowest(x) + 1
        """}, (X,), True),
    # pyrr.matrix33.create_from_eulers -> euler.pitch: indexing works on traced arrays
    "helper_that_works_plainly": ({
        "euler.py": """
            def pitch(eulers):
                return eulers[1]
            """,
        "main.py": """
            import numpy as np
            from . import euler

            def f(eulers):
                return np.cos(euler.pitch(eulers)) * eulers
            """}, (X,), False),
    # NumPy functions and operators on traced arrays work in plain code too
    "numpy_only_helper": ({"main.py": """
        import numpy as np

        def unit(v):
            return v / np.sqrt(np.sum(v * v))

        def f(x):
            return unit(x) + unit(2 * x)
        """}, (X,), False),
    # a Python int argument: @jit specialises the helper's branch on it
    "branch_on_python_int": ({"main.py": """
        import numpy as np

        def scale(v, n):
            if n > 1:
                return v * n
            return v

        def f(x, n):
            return scale(x, n)
        """}, (X, 2), False),
}


def _write(root, files):
    for rel, source in files.items():
        path = root.joinpath(*rel.split("/"))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source), encoding="utf-8")


@pytest.fixture(params=["installed", "user"])
def package(request, tmp_path):
    """An empty folder for `instpkg`: under site-packages, or not; on sys.path, and the
    modules imported from it forgotten after."""
    root = tmp_path / "site-packages" if request.param == "installed" else tmp_path / "src"
    (root / "instpkg").mkdir(parents=True)
    (root / "instpkg" / "__init__.py").write_text("")
    sys.path.insert(0, str(root))
    importlib.invalidate_caches()
    yield request.param, root / "instpkg"
    sys.path.remove(str(root))
    for name in [n for n in sys.modules if n == "instpkg" or n.startswith("instpkg.")]:
        del sys.modules[name]


def _refused(fn, args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            got = jit(fn)(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
        except Exception as e:         # noqa: BLE001 - any refusal counts
            return e
        want = fn(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    np.testing.assert_allclose(got, want, rtol=1e-13)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    return None


@pytest.mark.parametrize("case", sorted(CASES))
def test_plain_calls_flagged_exactly_when_jit_refuses(case, package):
    mode, folder = package
    files, args, refused_installed = CASES[case]
    _write(folder, files)
    module = importlib.import_module("instpkg.main")
    error = _refused(module.f, args)
    # (refused_installed: what @jit did before installed packages were converted)
    assert error is None, f"@jit ({mode}): {error!r}"
    findings = [f for f in lint_file(module.__file__, jitted=("f",)) if f.code == "NPX153"]
    assert not findings, findings


# pyrr.matrix44.create_from_translation: the jitted function writes a traced value into
# the NumPy array a plain helper made (NPX143, not a failure of the helper itself)
STORE_INTO_HELPER_RESULT = {"main.py": """
    import numpy as np

    def create_identity(dtype=None):
        return np.identity(4, dtype=dtype)

    def f(vec, dtype=None):
        dtype = dtype or vec.dtype
        mat = create_identity(dtype)
        mat[3, 0:3] = vec[:3]
        return mat
    """}


def test_store_into_the_array_a_plain_helper_returned(package):
    mode, folder = package
    _write(folder, STORE_INTO_HELPER_RESULT)
    module = importlib.import_module("instpkg.main")
    error = _refused(module.f, (X,))
    assert error is None, repr(error)
    codes = [f.code for f in lint_file(module.__file__, jitted=("f",))]
    assert codes == [], codes
