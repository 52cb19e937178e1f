"""Stable digests of what a compiled executable depends on, for the disk cache.

In-memory caches can key on object identity; a cache shared between processes needs
digests that survive a restart: the function's source and defaults, the signature, the
device, the versions of npxla (its own source), JAX, jaxlib, NumPy and Python, and
everything the code reads from its environment (globals, closure cells, module and
class attributes, helpers: `guards.Environment.digest`, built from the same capture
as the per-call guard). User helpers that staging converted are recorded with their
own digests and re-checked on load.
"""
from __future__ import annotations

import functools
import hashlib
import inspect
import marshal
import os
import sys
import types

import numpy as np

from npxla.runtime.numpy.ufuncs import host_ufuncs


class Unstable(Exception):
    """A value without a digest that is stable across processes (no disk caching)."""


def value_digest(value, h, depth=0):
    """Feed a process-independent description of `value` into hash `h`."""
    if depth > 20:
        raise Unstable("nested too deeply")
    t = type(value)
    if value is None or t in (bool, int, float, complex, str, bytes):
        h.update(f"{t.__name__}:{value!r};".encode())
    elif isinstance(value, (np.ndarray, np.generic)):
        arr = np.ascontiguousarray(value)
        h.update(f"nd:{arr.dtype.str}:{arr.shape}:".encode())
        h.update(arr.tobytes() if arr.dtype != object else _refuse())
    elif t in (tuple, list, frozenset, set):
        items = sorted(value, key=repr) if t in (set, frozenset) else value
        h.update(f"{t.__name__}[".encode())
        for v in items:
            value_digest(v, h, depth + 1)
        h.update(b"]")
    elif t is dict:
        h.update(b"dict{")
        for k in sorted(value, key=repr):
            value_digest(k, h, depth + 1)
            value_digest(value[k], h, depth + 1)
        h.update(b"}")
    elif isinstance(value, types.ModuleType):
        h.update(f"module:{value.__name__};".encode())
    elif isinstance(value, (type, types.FunctionType, types.BuiltinFunctionType, np.ufunc)):
        h.update(f"callable:{getattr(value, '__module__', '')}."
                 f"{getattr(value, '__qualname__', getattr(value, '__name__', '?'))};"
                 .encode())
    elif isinstance(value, np.dtype):
        h.update(f"dtype:{value.str};".encode())
    elif hasattr(value, "value") and type(value).__name__ == "Static":
        value_digest(value.value, h, depth + 1)
    else:
        raise Unstable(f"no stable digest for {t.__name__}")


def _refuse():
    raise Unstable("object array")


def function_digest(fn) -> str:
    """Name, source and defaults of `fn` (what it reads from globals and cells is
    digested by `guards.Environment.digest`)."""
    if not isinstance(fn, types.FunctionType):
        raise Unstable("not a Python function")
    h = hashlib.sha256()
    try:
        source = inspect.getsource(fn)
    except (OSError, TypeError):
        raise Unstable("no source") from None
    h.update(f"{fn.__module__}.{fn.__qualname__}\n{source}".encode())
    # the code itself: `getsource` of a lambda is its whole line, so two lambdas on one
    # line (`f, g = lambda a: a + 1, lambda a: a * 10`) had one digest and shared a
    # program
    _code_digest(fn.__code__, h)
    value_digest(fn.__defaults__, h)
    value_digest(fn.__kwdefaults__, h)
    return h.hexdigest()


def _code_digest(code, h):
    """What a code object computes: its bytecode, names and constants (nested code
    objects alike), not where it sits (file name, line numbers), so the same function
    in another file or moved down its file is the same program. Bytecode is stable for
    one Python version, which the key holds."""
    h.update(code.co_code)
    h.update(repr((code.co_names, code.co_varnames, code.co_freevars, code.co_cellvars,
                   code.co_argcount, code.co_kwonlyargcount, code.co_flags)).encode())
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            _code_digest(const, h)
        else:
            h.update(marshal.dumps(const) if _marshalable(const) else repr(const).encode())


def _marshalable(value):
    try:
        marshal.dumps(value)
        return True
    except ValueError:
        return False


# the npxla package: this file is npxla/runtime/cache/fingerprint.py
_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def source_files():
    """npxla's own `.py` files (runtime and transpiler), in a stable order. Checked by a
    test: when this file moved one folder down, the walk found nothing, and programs
    staged by older code were loaded from the disk cache after npxla changed."""
    out = []
    for package in ("runtime", "transpiler"):
        for dirpath, dirnames, filenames in os.walk(os.path.join(_PACKAGE_ROOT, package)):
            dirnames.sort()
            out.extend(os.path.join(dirpath, name) for name in sorted(filenames)
                       if name.endswith(".py"))
    return out


@functools.lru_cache(maxsize=1)
def environment_digest() -> str:
    """npxla's own source files (path, size and modification time: reading them all
    would cost milliseconds of every warm start), the library versions, the Python
    version, XLA_FLAGS (read once per process, by XLA too: a program compiled with
    other code generators or options must not come back from the cache) and whether
    large arrays' functions are NumPy's loops (`host_ufuncs`: a cache shared by hosts
    with and without AVX-512 must not hand one's programs to the other)."""
    import jax
    import jaxlib
    h = hashlib.sha256()
    h.update(f"{sys.version}|{np.__version__}|{jax.__version__}|{jaxlib.__version__}|"
             f"{os.environ.get('XLA_FLAGS', '')}|{host_ufuncs.ENABLED}".encode())
    for path in source_files():
        st = os.stat(path)
        h.update(f"{path}:{st.st_size}:{st.st_mtime_ns};".encode())
    return h.hexdigest()


def dependency(fn):
    """(module, qualname, digest) of a user function converted while staging."""
    return (fn.__module__, fn.__qualname__, function_digest(fn))


def dependency_holds(dep) -> bool:
    """Whether a recorded helper still has the digest it had when the entry was made."""
    module, qualname, digest = dep
    obj = sys.modules.get(module)
    for part in qualname.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return False
    obj = getattr(obj, "__wrapped__", obj)
    try:
        return isinstance(obj, types.FunctionType) and function_digest(obj) == digest
    except Unstable:
        return False
