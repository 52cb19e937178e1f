"""A persistent, size-bounded store of compiled executables, one file per entry.

Compiling with XLA is the bulk of a first call; a new process that finds the
executable on disk skips it (and staging). Entries are written atomically (a temporary
file in the same directory, then `os.replace`) and carry a checksum over their key and
payload, so a truncated or corrupted file, or a valid entry copied under another key's
name, is detected and dropped instead of loaded. When the store grows past its bound,
the least recently used entries are removed.

What is trusted: only a directory owned by the current user and not writable by group
or others (anyone who can write there could plant entries), and in it only regular
files with the same owner and mode. A refused directory is reported once
(`CacheWarning`) and the process runs without the disk cache. npxla creates its
directory with mode 0700 and never changes the mode of a directory it does not own.

Location: `$NPXLA_CACHE_DIR`, else `$XDG_CACHE_HOME/npxla`, else `~/.cache/npxla`.
`NPXLA_CACHE_DIR=off` disables it (except for `jit(f, cache=True)`); `NPXLA_CACHE_MAX_BYTES`
bounds it (default 1 GiB).
"""
from __future__ import annotations

import hashlib
import os
import re
import stat
import struct
import tempfile
import warnings

_MAGIC = b"NPXLA-CACHE-2\n"
_DIGEST = 32                          # sha256 of everything after it: lengths, key, payload
_LENGTHS = struct.Struct("<IQ")       # key length, payload length
_DEFAULT_MAX_BYTES = 1 << 30
_SUFFIX = ".npxc"
_KEY = re.compile(r"[A-Za-z0-9_-]{1,128}")
_UID = os.geteuid() if hasattr(os, "geteuid") else None
_READ_FLAGS = (os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
               | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))
_warned_limits: set = set()


class CacheWarning(UserWarning):
    """The disk cache is not used (an untrusted directory) or a setting is ignored."""


def default_root(force=False):
    """The cache directory, or None when NPXLA_CACHE_DIR turns the cache off. `force`
    (a function's `jit(..., cache=True)`): the directory even then, the default one
    when the variable names none."""
    env = os.environ.get("NPXLA_CACHE_DIR")
    if env is not None:
        if env.strip().lower() not in ("", "0", "off", "none"):
            return env
        if not force:
            return None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "npxla")


def default_max_bytes():
    """`NPXLA_CACHE_MAX_BYTES`, or the default; a value that is not a non-negative
    integer is reported once and ignored (a typo must not make every call raise)."""
    text = os.environ.get("NPXLA_CACHE_MAX_BYTES")
    if text is None:
        return _DEFAULT_MAX_BYTES
    try:
        value = int(text.strip())
    except ValueError:
        value = -1
    if value >= 0:
        return value
    if text not in _warned_limits:
        _warned_limits.add(text)
        warnings.warn(f"npxla: NPXLA_CACHE_MAX_BYTES={text!r} is not a number of bytes; "
                      f"using the default ({_DEFAULT_MAX_BYTES})", CacheWarning, stacklevel=2)
    return _DEFAULT_MAX_BYTES


class DiskCache:
    def __init__(self, root=None, max_bytes=None):
        self.root = root
        self.max_bytes = default_max_bytes() if max_bytes is None else max_bytes
        self.refused = None           # why the directory is not trusted, once known

    def _path(self, key: str) -> str:
        if not _KEY.fullmatch(key):
            raise ValueError(f"invalid cache key {key!r}")
        return os.path.join(self.root, key + _SUFFIX)

    def _trusted(self, create=False) -> bool:
        """Whether the directory may be used; creates it (mode 0700) when asked.
        A directory that exists but is not trusted disables the store for good."""
        if self.refused is not None:
            return False
        if create:
            try:
                os.makedirs(self.root, mode=0o700, exist_ok=True)
            except OSError:
                return False
        reason = _distrust_directory(self.root)
        if reason == "missing":
            return False
        if reason is not None:
            self.refused = reason
            warnings.warn(f"npxla: not using the compile cache in {self.root!r}: {reason}; "
                          f"running without it (set NPXLA_CACHE_DIR to a private directory)",
                          CacheWarning, stacklevel=3)
            return False
        if create:
            _keep_private(self.root)
        return True

    def get(self, key: str) -> bytes | None:
        """The payload stored under `key`, or None (missing, untrusted, unreadable,
        corrupt or another key's entry)."""
        path = self._path(key)
        if not self._trusted():
            return None
        data = _read_trusted_file(path)
        if data is None:
            return None
        payload = _unpack(key, data)
        if payload is None:           # never load a damaged entry: drop it
            _remove(path)
            return None
        try:
            os.utime(path)            # recency for eviction
        except OSError:
            pass
        return payload

    def put(self, key: str, payload: bytes):
        path = self._path(key)
        if not self._trusted(create=True):
            return
        try:
            fd, tmp = tempfile.mkstemp(dir=self.root, prefix=".tmp-", suffix=_SUFFIX)
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(_pack(key, payload))
                    f.flush()
                    os.fsync(f.fileno())
                os.replace(tmp, path)   # replaces whatever had the name (a FIFO, a link)
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
                try:
                    st = entry.stat(follow_symlinks=False)
                except OSError:       # removed meanwhile by another process
                    continue
                entries.append((st.st_mtime, st.st_size, entry.path))
                total += st.st_size
        for _, size, path in sorted(entries):
            if total <= self.max_bytes:
                break
            _remove(path)
            total -= size

    def keys(self, prefix: str = "") -> list:
        """The keys of the entries whose key starts with `prefix` (none when the
        directory is missing or not trusted)."""
        if not self.root or not os.path.isdir(self.root) or not self._trusted():
            return []
        try:
            names = [e.name for e in os.scandir(self.root)]
        except OSError:
            return []
        return sorted(n[:-len(_SUFFIX)] for n in names if n.endswith(_SUFFIX) and
                      n.startswith(prefix) and not n.startswith(".tmp-"))

    def remove(self, key: str) -> None:
        _remove(self._path(key))

    def clear(self):
        if self.root and os.path.isdir(self.root) and self._trusted():
            for entry in os.scandir(self.root):
                if entry.name.endswith(_SUFFIX):
                    _remove(entry.path)


def _distrust_directory(root):
    """Why `root` must not be used ("missing" when it does not exist), or None. Only the
    current user may be able to write there; a link to it must be theirs too."""
    try:
        link = os.lstat(root)
        st = os.stat(root)
    except FileNotFoundError:
        return "missing"
    except OSError as e:
        return f"cannot inspect it ({e.strerror})"
    if not stat.S_ISDIR(st.st_mode):
        return "it is not a directory"
    if _UID is not None:
        if stat.S_ISLNK(link.st_mode) and link.st_uid != _UID:
            return f"it is a symbolic link owned by uid {link.st_uid}, not {_UID}"
        if st.st_uid != _UID:
            return f"it is owned by uid {st.st_uid}, not by the current user ({_UID})"
    if st.st_mode & 0o022:
        return f"it is writable by group or others (mode {stat.S_IMODE(st.st_mode):o})"
    return _distrust_parents(os.path.realpath(root))


def _distrust_parents(path):
    """Why an ancestor of `path` lets another user replace it, or None: a directory that
    others can write without the sticky bit (which /tmp has) lets them rename ours away
    and put theirs in its place. Ancestors owned by root or by us are ours to trust."""
    parent = os.path.dirname(path)
    while parent and parent != path:
        try:
            st = os.stat(parent)
        except OSError as e:
            return f"cannot inspect its parent {parent} ({e.strerror})"
        if st.st_mode & 0o022 and not st.st_mode & stat.S_ISVTX:
            return (f"its parent {parent} is writable by group or others without the "
                    f"sticky bit (mode {stat.S_IMODE(st.st_mode):o})")
        if _UID is not None and st.st_uid not in (0, _UID):
            return f"its parent {parent} is owned by uid {st.st_uid}"
        path, parent = parent, os.path.dirname(parent)
    return None


def _keep_private(root):
    """Drop group/other read access from a directory already checked to be ours: what
    the cache holds (the user's programs, compiled) is theirs alone."""
    try:
        if os.stat(root).st_mode & 0o077:
            os.chmod(root, 0o700)
    except OSError:
        pass


def _read_trusted_file(path):
    """The bytes of the entry at `path`, or None unless it is a regular file owned by
    the current user and not writable by group or others. Opened without following a
    link and without blocking, so a FIFO or device under an entry's name is a miss."""
    try:
        fd = os.open(path, _READ_FLAGS)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_mode & 0o022 or \
                (_UID is not None and st.st_uid != _UID):
            return None
        with os.fdopen(fd, "rb") as f:
            fd = None
            return f.read()
    except OSError:
        return None
    finally:
        if fd is not None:
            os.close(fd)


def _pack(key: str, payload: bytes) -> bytes:
    """MAGIC, digest, lengths, key, payload: the key is under the checksum, so an entry
    copied under another key's name does not verify."""
    name = key.encode("ascii")
    body = _LENGTHS.pack(len(name), len(payload)) + name + payload
    return _MAGIC + hashlib.sha256(body).digest() + body


def _unpack(key: str, data: bytes) -> bytes | None:
    """The payload of `data` when it is intact and was stored under `key`, else None."""
    head = len(_MAGIC) + _DIGEST + _LENGTHS.size
    if len(data) < head or not data.startswith(_MAGIC):
        return None
    key_len, length = _LENGTHS.unpack(data[len(_MAGIC) + _DIGEST:head])
    if len(data) != head + key_len + length or \
            hashlib.sha256(data[len(_MAGIC) + _DIGEST:]).digest() != \
            data[len(_MAGIC):len(_MAGIC) + _DIGEST]:
        return None
    if data[head:head + key_len] != key.encode("ascii"):
        return None
    return data[head + key_len:]


def _remove(path):
    try:
        os.remove(path)
    except OSError:
        pass
