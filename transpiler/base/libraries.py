"""Where installed code lives: the standard library, site-packages and npxla itself.

`@jit` converts the user's own functions and calls everything else as it is; the
linter follows the same line when it reads helpers in other files. Both decide by
where a source file lives, so the rule is written here once.
"""
from __future__ import annotations

import os
import site
import sys
import sysconfig

PACKAGE_PARTS = ("site-packages", "dist-packages")

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
