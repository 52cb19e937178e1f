"""Finding the source of the user's other modules, statically, for the analysis of calls.

`@jit` converts every function of the user's code that a jitted function calls, in any
module: a helper imported from a sibling module runs converted, inside the caller's
data-dependent branch, and what it does there (change a Python list) is refused there.
The linter reads one file at a time, so to see into such a helper it has to find the
helper's file without importing anything: importing would run the user's code.

Resolution is by the file system only. A relative import (`from . import vector`)
is looked up from the linted file's folder. An absolute one asks `importlib.util.
find_spec` about the top-level name alone (for a top-level name that locates the file
without executing it; for a dotted name it would import the parent package), and walks
the folders of that package for the rest. Modules of libraries (the standard library,
site-packages, npxla itself) are not followed: `@jit` calls library code as it is, and
what it does to its own lists is not refused.

Parsed modules are cached per file (path, modification time, size), so linting many
files of one package parses each sibling once.
"""
from __future__ import annotations

import ast
import importlib.util
import os
import sys
from collections import OrderedDict

from npxla.transpiler.base.libraries import (is_converted_file, is_installed_file,
                                             is_npxla_file)
from npxla.transpiler.lint.discovery import _scan, module_info

MAX_MODULE_DEPTH = 3          # the linted file, then at most 3 imported modules deep
_CACHE_SIZE = 256
_PARSED: OrderedDict = OrderedDict()      # (real path, mtime, size) -> ModuleInfo | None
_SPECS: dict = {}                         # (top-level name, sys.path) -> ModuleSpec | None


def is_library_file(path) -> bool:
    """Whether `@jit` would call the code of this file as a library (not convert it):
    the same test as the runtime's provenance, by where the file lives."""
    return is_npxla_file(path) or not is_converted_file(path)


def installed_file(path) -> bool:
    """Whether the (linted) file at `path` belongs to an installed package that `@jit`
    does not convert (`libraries.NOT_CONVERTED`): it then converts only the jitted
    function of it, and calls the package's other functions as plain Python
    (`transpiler.lint.plain`). Source text without a file is not."""
    return bool(path) and not path.startswith("<") and os.path.isfile(path) and \
        is_installed_file(path) and not is_converted_file(path)


def package_root(path):
    """Where the top-level package of the file at `path` lives: the highest folder
    reached through `__init__.py` files, or the file itself for a module of its own."""
    real = os.path.realpath(path)
    folder = os.path.dirname(real)
    if not os.path.exists(os.path.join(folder, "__init__.py")):
        return real
    while os.path.exists(os.path.join(os.path.dirname(folder), "__init__.py")):
        folder = os.path.dirname(folder)
    return folder


def package_name(path) -> str:
    """The name of the top-level package (or module) the file at `path` belongs to."""
    name = os.path.basename(package_root(path))
    return name[:-3] if name.endswith(".py") else name or "this package"


def _followed(path, package):
    """Whether the analysis reads the module at `path`: the user's code, or a module of
    `package` (the installed package being linted, whose helpers run as plain Python)."""
    if not is_library_file(path):
        return True
    real = os.path.realpath(path)
    return package is not None and (real == package or real.startswith(
        os.path.join(package, "")))


def parse_module(path):
    """The `ModuleInfo` of a source file (cached), or None when it cannot be read or
    parsed."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    key = (os.path.realpath(path), st.st_mtime_ns, st.st_size)
    if key in _PARSED:
        _PARSED.move_to_end(key)
        return _PARSED[key]
    info = None
    try:
        with open(path, "rb") as fh:
            data = fh.read()
        tree = ast.parse(data, filename=path)
        info = module_info(tree, path)
        _scan(info)                     # fills info.node_tables
    except (OSError, SyntaxError, ValueError, RecursionError):
        info = None
    _PARSED[key] = info
    while len(_PARSED) > _CACHE_SIZE:
        _PARSED.popitem(last=False)
    return info


# --- imports ------------------------------------------------------------------------------
def import_table(tree):
    """{qualified prefix as `discovery.collect_imports` spells it: (level, dotted module
    parts)} for every import of the file (function-level ones too). The spelling of a
    relative import is ambiguous (`from . import m` and `from ..m import f` both give
    "..m..."), so the structured target is kept here, read from the statements."""
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                name = a.name if a.asname else a.name.split(".")[0]
                out.setdefault(name, (0, tuple(name.split("."))))
        elif isinstance(node, ast.ImportFrom):
            module = tuple(node.module.split(".")) if node.module else ()
            if node.level:
                prefix = "." * node.level + (node.module or "")
            else:
                prefix = node.module or ""
            for a in node.names:
                if a.name != "*":
                    out.setdefault(f"{prefix}.{a.name}", (node.level, module + (a.name,)))
    return out


def _split(qual, table):
    """(level, module-ish parts, remaining attribute parts) for a qualified name, by its
    longest import prefix; None when no import of the file gives it."""
    parts = qual.split(".")
    # a relative qual starts with dots: "..m.f" splits into ["", "", "m", "f"]
    for cut in range(len(parts), 0, -1):
        prefix = ".".join(parts[:cut])
        hit = table.get(prefix)
        if hit is not None:
            return hit[0], hit[1], tuple(parts[cut:])
    return None


def _package_dir(path, level):
    """The folder a relative import of `level` dots starts from, in file `path`."""
    d = os.path.dirname(os.path.abspath(path))
    for _ in range(level - 1):
        d = os.path.dirname(d)
    return d


def _top_locations(name):
    """Where top-level module or package `name` lives, without executing it: (folders of
    the package, or None; the module's file, or None)."""
    key = (name, tuple(sys.path))
    if key not in _SPECS:
        if len(_SPECS) > _CACHE_SIZE:
            _SPECS.clear()
        try:
            _SPECS[key] = importlib.util.find_spec(name)
        except Exception:       # noqa: BLE001 - a finder's own failure: not followed
            _SPECS[key] = None
    spec = _SPECS[key]
    if spec is None:
        return None, None
    locations = list(spec.submodule_search_locations or ())
    if locations:
        return locations, None
    origin = spec.origin
    if origin and origin.endswith(".py") and os.path.isfile(origin):
        return None, origin
    return None, None


def _walk(dirs, parts):
    """Follow module `parts` down from package folders `dirs`: (file of the deepest
    module reached, the parts left over as attributes), or None."""
    current = None
    for i, part in enumerate(parts):
        found = None
        for d in dirs or ():
            pkg = os.path.join(d, part, "__init__.py")
            mod = os.path.join(d, part + ".py")
            if os.path.isfile(pkg):
                found = (pkg, [os.path.join(d, part)])
                break
            if os.path.isfile(mod):
                found = (mod, None)
                break
        if found is None:
            return (current, tuple(parts[i:])) if current else None
        current, dirs = found
        if dirs is None:
            return current, tuple(parts[i + 1:])
    return (current, ()) if current else None


def resolve(path, qual, table, package=None):
    """(source file, attribute names in it) that `qual` (a name as the linted file at
    `path` qualifies it) refers to, when that file is the user's own code or a module of
    `package` (`_followed`); else None."""
    if not qual or qual.startswith("?"):
        return None
    split = _split(qual, table)
    if split is None:
        return None
    level, module, rest = split
    found = locate(path, level, tuple(module) + rest)
    if found is None or not found[1] or not _followed(found[0], package):
        return None
    return found


def star_imports(path, tree, package=None):
    """The user's module files (or `package`'s) the module at `path` imports `*` from
    (top level)."""
    out = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            parts = tuple(node.module.split(".")) if node.module else ()
            found = locate(path, node.level, parts) if parts else None
            if found is not None and not found[1] and _followed(found[0], package):
                out.append(found[0])
    return out


def locate(path, level, parts):
    """(file of the deepest module that dotted `parts` name, imported with `level`
    dots from the file at `path`; the parts left over, attributes of that module)."""
    if level:
        if not os.path.isfile(path):        # source text without a file: no folder
            return None
        start = _package_dir(path, level)
        init = os.path.join(start, "__init__.py")
        found = _walk([start], parts)
        if found is None and os.path.isfile(init):
            found = (init, parts)
    else:
        if not parts:
            return None
        dirs, origin = _top_locations(parts[0])
        if origin is not None:
            found = (origin, parts[1:])
        elif dirs:
            init = next((os.path.join(d, "__init__.py") for d in dirs
                         if os.path.isfile(os.path.join(d, "__init__.py"))), None)
            found = _walk(dirs, parts[1:]) if len(parts) > 1 else None
            if found is None and init is not None:
                found = (init, parts[1:])
        else:
            return None
    return found
