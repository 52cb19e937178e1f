"""Executables that survive the process: the disk side of a JittedFunction's cache.

The in-memory cache keys on object identities; here the key is a digest of everything
known before staging (see `fingerprint`), including the captured environment (see
`guards.Environment.digest`: the values of the globals, module and class attributes,
closure cells and helpers the code reads, so `x * conf.SCALE` misses after conf.py
changes). What is only known after staging (the user helpers it converted, the Python
ints it specialised, the implicit arrays it needed by value) is stored as a small list
of variants under that key; each variant names the executable's own entry. Anything
that cannot be described stably (an object without a stable digest, a program with host
callbacks other than npxla's library routines, a helper defined inside another
function) is simply not persisted.

Records are written with `entry_codec`, which stores data only (never pickle: reading a
planted entry must not run code), and each names its kind, so an executable record
read where a variants list is expected (or the reverse) is a miss, like any entry that
does not decode. The store itself checks owners, modes and that an entry was written
under the key it is read with (see `disk_cache`).
"""
from __future__ import annotations

import dataclasses
import hashlib

from npxla.runtime.cache import fingerprint
from npxla.runtime.xla.program import Staged
from npxla.runtime.cache import disk_cache, entry_codec
from npxla.runtime.lowering import borrowed, callbacks
from npxla.runtime.xla.compile import options_for

_store = None


def store(enabled=None):
    """The process-wide DiskCache, or None when disabled: `enabled` is a function's
    `jit(..., cache=)`, which wins over NPXLA_CACHE_DIR (False: never; True: even
    when the variable says off; None: as the variable says)."""
    global _store
    if enabled is False:
        return None
    root = disk_cache.default_root(force=enabled is True)
    if root is None:
        return None
    if _store is None or _store.root != root:
        _store = disk_cache.DiskCache(root)
    return _store


def function_tag(fn):
    """The start of every key of `fn`'s entries (by module and qualified name, so the
    entries of every version of its source share it): what lets `cache_info` count a
    function's entries and `clear_cache(disk=True)` remove them by listing names only."""
    name = f"{getattr(fn, '__module__', None)}:{getattr(fn, '__qualname__', None)}"
    return hashlib.sha256(name.encode()).hexdigest()[:16]


def signature_key(fn, options, device, memory_key, env=None):
    """Key for one signature of `fn` in environment `env` (its tag, then a digest), or
    None when it has no stable description."""
    treedef, leaf_keys = memory_key[:2]
    h = hashlib.sha256()
    try:
        h.update(fingerprint.environment_digest().encode())
        h.update(fingerprint.function_digest(fn).encode())
        fingerprint.value_digest((options, treedef, leaf_keys, tuple(memory_key[2:3])), h)
        if env is not None:
            env.digest(h)
    except fingerprint.Unstable:
        return None
    h.update(f"{device.platform}:{getattr(device, 'device_kind', '')}".encode())
    return f"{function_tag(fn)}-s{h.hexdigest()}"


_MAX_VARIANTS = 8


def _sub_key(key, deps, values, by_value=()):
    h = hashlib.sha256(key.encode())
    try:
        fingerprint.value_digest((deps, tuple(values), tuple(by_value)), h)
    except fingerprint.Unstable:
        return None
    return f"{key.partition('-')[0]}-e{h.hexdigest()}"     # the function's tag first


def count_entries(fn, enabled=None):
    """How many executables of `fn` (any version of its source) the disk cache holds,
    or None when it is off."""
    cache = store(enabled)
    if cache is None:
        return None
    return len(cache.keys(function_tag(fn) + "-e"))


def remove_entries(fn, enabled=None):
    """Remove every entry of `fn` from the disk cache."""
    cache = store(enabled)
    if cache is not None:
        for key in cache.keys(function_tag(fn) + "-"):
            cache.remove(key)


def load(key, leaves, device, env=None, enabled=None):
    """(staged, executable, positions) from disk, or None.

    The record under `key` lists variants: the helpers (with digests) staging converted,
    the positions of specialised Python scalars and the implicit arrays baked in by
    value. A variant whose helpers still match and whose specialised values are these
    leaves' (and these arrays' contents) names the executable's key; `env` is then
    told which arrays the executable bakes in. `enabled`: see `store`."""
    cache = store(enabled)
    if cache is None or key is None:
        return None
    for deps, positions, labels in _read_variants(cache, key):
        if not all(0 <= i < len(leaves) for i in positions) or \
                not all(map(fingerprint.dependency_holds, deps)):
            continue
        contents = env.contents(labels) if env is not None else ()
        if contents is None:
            continue
        sub = _sub_key(key, deps, [leaves[i] for i in positions], contents)
        record = _read_executable(cache, sub) if sub else None
        if record is None:
            continue
        staged, blob, recipes = record
        try:
            staged.host_callbacks = [callbacks.rebuild(r) for r in recipes]
            _prepare_custom_calls(staged.module_text, device)
            exe = _deserialize(blob, device, staged.host_callbacks)
        except Exception:
            return None
        if env is not None and not env.pin_labels(labels):
            return None
        return staged, exe, positions
    return None


def save(key, leaves, device, staged, executable, positions, owner, env=None,
         enabled=None):
    cache = store(enabled)
    recipes = callbacks.recipes(staged.host_callbacks)
    if cache is None or key is None or recipes is None:
        return
    positions = tuple(sorted(positions))
    labels = env.by_value() if env is not None else ()
    try:
        deps = _dependencies(staged.dependencies, owner)
        sub = _sub_key(key, deps, [leaves[i] for i in positions],
                       env.contents(labels) if env is not None else ())
        entry = _executable_record(staged, _serialize(executable, device), recipes)
        variant = (deps, positions, tuple(labels))
        variants = [v for v in _read_variants(cache, key) if v != variant]
        variants = entry_codec.encode({"kind": "variants", "variants":
                                       [variant] + variants[:_MAX_VARIANTS - 1]})
    except (fingerprint.Unstable, entry_codec.Unencodable, TypeError, AttributeError):
        return                    # no stable description, or not storable as data
    if sub is None:
        return
    cache.put(sub, entry)
    cache.put(key, variants)


def _dependencies(functions, owner):
    deps = set()
    for fn in functions:
        fn = getattr(fn, "__npxla_original__", fn)    # a staging copy (see `overlay`)
        if fn is owner:
            continue
        if "<locals>" in fn.__qualname__:
            if fn.__qualname__.startswith(owner.__qualname__ + ".<locals>."):
                continue          # its source is part of the owner's
            raise fingerprint.Unstable("helper defined inside another function")
        deps.add(fingerprint.dependency(fn))
    return tuple(sorted(deps))


_STAGED_FIELDS = tuple(f.name for f in dataclasses.fields(Staged)
                       if f.name not in ("module", "dependencies"))


def _executable_record(staged, blob, recipes):
    """The encoded record of one executable: Staged field by field (without the live
    module and the converted functions, which `dependencies` re-checks by digest; the
    host callbacks as their recipes, `callbacks.LIBRARY`)."""
    fields = {name: getattr(staged, name) for name in _STAGED_FIELDS}
    fields["host_callbacks"] = []
    return entry_codec.encode({"kind": "executable", "staged": fields, "exe": blob,
                               "callbacks": list(recipes)})


def _read_record(cache, key, kind):
    """The decoded record under `key` when it is a dict of `kind`, else None."""
    payload = cache.get(key)
    if payload is None:
        return None
    try:
        record = entry_codec.decode(payload)
    except entry_codec.CodecError:
        return None
    if type(record) is not dict or record.get("kind") != kind:
        return None
    return record


def _read_executable(cache, key):
    """(Staged, executable bytes, callback recipes) under `key`, or None when absent or
    not well formed."""
    record = _read_record(cache, key, "executable")
    if record is None or type(record.get("exe")) is not bytes or \
            type(record.get("callbacks")) is not list:
        return None
    fields = record.get("staged")
    if type(fields) is not dict or set(fields) != set(_STAGED_FIELDS) or \
            type(fields["module_text"]) is not str or fields["host_callbacks"] or \
            not all(type(fields[name]) is list for name in _STAGED_FIELDS
                    if name not in ("module_text", "out_treedef")):
        return None
    return Staged(**fields, module=None, dependencies=[]), record["exe"], \
        record["callbacks"]


def _read_variants(cache, key):
    """The (deps, positions, labels) variants under `key`; () when absent or malformed."""
    record = _read_record(cache, key, "variants")
    variants = record.get("variants") if record is not None else None
    if type(variants) is not list or not all(map(_is_variant, variants)):
        return ()
    return variants


def _is_variant(v):
    return type(v) is tuple and len(v) == 3 and all(type(part) is tuple for part in v) \
        and all(type(d) is tuple and len(d) == 3 and all(type(s) is str for s in d)
                for d in v[0]) \
        and all(type(i) is int for i in v[1])


def _prepare_custom_calls(module_text, device):
    """LAPACK custom calls borrowed from JAX need JAX's one-time registration, which
    normally happens when JAX lowers them; a loaded executable skips that."""
    if "custom_call" in module_text:
        borrowed.prepare(module_text, device.platform)


def _client(device):
    return device.client


def _serialize(executable, device):
    return _client(device).serialize_executable(executable)


def _deserialize(blob, device, host_callbacks=()):
    from jax._src.lib import xla_client
    return _client(device).deserialize_executable(
        blob, xla_client.DeviceList((device,)), options_for(device),
        list(host_callbacks))
