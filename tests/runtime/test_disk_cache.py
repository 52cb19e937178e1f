"""The persistent compile cache: storage integrity, keys, and reuse across processes."""
import os
import stat
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from npxla.runtime.cache import persist
from npxla.runtime.cache.disk_cache import DiskCache, default_root

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    d = tmp_path / "cache"
    monkeypatch.setenv("NPXLA_CACHE_DIR", str(d))
    return d


def entries(d):
    return sorted(p for p in os.listdir(d) if p.endswith(".npxc")) if d.exists() else []


# --- storage ------------------------------------------------------------------------
def test_round_trip_and_private_directory(cache_dir):
    c = DiskCache(str(cache_dir))
    assert c.get("k") is None
    c.put("k", b"payload")
    assert c.get("k") == b"payload"
    assert stat.S_IMODE(os.stat(cache_dir).st_mode) == 0o700


def test_location_from_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("NPXLA_CACHE_DIR", str(tmp_path / "x"))
    assert default_root() == str(tmp_path / "x")
    monkeypatch.setenv("NPXLA_CACHE_DIR", "off")
    assert default_root() is None and persist.store() is None
    monkeypatch.delenv("NPXLA_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_root() == str(tmp_path / "xdg" / "npxla")


@pytest.mark.parametrize("damage", ["truncate", "flip", "garbage", "empty"])
def test_damaged_entries_are_detected_and_removed(cache_dir, damage):
    c = DiskCache(str(cache_dir))
    c.put("k", b"x" * 1000)
    path = cache_dir / entries(cache_dir)[0]
    data = path.read_bytes()
    path.write_bytes({"truncate": data[:-10], "flip": data[:-1] + bytes([data[-1] ^ 1]),
                      "garbage": b"not a cache entry", "empty": b""}[damage])
    assert c.get("k") is None
    assert not path.exists()


def test_an_entry_is_bound_to_its_key(cache_dir):
    c = DiskCache(str(cache_dir))
    c.put("a", b"payload of a")
    (cache_dir / "b.npxc").write_bytes((cache_dir / "a.npxc").read_bytes())
    assert c.get("b") is None and c.get("a") == b"payload of a"
    assert not (cache_dir / "b.npxc").exists()       # dropped; the next save rewrites it
    c.put("b", b"payload of b")
    assert c.get("b") == b"payload of b"


def test_keys_cannot_name_paths(cache_dir):
    c = DiskCache(str(cache_dir))
    for key in ("../escape", "a/b", "", "."):
        with pytest.raises(ValueError):
            c.get(key)


def test_writes_are_atomic_no_partial_files_left(cache_dir):
    c = DiskCache(str(cache_dir))
    for i in range(5):
        c.put(f"k{i}", os.urandom(100))
    assert all(not name.startswith(".tmp-") for name in os.listdir(cache_dir))


def test_size_bound_evicts_least_recently_used(cache_dir):
    c = DiskCache(str(cache_dir), max_bytes=2500)
    for i in range(4):
        c.put(f"k{i}", b"y" * 1000)
        os.utime(cache_dir / f"k{i}.npxc", (1000 + i, 1000 + i))
    c.put("k4", b"y" * 1000)
    names = entries(cache_dir)
    assert "k4.npxc" in names and "k0.npxc" not in names and len(names) == 2


# --- reuse within and across processes ---------------------------------------------------
SCRIPT = textwrap.dedent("""
    import sys, time
    import numpy as np
    sys.path.insert(0, {root!r})
    from npxla import jit
    import npxla.runtime.driver.compiled as J
    from tests.runtime.compile_counter import count_compiles

    SCALE = {scale}

    def helper(v):
        return v * SCALE

    def f(x, n):
        s = 0.0
        for i in range(n):
            s = s + helper(x[i])
        return s + x[:n].sum()

    compiled = count_compiles(J)
    r = jit(f)(np.arange(6.0), 3)
    print(repr(float(r)), len(compiled))
""")


def run_script(cache_dir, scale=2.0, tmp=None):
    path = cache_dir.parent / f"prog_{abs(hash(scale))}.py"
    path.write_text(SCRIPT.format(root=ROOT, scale=scale))
    env = dict(os.environ, NPXLA_CACHE_DIR=str(cache_dir), TF_CPP_MIN_LOG_LEVEL="3")
    out = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                         env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    value, compiles = out.stdout.split()
    return float(value), int(compiles)


def test_a_new_process_reuses_the_executable(cache_dir):
    first = run_script(cache_dir)
    second = run_script(cache_dir)
    assert first == (9.0, 1)                 # 2*(0+1+2) + (0+1+2)
    assert second == (9.0, 0)                # loaded from disk, no XLA compile


@pytest.mark.slow     # heavy: CI's slow run covers it (tests/matrix.py)
def test_changed_global_value_is_a_different_key(cache_dir):
    assert run_script(cache_dir, scale=2.0) == (9.0, 1)
    assert run_script(cache_dir, scale=3.0) == (12.0, 1)
    assert run_script(cache_dir, scale=2.0) == (9.0, 0)


@pytest.mark.slow     # heavy: CI's slow run covers it (tests/matrix.py)
def test_corrupt_entry_is_recompiled_not_loaded(cache_dir):
    run_script(cache_dir)
    for name in entries(cache_dir):
        p = cache_dir / name
        p.write_bytes(p.read_bytes()[:-7])
    assert run_script(cache_dir) == (9.0, 1)


def test_two_lambdas_on_one_line_are_two_programs(cache_dir):
    """`inspect.getsource` of a lambda is its whole line: the key digested that, so the
    second lambda of a line was served the first one's program from the disk."""
    from npxla import jit
    x = np.array([1.0, 4.0])
    f, g = (lambda a: a + 1), (lambda a: a * 10)
    np.testing.assert_array_equal(jit(f)(x), x + 1)
    np.testing.assert_array_equal(jit(g)(x), x * 10)


def test_key_covers_signature_closure_and_source(cache_dir):
    from npxla import jit

    def make(k):
        def g(x):
            return x * k
        return g
    x = np.ones(3)
    j2, j3 = jit(make(2.0)), jit(make(3.0))
    d = j2.device
    keys = set()
    for j, arg in ((j2, x), (j3, x), (j2, np.ones(4)), (j2, np.ones(3, np.float32))):
        from npxla.runtime.staging.pytree import flatten, leaf_key
        leaves = []
        td = flatten(((arg,), {}), leaves)
        from npxla.runtime.driver.guards import Environment
        keys.add(persist.signature_key(j._fn, j._options(), d,
                                       (td, tuple(map(leaf_key, leaves))),
                                       Environment(j._fn, (arg,), {})))
    assert len(keys) == 4 and None not in keys


def test_key_covers_npxla_own_source(tmp_path, monkeypatch):
    """Programs staged by other npxla code must not be loaded: the digest walks every
    source file (it once walked a folder that did not exist after a move, and stale
    programs came back from the cache)."""
    from npxla.runtime.cache import fingerprint
    files = fingerprint.source_files()
    names = {os.path.relpath(f, fingerprint._PACKAGE_ROOT) for f in files}  # installed too
    assert os.path.join("runtime", "cache", "fingerprint.py") in names
    assert os.path.join("runtime", "numpy", "reductions", "reductions.py") in names
    assert os.path.join("transpiler", "converters", "control_flow.py") in names
    assert len(names) > 100
    before = fingerprint.environment_digest()
    fingerprint.environment_digest.cache_clear()
    victim = files[len(files) // 2]
    st = os.stat(victim)
    try:
        os.utime(victim, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
        assert fingerprint.environment_digest() != before
    finally:
        os.utime(victim, ns=(st.st_atime_ns, st.st_mtime_ns))
        fingerprint.environment_digest.cache_clear()
    assert fingerprint.environment_digest() == before


def test_key_covers_xla_flags(monkeypatch):
    """A program compiled under other XLA_FLAGS (code generators, backend options such
    as the small-loop threshold npxla sets unless the user does) is another program."""
    from npxla.runtime.cache import fingerprint
    fingerprint.environment_digest.cache_clear()
    before = fingerprint.environment_digest()
    try:
        monkeypatch.setenv("XLA_FLAGS", os.environ.get("XLA_FLAGS", "") +
                           " --xla_cpu_enable_fast_math=false")
        fingerprint.environment_digest.cache_clear()
        assert fingerprint.environment_digest() != before
    finally:
        monkeypatch.undo()
        fingerprint.environment_digest.cache_clear()
    assert fingerprint.environment_digest() == before


def test_programs_with_host_callbacks_are_not_persisted(cache_dir):
    from npxla import jit

    def p(x):
        print("value", x)
        return x + 1
    jit(p)(np.ones(2))
    assert entries(cache_dir) == []


LIBRARY_SCRIPT = textwrap.dedent("""
    import sys
    import numpy as np
    sys.path.insert(0, {root!r})
    from npxla import jit
    import npxla.runtime.driver.compiled as J
    from tests.runtime.compile_counter import count_compiles
    from npxla.runtime.numpy.linalg import host_matmul

    host_matmul.GRAM_MIN_SIDE, host_matmul.GRAM_MIN_MACS = 1, 1

    def f(x, a):
        y = np.tanh(x) + np.log1p(x * x)          # NumPy's loops, called back
        return np.sort(y)[::-1], a @ a.T + 1.0    # a sort and a product (syrk), too

    compiled = count_compiles(J)
    x = np.linspace(-3.0, 3.0, 5000)
    a = np.arange(24.0).reshape(6, 4) / 7
    s, p = jit(f)(x, a)
    ws, wp = f(x, a)
    print(bool(np.array_equal(s, ws) and np.array_equal(p, wp)), len(compiled))
""")


def test_programs_calling_npxla_s_library_back_are_persisted(cache_dir):
    from npxla.runtime.numpy.ufuncs import host_ufuncs
    if not host_ufuncs.ENABLED:
        pytest.skip("NumPy's AVX-512 loops are not in use on this host")
    path = cache_dir.parent / "library_prog.py"
    path.write_text(LIBRARY_SCRIPT.format(root=ROOT))
    env = dict(os.environ, NPXLA_CACHE_DIR=str(cache_dir), TF_CPP_MIN_LOG_LEVEL="3")
    runs = []
    for _ in range(2):
        out = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                             env=env, timeout=120)
        assert out.returncode == 0, out.stderr
        runs.append(out.stdout.split())
    assert runs == [["True", "1"], ["True", "0"]]      # the second process loads it


def test_a_stored_callback_can_only_be_a_registered_library_routine():
    from npxla.runtime.lowering import callbacks
    fn = callbacks.rebuild((1, "ufunc", "exp"))
    out = np.empty(3)
    fn(None, np.array([0.0, 1.0, -1.0]), out)
    np.testing.assert_array_equal(out, np.exp([0.0, 1.0, -1.0]))
    assert fn.npxla_pure
    for bad in [(1, "os.system", "ls"), (1, "ufunc", "system"), (1, "ufunc", ["exp"]),
                (1, "product", "eval"), (1, "sort", "0"), (1, "partition", 0, [1]),
                ("1", "ufunc", "exp"), (1,), [1, "ufunc", "exp"]]:
        with pytest.raises((KeyError, ValueError, TypeError)):
            callbacks.rebuild(bad)
