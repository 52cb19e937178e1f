"""The linter's real-code corpus: published NumPy packages, every public function of
the modules below, called on NumPy inputs derived from parameter names.

The rule, fixed before any outcome was seen:

* the modules: `HydroErr.HydroErr` (hydrological error metrics), `vg.core` (vector
  geometry), `pyentrp.entropy` (entropy of time series), `ordpy.ordpy` (ordinal
  patterns of time series) and every module of `pymap3d` (geodesy) but its tests;
* the functions: every public function defined in such a module (not imported into it,
  name not starting with `_`) whose first parameter is array data, i.e. named in the
  package's `ARRAYS` table, and whose other parameters without a default all have a
  value in the tables (this leaves out pymap3d's functions of a `datetime`);
* the call: every parameter without a default gets the value its name has in the
  package's tables (`ARRAYS` for data, `SCALARS` for the rest); parameters with a default
  keep it. A function whose plain NumPy call fails with those inputs stays in the table
  and is reported as not measured ("skip"), not removed.

The packages (pinned in setup.cfg's `test` extra, "the linter corpus") are not used by
any other test: tests/realcode and tests/lint/realcode.py measure other ones.
"""
from __future__ import annotations

import dataclasses
import importlib
import inspect

import numpy as np

# distribution name -> top-level import name
PACKAGES = {"HydroErr": "HydroErr", "vg": "vg", "pyentrp": "pyentrp", "ordpy": "ordpy",
            "pymap3d": "pymap3d"}
MODULES = ("HydroErr.HydroErr", "vg.core", "pyentrp.entropy", "ordpy.ordpy", "pymap3d.*")

_rng = np.random.default_rng(20240538)
_t = np.arange(64.0)
SERIES = np.sin(0.37 * _t) + 0.5 * np.cos(1.3 * _t) + 0.1 * _rng.standard_normal(64)
OBSERVED = 2.0 + np.abs(np.sin(0.2 * _t[:24])) + 0.05 * _t[:24]
SIMULATED = OBSERVED * (1.0 + 0.08 * np.cos(0.9 * _t[:24])) + 0.03
POINTS = np.array([[0.3, -0.5, 0.8], [1.2, 0.4, -0.3], [-0.7, 0.9, 0.2],
                   [0.5, 0.5, 1.5], [2.0, -1.0, 0.4]])
VECS = np.array([[1.0, 2.0, 0.5], [0.2, -0.4, 1.1], [-1.5, 0.3, 0.7],
                 [0.9, 0.9, -0.2], [0.1, 1.7, 0.6]])
DIR = np.array([0.2, 0.3, 0.9])

LAT = np.array([42.1, -33.8, 51.5])
LON = np.array([-71.0, 151.2, -0.1])
ALT = np.array([10.0, 250.0, 1200.0])
AZ = np.array([30.0, 120.0, 250.0])
EL = np.array([10.0, 45.0, 80.0])
RANGE = np.array([1000.0, 5000.0, 20000.0])
ECEF_X = np.array([1.5e6, -4.6e6, 3.98e6])
ECEF_Y = np.array([-4.5e6, 2.55e6, -1.0e4])
ECEF_Z = np.array([4.26e6, -3.53e6, 4.97e6])
ENU = (np.array([120.0, -340.0, 55.0]), np.array([80.0, 20.0, -410.0]),
       np.array([5.0, -12.0, 30.0]))

# per package: parameter name -> array argument (the first parameter must be one)
ARRAYS = {
    "HydroErr": {"simulated_array": SIMULATED, "observed_array": OBSERVED},
    "vg": {"vector": VECS, "v1": VECS, "v": VECS, "coords": POINTS, "points": POINTS,
           "from_points": POINTS, "values": VECS, "v2": VECS[::-1].copy(), "onto": DIR,
           "from_v": DIR, "along": DIR, "around_axis": DIR, "look": DIR,
           "to_point": DIR, "of_point": DIR},
    "pyentrp": {"time_series": SERIES},
    "ordpy": {"data": SERIES, "x": np.abs(SERIES) + 0.5},
    "pymap3d": {
        "lat": LAT, "lon": LON, "h": ALT, "alt": ALT, "alt_m": ALT, "Lat1": LAT,
        "Lon1": LON, "lat1": LAT, "lon1": LON, "lat2": LAT[::-1] + 0.5,
        "lon2": LON[::-1] - 0.7, "Lat2": LAT[::-1] + 0.5, "Lon2": LON[::-1] - 0.7,
        "geodetic_lat": LAT, "geocentric_lat": LAT - 0.1, "isometric_lat": LAT * 0.9,
        "conformal_lat": LAT, "rectifying_lat": LAT, "authalic_lat": LAT,
        "parametric_lat": LAT, "geocentric_distance": 6.37e6 + ALT,
        "az": AZ, "el": EL, "elev": EL, "srange": RANGE, "slantRange": RANGE,
        "Rng": RANGE, "rng": RANGE, "Azim": AZ, "a12": AZ, "x": ECEF_X, "y": ECEF_Y,
        "z": ECEF_Z, "u": ENU[0], "v": ENU[1], "w": ENU[2], "e": ENU[0], "n": ENU[1],
        "d": ENU[2], "e1": ENU[0], "n1": ENU[1], "u1": ENU[2], "east": ENU[0],
        "north": ENU[1], "up": ENU[2], "dr": ENU[0], "cr": ENU[1], "above": ENU[2],
        "n2": np.array([0.3, -0.5, 0.1]), "n3": np.array([0.8, 0.5, -0.9]),
        "theta": np.radians(AZ), "radius": 6.37e6 + ALT, "tilt": EL,
    },
}
# per package: parameter name -> a Python value
SCALARS = {
    "HydroErr": {},
    "vg": {"axis": 2, "angle": 30.0, "radius": 1.5},
    "pyentrp": {"embedding_dimension": 3, "delay": 1, "lag": 1, "dim": 3, "scale": 2,
                "sample_length": 2, "m": 3},
    "ordpy": {},
    "pymap3d": {"lat0": 42.0, "lon0": -71.0, "h0": 12.0, "alt0": 12.0,
                "heading": 35.0},
}


@dataclasses.dataclass(frozen=True)
class Case:
    package: str          # distribution name (PACKAGES)
    module: str           # the module the function is defined in
    name: str             # the function's name
    args: tuple           # positional arguments (arrays are copied for each call)

    @property
    def id(self):
        return f"{self.module}.{self.name}"

    def function(self):
        return getattr(importlib.import_module(self.module), self.name)


def _package(module):
    top = module.split(".")[0]
    return next(dist for dist, imp in PACKAGES.items() if imp == top)


def _public_functions(module):
    mod = importlib.import_module(module)
    for name, obj in vars(mod).items():
        if inspect.isfunction(obj) and obj.__module__ == module and \
                not name.startswith("_"):
            yield name, obj


def _arguments(package, fn):
    """The positional arguments for `fn` by the package's tables, or None when its first
    parameter is not array data or another required parameter has no value in the
    tables (outside the corpus)."""
    arrays, scalars = ARRAYS[package], SCALARS[package]
    params = list(inspect.signature(fn).parameters.values())
    if not params or params[0].name not in arrays:
        return None
    args = []
    for p in params:
        if p.default is not inspect.Parameter.empty or \
                p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            break
        if p.name in arrays:
            args.append(arrays[p.name])
        elif p.name in scalars:
            args.append(scalars[p.name])
        else:
            return None
    return tuple(args)


def _modules():
    """MODULES with a package's `name.*` replaced by its modules (tests left out)."""
    import pkgutil
    for module in MODULES:
        if not module.endswith(".*"):
            yield module
            continue
        top = importlib.import_module(module[:-2])
        for info in sorted(pkgutil.iter_modules(top.__path__), key=lambda i: i.name):
            if not info.ispkg and not info.name.startswith(("_", "test")):
                yield f"{top.__name__}.{info.name}"


def cases():
    """Every case of the corpus, in module and source order (needs the packages)."""
    out = []
    for module in _modules():
        package = _package(module)
        for name, fn in _public_functions(module):
            args = _arguments(package, fn)
            if args is not None:
                out.append(Case(package, module, name, args))
    return out


def installed():
    """The packages of the corpus that are missing here (import names)."""
    missing = []
    for top in PACKAGES.values():
        try:
            importlib.import_module(top)
        except ImportError:
            missing.append(top)
    return missing
