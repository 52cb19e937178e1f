"""The disk cache trusts nothing it did not write: owners and modes, no pickle, entries
bound to their key, non-regular files, bad settings, and the data-only entry codec."""
import hashlib
import json
import math
import os
import pickle
import stat
import struct
import subprocess
import sys
import textwrap
import threading
import time
import warnings
from collections import namedtuple

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import npxla.runtime.driver.compiled as J     # where executables are compiled
from test_disk_cache import cache_dir, entries  # noqa: F401  (a fixture, a helper)
from npxla.runtime.cache import disk_cache, entry_codec
from npxla.runtime.cache.disk_cache import CacheWarning, DiskCache
from npxla import jit
from npxla.transpiler.base.errors import UnsupportedOperationError

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
X = np.arange(5.0)


def double(x):
    return x * 2.0


def shifted(x):
    return x + 100.0


class MyError(Exception):
    pass


def raises_own_error(x):
    if x.sum() < 0:
        raise MyError("negative")
    return x + 1.0


@pytest.fixture
def compiles(monkeypatch):
    """XLA compiles made in this test (a hit from disk makes none)."""
    counter = []
    orig = J.compile_module
    monkeypatch.setattr(J, "compile_module",
                        lambda *a, **k: (counter.append(1), orig(*a, **k))[1])
    return counter


def kinds(d):
    """{entry key: record kind} for the decodable entries in `d`."""
    out = {}
    cache = DiskCache(str(d))
    for name in entries(d):
        key = name[:-len(".npxc")]
        out[key] = entry_codec.decode(cache.get(key))["kind"]
    return out


def call(fn, x=X):
    """Call with an empty in-memory cache: the disk decides hit or miss."""
    jitted = jit(fn)
    jitted.clear_cache()
    return jitted(x)


def cache_warnings(action):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        action()
    return [w for w in caught if issubclass(w.category, CacheWarning)]


# --- the directory --------------------------------------------------------------------
@pytest.mark.parametrize("mode", [0o777, 0o775, 0o757])
def test_directory_writable_by_others_is_refused_once_without_chmod(cache_dir, mode,
                                                                   compiles):
    cache_dir.mkdir()
    os.chmod(cache_dir, mode)

    def twice():
        np.testing.assert_array_equal(call(double), X * 2)
        np.testing.assert_array_equal(call(double), X * 2)
    found = cache_warnings(twice)
    assert len(found) == 1
    assert str(cache_dir) in str(found[0].message) and "writable" in str(found[0].message)
    assert stat.S_IMODE(os.stat(cache_dir).st_mode) == mode     # not chmodded
    assert entries(cache_dir) == [] and len(compiles) == 2      # no writes, no reads


def test_own_directory_readable_by_others_is_used_and_made_private(cache_dir, compiles):
    cache_dir.mkdir()
    os.chmod(cache_dir, 0o755)
    assert cache_warnings(lambda: call(double)) == []
    assert stat.S_IMODE(os.stat(cache_dir).st_mode) == 0o700
    call(double)
    assert len(compiles) == 1


@pytest.mark.parametrize("mode", [0o777, 0o770])
def test_parent_others_can_write_without_sticky_bit_is_refused(tmp_path, monkeypatch,
                                                               compiles, mode):
    shared = tmp_path / "shared"
    own = shared / "cache"
    own.mkdir(parents=True)
    os.chmod(own, 0o700)
    os.chmod(shared, mode)              # another user could rename `cache` away
    monkeypatch.setenv("NPXLA_CACHE_DIR", str(own))
    found = cache_warnings(lambda: (call(double), call(double)))
    assert len(found) == 1 and "parent" in str(found[0].message)
    assert entries(own) == [] and len(compiles) == 2


def test_parent_with_sticky_bit_like_tmp_is_trusted(tmp_path, monkeypatch, compiles):
    shared = tmp_path / "tmp"
    own = shared / "cache"
    own.mkdir(parents=True)
    os.chmod(shared, 0o1777)
    monkeypatch.setenv("NPXLA_CACHE_DIR", str(own))
    assert cache_warnings(lambda: (call(double), call(double))) == []
    assert len(compiles) == 1


root_only = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                               reason="chown to another user needs root")


@root_only
def test_directory_owned_by_another_user_is_refused(cache_dir, compiles):
    cache_dir.mkdir()
    os.chmod(cache_dir, 0o755)
    os.chown(cache_dir, 65534, 65534)
    found = cache_warnings(lambda: (call(double), call(double)))
    assert len(found) == 1 and "65534" in str(found[0].message)
    assert stat.S_IMODE(os.stat(cache_dir).st_mode) == 0o755
    assert entries(cache_dir) == [] and len(compiles) == 2


def test_link_to_a_directory_writable_by_others_is_refused(tmp_path, monkeypatch, compiles):
    target = tmp_path / "shared"
    target.mkdir()
    os.chmod(target, 0o777)
    link = tmp_path / "link"
    link.symlink_to(target)
    monkeypatch.setenv("NPXLA_CACHE_DIR", str(link))
    assert len(cache_warnings(lambda: call(double))) == 1
    assert entries(target) == []


# --- untrusted entries ------------------------------------------------------------------
def _plant(path, how, other):
    """Replace the entry at `path` with something untrusted."""
    if how == "fifo":
        path.unlink()
        os.mkfifo(path)
    elif how == "symlink":        # a link, even to a valid copy of the entry itself
        path.rename(other)
        path.symlink_to(other)
    elif how == "directory":
        path.unlink()
        path.mkdir()
    elif how == "writable":
        os.chmod(path, 0o666)
    elif how == "foreign":
        os.chown(path, 65534, 65534)


def _unblock(path):
    """Release a reader stuck on a FIFO (a regression) so the test can fail cleanly."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
    except OSError:
        pass


@pytest.mark.parametrize("kind", ["variants", "executable"])
@pytest.mark.parametrize("how", ["fifo", "symlink", "directory", "writable",
                                 pytest.param("foreign", marks=root_only)])
def test_untrusted_entry_is_a_miss_and_does_not_hang(cache_dir, tmp_path, compiles, how,
                                                     kind):
    call(double)
    key = next(k for k, v in kinds(cache_dir).items() if v == kind)
    path = cache_dir / (key + ".npxc")
    _plant(path, how, tmp_path / "moved.npxc")
    result = []
    worker = threading.Thread(target=lambda: result.append(call(double)), daemon=True)
    worker.start()
    worker.join(timeout=60)
    if worker.is_alive():
        _unblock(path)
        pytest.fail(f"a {how} named like an entry hung the call")
    np.testing.assert_array_equal(result[0], X * 2)
    assert len(compiles) == 2                                  # a miss: compiled again
    if how != "directory":                                     # healed by the next save
        assert stat.S_ISREG(os.lstat(path).st_mode) and os.stat(path).st_uid == os.geteuid()
        call(double)
        assert len(compiles) == 2


# --- no pickle, entries bound to their keys -----------------------------------------------
class _Planted:
    """Unpickling this creates a file: evidence that an entry was unpickled."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return open, (self.marker, "w")


def _old_format(payload):
    """An entry as the pickle-based store wrote it, with a valid checksum."""
    return b"NPXLA-CACHE-1\n" + struct.pack("<32sQ", hashlib.sha256(payload).digest(),
                                           len(payload)) + payload


@pytest.mark.parametrize("container", ["old-format", "current-format"])
def test_planted_pickle_is_never_unpickled(cache_dir, tmp_path, compiles, container):
    call(double)
    marker = tmp_path / "pwned"
    payload = pickle.dumps(_Planted(str(marker)))
    for name in entries(cache_dir):
        if container == "old-format":
            (cache_dir / name).write_bytes(_old_format(payload))
        else:                     # checksummed and keyed: only the codec stands in the way
            DiskCache(str(cache_dir)).put(name[:-len(".npxc")], payload)
    np.testing.assert_array_equal(call(double), X * 2)
    assert not marker.exists()
    assert len(compiles) == 2


def test_entry_of_another_function_copied_over_is_a_miss(cache_dir, compiles):
    call(double)
    of_a = kinds(cache_dir)
    call(shifted)
    of_b = {k: v for k, v in kinds(cache_dir).items() if k not in of_a}
    for kind in ("variants", "executable"):
        src = next(k for k, v in of_a.items() if v == kind)
        dst = next(k for k, v in of_b.items() if v == kind)
        (cache_dir / f"{dst}.npxc").write_bytes((cache_dir / f"{src}.npxc").read_bytes())
    np.testing.assert_array_equal(call(shifted), X + 100)
    assert len(compiles) == 3
    np.testing.assert_array_equal(call(shifted), X + 100)     # rewritten: a hit now
    np.testing.assert_array_equal(call(double), X * 2)
    assert len(compiles) == 3


@pytest.mark.parametrize("swap", ["files", "records"])
def test_variants_and_executable_records_swapped_heal(cache_dir, compiles, swap):
    call(double)
    by_kind = {v: k for k, v in kinds(cache_dir).items()}
    var, exe = (cache_dir / f"{by_kind[k]}.npxc" for k in ("variants", "executable"))
    if swap == "files":           # each file holds the other key: the key check refuses
        a, b = var.read_bytes(), exe.read_bytes()
        var.write_bytes(b)
        exe.write_bytes(a)
    else:                         # correctly keyed records of the wrong kind
        cache = DiskCache(str(cache_dir))
        a, b = cache.get(by_kind["variants"]), cache.get(by_kind["executable"])
        cache.put(by_kind["variants"], b)
        cache.put(by_kind["executable"], a)
    np.testing.assert_array_equal(call(double), X * 2)
    assert len(compiles) == 2                                  # a miss
    assert {v: k for k, v in kinds(cache_dir).items()} == by_kind   # rewritten
    np.testing.assert_array_equal(call(double), X * 2)
    assert len(compiles) == 2                                  # then a hit


def test_programs_the_codec_cannot_store_are_not_persisted(cache_dir, compiles):
    np.testing.assert_array_equal(call(raises_own_error), X + 1)   # user exception class
    assert entries(cache_dir) == []
    with pytest.raises(MyError):
        call(raises_own_error, -X)


# --- settings ---------------------------------------------------------------------------
def test_unparsable_size_bound_warns_once_and_uses_the_default(cache_dir, monkeypatch,
                                                              compiles):
    monkeypatch.setenv("NPXLA_CACHE_MAX_BYTES", "abc")
    monkeypatch.setattr(disk_cache, "_warned_limits", set())

    def calls():
        np.testing.assert_array_equal(call(double), X * 2)
        np.testing.assert_array_equal(call(double), X * 2)
        assert DiskCache(str(cache_dir)).max_bytes == disk_cache._DEFAULT_MAX_BYTES
    found = cache_warnings(calls)
    assert len(found) == 1 and "NPXLA_CACHE_MAX_BYTES" in str(found[0].message)
    assert len(compiles) == 1                                  # the cache still works


# --- concurrent writers ------------------------------------------------------------------
WRITER = textwrap.dedent("""
    import sys
    import numpy as np
    sys.path.insert(0, {root!r})
    from npxla import jit
    import npxla.runtime.driver.compiled as J

    def f(x):
        return (x * 3.0).sum() + x[0]

    compiled = []
    orig = J.compile_module
    J.compile_module = lambda *a, **k: (compiled.append(1), orig(*a, **k))[1]
    for n in {sizes!r}:
        assert float(jit(f)(np.arange(float(n)))) == 3.0 * n * (n - 1) / 2
    print(len(compiled))
""")


def _writer(tmp_path, cache_dir, sizes, tag):
    script = tmp_path / f"writer_{tag}.py"
    script.write_text(WRITER.format(root=ROOT, sizes=sizes))
    env = dict(os.environ, NPXLA_CACHE_DIR=str(cache_dir), TF_CPP_MIN_LOG_LEVEL="3")
    return subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)


def _finish(proc):
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    return int(out.split()[-1])


def test_two_processes_writing_at_once_leave_a_loadable_cache(cache_dir, tmp_path):
    first = _writer(tmp_path, cache_dir, [2, 3, 4, 5], "a")
    second = _writer(tmp_path, cache_dir, [4, 5, 6, 7], "b")
    _finish(first), _finish(second)
    assert not any(name.startswith(".tmp-") for name in os.listdir(cache_dir))
    assert _finish(_writer(tmp_path, cache_dir, [2, 3, 4, 5, 6, 7], "c")) == 0


# --- the codec ----------------------------------------------------------------------------
def same(a, b):
    """Equal values of identical types (NaN equal to NaN, -0.0 unlike 0.0)."""
    if type(a) is not type(b):
        return False
    if type(a) is np.ndarray or isinstance(a, np.generic):
        return a.dtype == b.dtype and np.shape(a) == np.shape(b) and \
            np.asarray(a).tobytes() == np.asarray(b).tobytes()
    if type(a) is float:
        return a.hex() == b.hex()
    if type(a) is complex:
        return same(a.real, b.real) and same(a.imag, b.imag)
    if type(a) in (tuple, list):
        return len(a) == len(b) and all(map(same, a, b))
    if type(a) is dict:
        return same(list(a), list(b)) and same(list(a.values()), list(b.values()))
    if isinstance(a, BaseException):
        return same(a.args, b.args) and getattr(a, "__notes__", None) == \
            getattr(b, "__notes__", None)
    return a == b


def _exception(cls, message, notes):
    exc = cls(message)
    for note in notes:
        exc.add_note(note)
    return exc


keys = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=5),
                 st.tuples(st.integers(), st.text(max_size=3)))
arrays = hnp.arrays(st.one_of(hnp.scalar_dtypes(), hnp.unicode_string_dtypes(),
                              hnp.byte_string_dtypes()),
                    hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3))
atoms = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-2**200, max_value=2**200),
    st.floats(), st.complex_numbers(), st.text(max_size=8), st.binary(max_size=16),
    arrays, arrays.map(lambda a: a.reshape(-1)[0] if a.size else np.float32(1.5)),
    hnp.scalar_dtypes(), st.sampled_from([tuple, list, dict, IndexError, np.linalg.LinAlgError,
                                          np.exceptions.AxisError, UnsupportedOperationError]),
    st.builds(_exception, st.sampled_from([ValueError, IndexError, np.linalg.LinAlgError]),
              st.text(max_size=8), st.lists(st.text(max_size=8), max_size=2)))
values = st.recursive(atoms, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.lists(inner, max_size=4).map(tuple),
    st.dictionaries(keys, inner, max_size=4)), max_leaves=20)


@settings(max_examples=150, deadline=None)
@given(values)
def test_codec_round_trips_data(value):
    assert same(entry_codec.decode(entry_codec.encode(value)), value)


@settings(max_examples=100, deadline=None)
@given(values, st.data())
def test_codec_rejects_truncated_and_survives_garbled_input(value, data):
    blob = entry_codec.encode(value)
    cut = data.draw(st.integers(0, len(blob) - 1))
    with pytest.raises(entry_codec.CodecError):
        entry_codec.decode(blob[:cut])
    i = data.draw(st.integers(0, len(blob) - 1))
    garbled = blob[:i] + bytes([blob[i] ^ data.draw(st.integers(1, 255))]) + blob[i + 1:]
    try:
        entry_codec.decode(garbled)        # a flipped content byte may still be data
    except entry_codec.CodecError:
        pass


def _raw(tree, blobs=()):
    """An entry around a hand-written node tree (JSON text when `tree` is a str)."""
    text = (tree if isinstance(tree, str) else json.dumps(tree)).encode()
    return entry_codec.MAGIC + struct.pack("<QQ", len(text), len(blobs)) + text + \
        b"".join(struct.pack("<Q", len(b)) for b in blobs) + b"".join(blobs)


@pytest.mark.parametrize("bad", [
    b"", b"garbage", entry_codec.MAGIC + b"\xff" * 16,
    _raw(["Q"]), _raw({"N": 1}), _raw(["I", "1e5"]), _raw(["I", 5]), _raw(["F", 1.5]),
    _raw(["Y", 1], [b"x"]), _raw(["Y", 0]), _raw(["T", [["Y", 0], ["Y", 0]]], [b"x"]),
    _raw(["N"], [b"unreferenced"]), _raw(["A", "|O", [1], 0], [b"\0" * 8]),
    _raw(["A", "<f8", [2], 0], [b"\0" * 8]), _raw(["A", "<f8", [-1], 0], [b""]),
    _raw(["P", "(2,)i4"]), _raw(["P", "O"]), _raw(["D", [[["L", []], ["N"]]]]),
    _raw(["E", "os", "system"]), _raw(["E", "subprocess", "CalledProcessError"]),
    _raw(["E", "builtins", "print"]), _raw(["E", "builtins", "object"]),
    _raw(["X", "builtins", "ValueError", ["L", []], []]),
    _raw(["X", "builtins", "ValueError", ["T", []], [1]]),
    _raw(["T", [], []]), _raw(["N"]) + b"x", _raw(["N"])[:-1], _raw(["L"]),
    _raw("[" * 5000 + "]" * 5000), _raw('["L", [' + '["L", [' * 200 + "]]" * 200 + "]]"),
    _raw('["S", "\\ud800"'), _raw(["I", "9" * 5000]), _raw(["F", "0x1p+99999999"]),
])
def test_decoder_rejects_malformed_input_with_its_error(bad):
    with pytest.raises(entry_codec.CodecError):
        entry_codec.decode(bad)


Point = namedtuple("Point", "x y")


@pytest.mark.parametrize("value", [
    double, object(), Point, Point(1, 2), MyError, MyError("x"), np.array([1, None]),
    np.dtype([("a", "<i4")]), type("IntSub", (int,), {})(3), {1: lambda: 0},
    UnsupportedOperationError("m", hint="not the default"), np.ma.masked_array([1]),
    (tuple, (Point,)), pickle, range(3), {1, 2}, frozenset(), b"x".decode,
])
def test_encoder_refuses_what_it_cannot_rebuild(value):
    with pytest.raises(entry_codec.Unencodable):
        entry_codec.encode(value)


def test_treedefs_and_error_messages_round_trip():
    treedef = (tuple, ((dict, ("a", 1), (None, (list, (None,)))), None))
    messages = ["index out of bounds", (IndexError, "i", None),
                (np.linalg.LinAlgError, "Singular matrix", "f.py:3"),
                _exception(ValueError, "v", ["at f.py:9"])]
    value = {"out_treedef": treedef, "error_messages": messages,
             "arg_avals": [((3, 2), np.dtype("float32"))]}
    assert same(entry_codec.decode(entry_codec.encode(value)), value)
    assert math.isnan(entry_codec.decode(entry_codec.encode(float("nan"))))


def test_decoding_is_fast_for_a_large_blob():
    blob = os.urandom(1 << 24)
    encoded = entry_codec.encode({"exe": blob})
    assert len(encoded) < len(blob) + 200          # raw, not base64-inflated
    start = time.perf_counter()
    assert entry_codec.decode(encoded)["exe"] == blob
    assert time.perf_counter() - start < 1.0
