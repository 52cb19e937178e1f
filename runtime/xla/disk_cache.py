"""A persistent, size-bounded store of compiled executables, one file per entry.

Compiling with XLA is the bulk of a first call; a new process that finds the
executable on disk skips it (and staging). Entries are written atomically (a temporary
file in the same directory, then `os.replace`), carry a checksum so that a truncated or
corrupted file is detected and deleted instead of loaded, and the directory is private
to the user (mode 0700). When the store grows past its bound, the least recently used
entries are removed.

Location: `$NPXLA_CACHE_DIR`, else `$XDG_CACHE_HOME/npxla`, else `~/.cache/npxla`.
`NPXLA_CACHE_DIR=off` disables it; `NPXLA_CACHE_MAX_BYTES` bounds it (default 1 GiB).
"""
from __future__ import annotations

import hashlib
import os
import struct
import tempfile

_MAGIC = b"NPXLA-CACHE-1\n"
_HEADER = struct.Struct("<32sQ")     # sha256 of the payload, payload length
_DEFAULT_MAX_BYTES = 1 << 30
_SUFFIX = ".npxc"


def default_root():
    env = os.environ.get("NPXLA_CACHE_DIR")
    if env is not None:
        return None if env.strip().lower() in ("", "0", "off", "none") else env
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "npxla")


class DiskCache:
    def __init__(self, root=None, max_bytes=None):
        self.root = root
        if max_bytes is None:
            max_bytes = int(os.environ.get("NPXLA_CACHE_MAX_BYTES", _DEFAULT_MAX_BYTES))
        self.max_bytes = max_bytes

    def _path(self, key: str) -> str:
        return os.path.join(self.root, key + _SUFFIX)

    def _ensure_root(self):
        os.makedirs(self.root, mode=0o700, exist_ok=True)
        if os.stat(self.root).st_mode & 0o077:
            os.chmod(self.root, 0o700)

    def get(self, key: str) -> bytes | None:
        """The payload stored under `key`, or None (missing, unreadable or corrupt)."""
        path = self._path(key)
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError:
            return None
        payload = _unpack(data)
        if payload is None:           # never load a damaged entry: drop it
            _remove(path)
            return None
        try:
            os.utime(path)            # recency for eviction
        except OSError:
            pass
        return payload

    def put(self, key: str, payload: bytes):
        try:
            self._ensure_root()
            fd, tmp = tempfile.mkstemp(dir=self.root, prefix=".tmp-", suffix=_SUFFIX)
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(_pack(payload))
                    f.flush()
                    os.fsync(f.fileno())
                os.replace(tmp, self._path(key))
            except BaseException:
                _remove(tmp)
                raise
            self._evict()
        except OSError:
            pass                      # a cache that cannot be written is just a miss later

    def _evict(self):
        entries = []
        total = 0
        for entry in os.scandir(self.root):
            if entry.name.endswith(_SUFFIX) and not entry.name.startswith(".tmp-"):
                st = entry.stat()
                entries.append((st.st_mtime, st.st_size, entry.path))
                total += st.st_size
        for _, size, path in sorted(entries):
            if total <= self.max_bytes:
                break
            _remove(path)
            total -= size

    def clear(self):
        if self.root and os.path.isdir(self.root):
            for entry in os.scandir(self.root):
                if entry.name.endswith(_SUFFIX):
                    _remove(entry.path)


def _pack(payload: bytes) -> bytes:
    return _MAGIC + _HEADER.pack(hashlib.sha256(payload).digest(), len(payload)) + payload


def _unpack(data: bytes) -> bytes | None:
    head = len(_MAGIC) + _HEADER.size
    if len(data) < head or not data.startswith(_MAGIC):
        return None
    digest, length = _HEADER.unpack(data[len(_MAGIC):head])
    payload = data[head:]
    if len(payload) != length or hashlib.sha256(payload).digest() != digest:
        return None
    return payload


def _remove(path):
    try:
        os.remove(path)
    except OSError:
        pass
