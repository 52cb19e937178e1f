"""Where installed code lives, and whose code `@jit` converts.

Users decorate the entry point of legacy code; everything it reaches with source is
legacy code too, wherever it is installed. So `@jit` converts every Python function it
reaches except the standard library's, npxla's own, and the installed packages named
in `NOT_CONVERTED`: those whose behaviour npxla provides itself (NumPy, SciPy's subset)
and libraries that are not NumPy code (array frameworks, dataframes, plotting, test
tools), which are called as they are. The linter follows the same line when it reads
helpers in other files. Both decide by where a source file lives, so the rule is
written here once.
"""
from __future__ import annotations

import os
import site
import sys
import sysconfig

PACKAGE_PARTS = ("site-packages", "dist-packages")

# Top-level import names of installed packages whose functions are called, not
# converted (docs/conversion.md lists them): npxla provides their behaviour, or they are
# not NumPy code and converting them would only turn working calls into refusals.
PROVIDED = frozenset({"numpy", "scipy", "npxla"})
NOT_NUMPY_CODE = frozenset({
    "jax", "jaxlib", "ml_dtypes", "opt_einsum", "gast", "torch", "torchvision",
    "tensorflow", "keras", "numba", "llvmlite", "cupy", "cupyx", "dask", "xarray",
    "pandas", "polars", "pyarrow", "sklearn", "statsmodels", "sympy", "mpmath",
    "matplotlib", "PIL", "IPython", "pytest", "_pytest", "hypothesis", "pluggy",
    "setuptools", "pkg_resources", "pip", "_distutils_hack", "typing_extensions",
    "attr", "attrs", "numexpr", "bottleneck", "tqdm", "six", "yaml", "packaging",
    "dace", "triton", "networkx", "h5py", "tables", "zarr",
})
NOT_CONVERTED = PROVIDED | NOT_NUMPY_CODE

# the npxla package root (this file is transpiler/base/libraries.py)
NPXLA_ROOT = os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                           "..", "..")) + os.sep


def _library_dirs():
    paths = set()
    for base, platbase in ((None, None), (sys.base_prefix, sys.base_exec_prefix),
                           (sysconfig.get_config_var("installed_base"),
                            sysconfig.get_config_var("installed_platbase"))):
        scheme = sysconfig.get_paths() if base is None else sysconfig.get_paths(
            vars={"base": base or "", "platbase": platbase or ""})
        for key in ("stdlib", "platstdlib", "purelib", "platlib"):
            if scheme.get(key):
                paths.add(scheme[key])
    try:
        paths.update(site.getsitepackages())
    except AttributeError:          # pragma: no cover - old virtualenv's site module
        pass
    if getattr(site, "USER_SITE", None):
        paths.add(site.USER_SITE)
    return tuple(sorted({os.path.realpath(p) + os.sep for p in paths if p}))


LIBRARY_DIRS = _library_dirs()


def is_npxla_file(path) -> bool:
    return os.path.realpath(path).startswith(NPXLA_ROOT)


def is_installed_file(path) -> bool:
    """Whether a file belongs to an installed library (stdlib or site-packages)."""
    real = os.path.realpath(path)
    return real.startswith(LIBRARY_DIRS) or any(part in PACKAGE_PARTS
                                                for part in real.split(os.sep))


def installed_package(path) -> str | None:
    """The top-level import name of the installed package that file `path` belongs to
    (the folder or module right below site-packages), or None when it is not in one."""
    parts = os.path.realpath(path).split(os.sep)
    for k in range(len(parts) - 2, -1, -1):
        if parts[k] in PACKAGE_PARTS:
            top = parts[k + 1]
            if top.endswith(".egg") and k + 2 < len(parts):    # an egg: its own folder
                top = parts[k + 2]
            return top[:-3] if top.endswith(".py") else top
    return None


def is_converted_file(path) -> bool:
    """Whether `@jit` converts the functions defined in file `path`: the user's files,
    and the Python sources of installed packages other than `NOT_CONVERTED`; never the
    standard library or compiled extensions (npxla's own files are told apart by
    the caller: its tests and examples are user code)."""
    if not is_installed_file(path):
        return True
    top = installed_package(path)
    return top is not None and top not in NOT_CONVERTED and \
        top.partition(".")[0] not in NOT_CONVERTED and str(path).endswith(".py")
