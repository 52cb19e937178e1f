"""How well the linter predicts `@jit` on published NumPy code: recall and precision.

Not a test (pytest does not collect it: its name does not start with `test_`). Run it
with the packages it measures installed:

    pip install transforms3d numpy-financial pyrr pymannkendall
    python tests/lint/realcode.py [-v] [--json results.json] [--ignore NPX15] [--installed]

Two ways to measure the same functions. By default the packages are copied from
site-packages to a temporary folder and imported from there, so that @jit treats them
as the user's code: the published code stands in for code a user writes and jits.
With `--installed` they are jitted where pip put them: @jit then converts only the
jitted function and calls the package's other functions as a library, plainly (which
fails on traced arrays as soon as they convert their argument with `np.asarray` or
branch on it); the linter, seeing that the file lives in site-packages, reads those
helpers as plain code too (`transpiler/lint/plain.py`) and reports the calls that fail.

Measured (numpy 2.4, transforms3d 0.4.2, numpy-financial 1.0.0, pyrr 0.10.3,
pymannkendall 1.4.3; 140 functions):

* user code: 38 fail under @jit, 36 flagged (94.7%), no false positive. Missed:
  `shears.striu2mat` (an array assigned through a boolean mask taken from a module
  dict: the linter does not follow the arrays a module-level loop puts in a dict) and
  `geometric_tests.vector_parallel_vector` (compiles, but
  `np.count_nonzero(np.cross(v, 2 * v))` differs from NumPy by rounding).
  `pymannkendall.sens_slope` and `seasonal_sens_slope` (`np.median` of an array whose
  length is only known at run time) are NPX115, read from the table the runtime's
  bounded handlers generate (`NUMPY_RUN_TIME_LENGTH`).
* installed: 72 fail, 70 flagged (97.2%), one false positive (98.6% precision):
  `affines.compose` calls `striu2mat(S)` only when `S` is given, which the measured
  call does not. Missed: `striu2mat` and `vector_parallel_vector` as above.
  `matrix44.create_from_translation`, which writes a traced value into the NumPy array
  a plain helper returned, is NPX143.

The shrunk cases are regression tests in `tests/lint/test_lint_installed.py` and
`tests/lint/test_lint_run_time_length.py`.

For every function in `CASES` the truth comes from the compiler: `npxla.jit(fn)` is
called on realistic inputs and compared with the plain call ("ok" when it compiles and
matches; "fails" when it raises, a `TranspileError` or anything else, or gives another
answer). The linter's verdict comes from `lint_source` on the source of the function's
module, read from the installed package with `inspect`, with the function marked as
jitted (`jitted=(name,)`): "flagged" when an error-severity `NPX1xx` rule reports
anything in it or in the code it calls in the same file. Nothing of the packages is
copied into this repository.

Functions wrapped by a decorator (pyrr's argument converters) are measured unwrapped
(`inspect.unwrap`), which is the function body the linter reads.
"""
from __future__ import annotations

import argparse
import importlib
import importlib.util
import inspect
import json
import os
import sys
import time
import warnings

import numpy as np

os.environ.setdefault("NPXLA_CACHE_DIR", "off")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


# --- inputs -------------------------------------------------------------------------------
def _unit(v):
    v = np.asarray(v, dtype=float)
    return v / np.linalg.norm(v)


def _rot(axis, angle):
    """A 3x3 rotation matrix (Rodrigues), built here so that inputs do not depend on the
    code under test."""
    x, y, z = _unit(axis)
    c, s = np.cos(angle), np.sin(angle)
    C = 1 - c
    return np.array([[x * x * C + c, x * y * C - z * s, x * z * C + y * s],
                     [y * x * C + z * s, y * y * C + c, y * z * C - x * s],
                     [z * x * C - y * s, z * y * C + x * s, z * z * C + c]])


V3 = np.array([0.3, -0.5, 0.8])
W3 = np.array([-0.2, 0.9, 0.4])
U3 = _unit(V3)
Q = _unit([0.9, 0.1, 0.3, 0.2])                 # transforms3d order: w, x, y, z
Q2 = _unit([0.7, -0.2, 0.5, 0.1])
R = _rot([1.0, 2.0, 3.0], 0.7)
AFF = np.eye(4)
AFF[:3, :3] = R @ np.diag([1.5, 2.0, 0.5])
AFF[:3, 3] = [1.0, -2.0, 3.0]
RIGID = np.eye(4)
RIGID[:3, :3] = R
RIGID[:3, 3] = [0.5, 0.25, -1.0]
REFL = np.eye(3) - 2 * np.outer(U3, U3)
REFL4 = np.eye(4)
REFL4[:3, :3] = REFL
ZOOM = np.eye(3) + (2.5 - 1) * np.outer(U3, U3)
ZOOM4 = np.eye(4)
ZOOM4[:3, :3] = ZOOM
N3 = _unit(np.cross(V3, W3))                     # a normal to a direction in the plane
D3 = _unit(V3 - np.dot(V3, N3) * N3)
SHEAR = np.eye(3) + np.tan(0.3) * np.outer(D3, N3)
SHEAR4 = np.eye(4)
SHEAR4[:3, :3] = SHEAR
PTS = np.array([[0.0, 0.0, 0.0], [1.0, 0.5, 0.2], [0.3, 1.2, 0.8], [0.9, 0.1, 1.5]])
CASH = np.array([-100.0, 39.0, 59.0, 55.0, 20.0])
RATES = np.array([0.05, 0.07, 0.1])
PQ = _unit([0.1, 0.3, 0.2, 0.9])                # pyrr order: x, y, z, w
PQ2 = _unit([-0.2, 0.5, 0.1, 0.7])
M44 = np.eye(4)
M44[:3, :3] = R.T
M44[3, :3] = [1.0, 2.0, 3.0]                     # pyrr: row vectors, translation in row 3
RAY = np.array([[0.0, 0.0, -5.0], [0.0, 0.0, 1.0]])
PLANE = np.array([0.0, 0.0, 1.0, 2.0])
LINE = np.array([[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]])
AABB = np.array([[-1.0, -1.0, -1.0], [1.0, 1.0, 1.0]])
SPHERE = np.array([0.0, 0.0, 0.0, 1.0])
SPHERE2 = np.array([1.5, 0.0, 0.0, 1.0])
_t = np.arange(48.0)
TS = 0.05 * _t[:40] + np.sin(1.3 * _t[:40]) + 0.3 * np.cos(0.7 * _t[:40] ** 1.1)
TS48 = 0.02 * _t + np.sin(2 * np.pi * _t / 12) + 0.2 * np.cos(1.7 * _t)
TS2D = np.stack([TS, 0.5 * TS[::-1] + np.cos(_t[:40]), TS * 0.3 + np.sin(0.9 * _t[:40])],
                axis=1)

# (module, function, arguments); arrays are copied for each call.
CASES = [
    # transforms3d
    ("transforms3d.quaternions", "fillpositive", (V3 * 0.5,)),
    ("transforms3d.quaternions", "quat2mat", (Q,)),
    ("transforms3d.quaternions", "mat2quat", (R,)),
    ("transforms3d.quaternions", "qmult", (Q, Q2)),
    ("transforms3d.quaternions", "qconjugate", (Q,)),
    ("transforms3d.quaternions", "qnorm", (Q,)),
    ("transforms3d.quaternions", "qisunit", (Q,)),
    ("transforms3d.quaternions", "qinverse", (Q,)),
    ("transforms3d.quaternions", "qexp", (Q,)),
    ("transforms3d.quaternions", "qlog", (Q,)),
    ("transforms3d.quaternions", "qpow", (Q, 2.5)),
    ("transforms3d.quaternions", "rotate_vector", (V3, Q)),
    ("transforms3d.quaternions", "nearly_equivalent", (Q, -Q)),
    ("transforms3d.quaternions", "axangle2quat", (V3, 0.7)),
    ("transforms3d.quaternions", "quat2axangle", (Q,)),
    ("transforms3d.euler", "euler2mat", (0.1, 0.2, 0.3)),
    ("transforms3d.euler", "mat2euler", (R,)),
    ("transforms3d.euler", "euler2quat", (0.1, 0.2, 0.3)),
    ("transforms3d.euler", "quat2euler", (Q,)),
    ("transforms3d.euler", "euler2axangle", (0.1, 0.2, 0.3)),
    ("transforms3d.euler", "axangle2euler", (V3, 0.7)),
    ("transforms3d.taitbryan", "euler2mat", (0.1, 0.2, 0.3)),
    ("transforms3d.taitbryan", "mat2euler", (R,)),
    ("transforms3d.taitbryan", "euler2quat", (0.1, 0.2, 0.3)),
    ("transforms3d.taitbryan", "quat2euler", (Q,)),
    ("transforms3d.taitbryan", "euler2axangle", (0.1, 0.2, 0.3)),
    ("transforms3d.taitbryan", "axangle2euler", (V3, 0.7)),
    ("transforms3d.axangles", "axangle2mat", (V3, 0.7)),
    ("transforms3d.axangles", "axangle2aff", (V3, 0.7, W3)),
    ("transforms3d.axangles", "mat2axangle", (R,)),
    ("transforms3d.axangles", "aff2axangle", (RIGID,)),
    ("transforms3d.affines", "compose", (V3, R, np.array([1.5, 2.0, 0.5]))),
    ("transforms3d.affines", "decompose", (AFF,)),
    ("transforms3d.affines", "decompose44", (AFF,)),
    ("transforms3d.zooms", "zfdir2mat", (2.5, U3)),
    ("transforms3d.zooms", "zfdir2aff", (2.5, U3, W3)),
    ("transforms3d.zooms", "mat2zfdir", (ZOOM,)),
    ("transforms3d.zooms", "aff2zfdir", (ZOOM4,)),
    ("transforms3d.shears", "striu2mat", (np.array([0.1, 0.2, 0.3]),)),
    ("transforms3d.shears", "sadn2mat", (0.3, D3, N3)),
    ("transforms3d.shears", "sadn2aff", (0.3, D3, N3, W3)),
    ("transforms3d.shears", "inverse_outer", (np.outer(V3, W3),)),
    ("transforms3d.shears", "mat2sadn", (SHEAR,)),
    ("transforms3d.shears", "aff2sadn", (SHEAR4,)),
    ("transforms3d.reflections", "rfnorm2mat", (V3,)),
    ("transforms3d.reflections", "rfnorm2aff", (V3, W3)),
    ("transforms3d.reflections", "mat2rfnorm", (REFL,)),
    ("transforms3d.reflections", "aff2rfnorm", (REFL4,)),
    ("transforms3d.utils", "normalized_vector", (V3,)),
    ("transforms3d.utils", "vector_norm", (V3,)),
    # numpy-financial
    ("numpy_financial", "fv", (RATES / 12, 120, -100.0, -1000.0)),
    ("numpy_financial", "pmt", (RATES / 12, 360, 200000.0)),
    ("numpy_financial", "nper", (RATES / 12, -150.0, 8000.0)),
    ("numpy_financial", "ipmt", (0.1 / 12, np.arange(1, 13), 24, 2000.0)),
    ("numpy_financial", "ppmt", (0.1 / 12, np.arange(1, 13), 24, 2000.0)),
    ("numpy_financial", "pv", (RATES / 12, 120, -100.0, 15692.93)),
    ("numpy_financial", "rate", (10.0, 0.0, -3500.0, 10000.0)),
    ("numpy_financial", "irr", (CASH,)),
    ("numpy_financial", "npv", (0.08, CASH)),
    ("numpy_financial", "mirr", (CASH, 0.1, 0.12)),
    # pyrr
    ("pyrr.vector", "normalize", (V3,)),
    ("pyrr.vector", "squared_length", (V3,)),
    ("pyrr.vector", "length", (V3,)),
    ("pyrr.vector", "set_length", (V3, 2.0)),
    ("pyrr.vector", "dot", (V3, W3)),
    ("pyrr.vector", "interpolate", (V3, W3, 0.25)),
    ("pyrr.vector3", "cross", (V3, W3)),
    ("pyrr.vector3", "generate_normals", (PTS[:3], PTS[1:], PTS[[2, 3, 0]])),
    ("pyrr.vector3", "create_from_vector4", (np.array([1.0, 2.0, 3.0, 2.0]),)),
    ("pyrr.matrix33", "create_from_eulers", (V3,)),
    ("pyrr.matrix33", "create_from_axis_rotation", (U3, 0.7)),
    ("pyrr.matrix33", "create_from_quaternion", (PQ,)),
    ("pyrr.matrix33", "create_from_inverse_of_quaternion", (PQ,)),
    ("pyrr.matrix33", "create_from_scale", (np.array([1.0, 2.0, 3.0]),)),
    ("pyrr.matrix33", "create_from_x_rotation", (0.7,)),
    ("pyrr.matrix33", "apply_to_vector", (R, V3)),
    ("pyrr.matrix33", "multiply", (R, R.T)),
    ("pyrr.matrix33", "inverse", (R,)),
    ("pyrr.matrix33", "create_direction_scale", (U3, 2.0)),
    ("pyrr.matrix44", "create_from_matrix33", (R,)),
    ("pyrr.matrix44", "create_from_eulers", (V3,)),
    ("pyrr.matrix44", "create_from_translation", (V3,)),
    ("pyrr.matrix44", "apply_to_vector", (M44, V3)),
    ("pyrr.matrix44", "create_perspective_projection", (60.0, 1.5, 0.1, 100.0)),
    ("pyrr.matrix44", "create_orthogonal_projection", (-1.0, 1.0, -1.0, 1.0, 0.1, 10.0)),
    ("pyrr.matrix44", "create_look_at", (np.array([0.0, 1.0, 5.0]), np.zeros(3),
                                         np.array([0.0, 1.0, 0.0]))),
    ("pyrr.matrix44", "inverse", (M44,)),
    ("pyrr.matrix44", "decompose", (M44,)),
    ("pyrr.quaternion", "create_from_axis_rotation", (U3, 0.7)),
    ("pyrr.quaternion", "create_from_matrix", (R,)),
    ("pyrr.quaternion", "create_from_eulers", (V3,)),
    ("pyrr.quaternion", "cross", (PQ, PQ2)),
    ("pyrr.quaternion", "lerp", (PQ, PQ2, 0.3)),
    ("pyrr.quaternion", "slerp", (PQ, PQ2, 0.3)),
    ("pyrr.quaternion", "is_zero_length", (PQ,)),
    ("pyrr.quaternion", "normalize", (PQ * 2,)),
    ("pyrr.quaternion", "rotation_angle", (PQ,)),
    ("pyrr.quaternion", "rotation_axis", (PQ,)),
    ("pyrr.quaternion", "conjugate", (PQ,)),
    ("pyrr.quaternion", "exp", (PQ,)),
    ("pyrr.quaternion", "power", (PQ, 2.5)),
    ("pyrr.quaternion", "inverse", (PQ,)),
    ("pyrr.quaternion", "is_identity", (PQ,)),
    ("pyrr.quaternion", "apply_to_vector", (PQ, V3)),
    ("pyrr.geometric_tests", "point_intersect_line", (np.array([0.5, 0.5, 0.5]), LINE)),
    ("pyrr.geometric_tests", "point_intersect_line_segment", (np.array([0.5, 0.5, 0.5]),
                                                              LINE)),
    ("pyrr.geometric_tests", "ray_intersect_plane", (RAY, PLANE)),
    ("pyrr.geometric_tests", "point_closest_point_on_ray", (V3, RAY)),
    ("pyrr.geometric_tests", "point_closest_point_on_line", (V3, LINE)),
    ("pyrr.geometric_tests", "point_closest_point_on_line_segment", (V3, LINE)),
    ("pyrr.geometric_tests", "vector_parallel_vector", (V3, 2 * V3)),
    ("pyrr.geometric_tests", "ray_intersect_aabb", (RAY, AABB)),
    ("pyrr.geometric_tests", "point_height_above_plane", (V3, PLANE)),
    ("pyrr.geometric_tests", "point_closest_point_on_plane", (V3, PLANE)),
    ("pyrr.geometric_tests", "sphere_does_intersect_sphere", (SPHERE, SPHERE2)),
    ("pyrr.geometric_tests", "sphere_penetration_sphere", (SPHERE, SPHERE2)),
    ("pyrr.geometric_tests", "ray_intersect_sphere", (RAY, SPHERE)),
    ("pyrr.plane", "create_from_points", (PTS[0], PTS[1], PTS[2])),
    ("pyrr.plane", "create_from_position", (V3, U3)),
    ("pyrr.plane", "invert_normal", (PLANE,)),
    ("pyrr.aabb", "create_from_points", (PTS,)),
    ("pyrr.aabb", "create_from_aabbs", (np.array([AABB, AABB * 2]),)),
    ("pyrr.aabb", "add_points", (AABB, PTS * 3)),
    ("pyrr.aabb", "centre_point", (AABB,)),
    ("pyrr.aabb", "clamp_points", (AABB, PTS * 3 - 1)),
    ("pyrr.sphere", "create_from_points", (PTS,)),
    ("pyrr.trig", "calculate_fov", (2.0,)),
    ("pyrr.trig", "calculate_plane_size", (1.5, 60.0, 10.0)),
    # pymannkendall
    ("pymannkendall", "original_test", (TS,)),
    ("pymannkendall", "hamed_rao_modification_test", (TS,)),
    ("pymannkendall", "yue_wang_modification_test", (TS,)),
    ("pymannkendall", "pre_whitening_modification_test", (TS,)),
    ("pymannkendall", "trend_free_pre_whitening_modification_test", (TS,)),
    ("pymannkendall", "multivariate_test", (TS2D,)),
    ("pymannkendall", "seasonal_test", (TS48,)),
    ("pymannkendall", "regional_test", (TS2D,)),
    ("pymannkendall", "correlated_multivariate_test", (TS2D,)),
    ("pymannkendall", "correlated_seasonal_test", (TS48,)),
    ("pymannkendall", "partial_test", (TS2D[:, :2],)),
    ("pymannkendall", "sens_slope", (TS,)),
    ("pymannkendall", "seasonal_sens_slope", (TS48,)),
]

PACKAGES = {"transforms3d": "transforms3d", "numpy_financial": "numpy-financial",
            "pyrr": "pyrr", "pymannkendall": "pymannkendall"}


# --- truth: the compiler --------------------------------------------------------------------
def _copy(x):
    if isinstance(x, np.ndarray):
        return x.copy()
    if isinstance(x, (list, tuple)):
        return type(x)(_copy(i) for i in x)
    return x


def _same(expected, actual):
    if isinstance(expected, (tuple, list)):
        return isinstance(actual, (tuple, list)) and len(actual) == len(expected) and \
            all(_same(e, a) for e, a in zip(expected, actual))
    if expected is None or isinstance(expected, str):
        return actual == expected
    try:
        e, a = np.asarray(expected), np.asarray(actual)
    except Exception:
        return False
    if e.shape != a.shape:
        return False
    if e.dtype.kind in "fc" or a.dtype.kind in "fc":
        return bool(np.allclose(a, e, rtol=1e-7, atol=1e-10, equal_nan=True))
    return bool(np.array_equal(a, e))


def truth(fn, args):
    """("ok" | "fails" | "wrong" | "skip", detail)."""
    from npxla import jit
    from npxla.transpiler.base.errors import TranspileError
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            expected = fn(*_copy(args))
        except Exception as e:                  # bad inputs: not a measurement
            return "skip", f"plain call raised {type(e).__name__}: {e}"
        try:
            actual = jit(fn)(*_copy(args))
        except TranspileError as e:
            return "fails", f"{type(e).__name__} ({e.code}): {e.message}"
        except Exception as e:
            return "fails", f"{type(e).__name__}: {e}"
    if not _same(expected, actual):
        return "wrong", f"compiled result differs: {actual!r} != {expected!r}"
    return "ok", ""


# --- the linter's verdict -------------------------------------------------------------------
def lint_verdict(module, fn, ignore=None):
    from npxla.transpiler.lint import lint_source
    from npxla.transpiler.lint.rules import RULES
    path = inspect.getsourcefile(module)
    with open(path, encoding="utf-8") as fh:
        source = fh.read()
    findings = lint_source(source, path, ignore=ignore, jitted=(fn.__name__,))
    errors = [f for f in findings if f.code.startswith("NPX1")
              and RULES[f.code].severity == "error"]
    return errors


def as_user_code(packages=PACKAGES):
    """Copy the measured packages out of site-packages into a temporary folder and
    import them from there. npxla converts only the user's code: calls that a function
    of an *installed* package makes to its own helpers are plain calls into a library
    (which fail on traced arrays), while the linter reads a file as the user's own code,
    whose helpers @jit converts. Published code stands in for the user's code here, so
    it is measured where @jit treats it as such. Returns the folder (put first on
    sys.path; the modules are imported afresh)."""
    import shutil
    import tempfile
    import atexit
    root = tempfile.mkdtemp(prefix="npxla-realcode-")
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    for top in packages:
        spec = importlib.util.find_spec(top)
        src = os.path.dirname(spec.origin)
        shutil.copytree(src, os.path.join(root, top),
                        ignore=shutil.ignore_patterns("__pycache__", "tests"))
    for name in list(sys.modules):
        if name.split(".")[0] in packages:
            del sys.modules[name]
    sys.path.insert(0, root)
    importlib.invalidate_caches()
    return root


def measure(cases=CASES, ignore=None, verbose=False):
    rows = []
    for module_name, name, args in cases:
        module = importlib.import_module(module_name)
        fn = inspect.unwrap(getattr(module, name))
        src_module = inspect.getmodule(fn)
        status, detail = truth(fn, args)
        found = lint_verdict(src_module, fn, ignore)
        rows.append({"function": f"{module_name}.{name}", "truth": status,
                     "detail": detail, "flagged": bool(found),
                     "findings": [f"{os.path.basename(f.path)}:{f.line}: {f.code} "
                                  f"{f.message}" for f in found]})
        if verbose:
            mark = "FLAG" if found else "    "
            print(f"{status:5} {mark} {module_name}.{name}  {detail[:110]}")
            for f in rows[-1]["findings"]:
                print(f"             {f[:150]}")
    return rows


def summary(rows):
    measured = [r for r in rows if r["truth"] in ("ok", "fails", "wrong")]
    fails = [r for r in measured if r["truth"] != "ok"]
    tp = sum(1 for r in fails if r["flagged"])
    fp = sum(1 for r in measured if r["truth"] == "ok" and r["flagged"])
    fn = sum(1 for r in fails if not r["flagged"])
    tn = sum(1 for r in measured if r["truth"] == "ok" and not r["flagged"])
    raised = [r for r in fails if r["truth"] == "fails"]
    tp_raised = sum(1 for r in raised if r["flagged"])
    return {
        "functions": len(measured), "skipped": len(rows) - len(measured),
        "fails": len(fails), "ok": len(measured) - len(fails),
        "wrong_results": len(fails) - len(raised),
        "confusion": {"flagged_fails": tp, "flagged_ok": fp, "missed_fails": fn,
                      "clean_ok": tn},
        "recall": tp / len(fails) if fails else None,
        "recall_of_refusals": tp_raised / len(raised) if raised else None,
        "precision": tp / (tp + fp) if tp + fp else None,
        "misses": [r["function"] + ": " + r["detail"][:160] for r in fails
                   if not r["flagged"]],
        "false_positives": [r["function"] + ": " + "; ".join(r["findings"])[:200]
                            for r in measured if r["truth"] == "ok" and r["flagged"]],
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-v", "--verbose", action="store_true")
    parser.add_argument("--json", help="write every row and the summary to this file")
    parser.add_argument("--ignore", help="lint codes or prefixes to leave out (e.g. NPX15)")
    parser.add_argument("--installed", action="store_true",
                        help="measure the packages where pip installed them (their own "
                             "helpers are then library calls for @jit); by default they "
                             "are copied to a temporary folder and measured as user code")
    options = parser.parse_args(argv)
    missing = []
    for top, dist in PACKAGES.items():
        try:
            importlib.import_module(top)
        except ImportError:
            missing.append(dist)
    if missing:
        sys.exit("install the measured packages first: pip install " + " ".join(missing))
    if not options.installed:
        as_user_code()
    start = time.time()
    rows = measure(ignore=options.ignore, verbose=options.verbose)
    result = summary(rows)
    result["seconds"] = round(time.time() - start, 1)
    versions = {}
    for top in PACKAGES:
        versions[PACKAGES[top]] = getattr(importlib.import_module(top), "__version__", "?")
    result["packages"] = versions
    result["numpy"] = np.__version__
    result["mode"] = "installed" if options.installed else "user code (copied)"
    if options.json:
        with open(options.json, "w", encoding="utf-8") as fh:
            json.dump({"summary": result, "rows": rows}, fh, indent=1)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
