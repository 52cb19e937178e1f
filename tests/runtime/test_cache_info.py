"""`f.cache_info()`, `f.clear_cache(disk=True)` and the per-function `cache=` option
(issue 38): counts, records, and the precedence of `cache=` over NPXLA_CACHE_DIR."""
import os

import numpy as np
import pytest

import npxla
from npxla import jit


def poly(x, n):
    return x * x + n


def shift(x):
    return x - 1.5


def entries(d):
    return sorted(p for p in os.listdir(d) if p.endswith(".npxc")) if os.path.isdir(d) \
        else []


def test_hits_misses_and_records():
    f = jit(poly)
    f.clear_cache()
    x = np.arange(4.0)
    for _ in range(3):
        np.testing.assert_array_equal(f(x, 2), poly(x, 2))     # general, then fast path
    f(np.arange(5.0), 2)
    f(x, n=2)                                     # another tree: a keyword argument
    info = f.cache_info()
    assert isinstance(info, npxla.CacheInfo)
    assert (info.hits, info.misses, info.in_memory, info.disk_loads) == (2, 3, 3, 0)
    assert info.on_disk is None                   # NPXLA_CACHE_DIR=off in the tests
    assert info.compile_seconds > 0
    assert [s.signature for s in info.signatures] == ["f64[4], int", "f64[5], int",
                                                      "f64[4], int"]
    first, second, _ = info.signatures
    assert first.reason == "first call" and first.source == "compiled"
    assert "x: f64[4] -> f64[5]" in second.reason
    assert info.compile_seconds == pytest.approx(sum(s.seconds for s in info.signatures),
                                                 abs=1e-5)
    f.clear_cache()
    assert f.cache_info()[:5] == (0, 0, 0, None, 0)
    assert f.cache_clear == f.clear_cache


def test_specialised_values_count_as_programs():
    def zeros_of(x, n):
        return np.zeros(n) + x.sum()
    f = jit(zeros_of)
    for n in (2, 3, 2):
        np.testing.assert_array_equal(f(np.ones(2), n), zeros_of(np.ones(2), n))
    info = f.cache_info()
    assert (info.hits, info.misses, info.in_memory) == (1, 2, 2)
    assert "n: a Python value the program needs as a constant is now 3" in \
        info.signatures[1].reason


def test_cache_false_never_touches_the_disk(tmp_path, monkeypatch):
    d = tmp_path / "cache"
    monkeypatch.setenv("NPXLA_CACHE_DIR", str(d))
    f = jit(shift, cache=False)
    np.testing.assert_array_equal(f(np.ones(3)), shift(np.ones(3)))
    assert entries(d) == [] and f.cache_info().on_disk is None
    g = jit(shift)                  # the default follows the variable
    assert g is not f
    g.clear_cache()
    g(np.ones(3))
    assert len(entries(d)) == 2 and g.cache_info().on_disk == 1


def test_cache_true_wins_over_the_variable_turning_it_off(tmp_path, monkeypatch):
    monkeypatch.setenv("NPXLA_CACHE_DIR", "off")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    default = tmp_path / "xdg" / "npxla"
    jit(shift)(np.ones(3))
    assert entries(default) == []
    f = jit(shift, cache=True)
    f.clear_cache()
    f(np.ones(3))
    f(np.ones(4))
    assert f.cache_info().on_disk == 2 and len(entries(default)) == 4
    f.clear_cache()
    f(np.ones(3))                   # from the disk this time
    info = f.cache_info()
    assert info.disk_loads == 1 and info.signatures[-1].source == "disk"
    f.clear_cache(disk=True)
    assert entries(default) == [] and f.cache_info().on_disk == 0


def test_cache_true_uses_the_variables_directory(tmp_path, monkeypatch):
    d = tmp_path / "named"
    monkeypatch.setenv("NPXLA_CACHE_DIR", str(d))
    f = jit(poly, cache=True)
    f.clear_cache()
    f(np.ones(2), 1)
    assert len(entries(d)) == 2


def test_entries_of_other_functions_are_not_counted_or_removed(tmp_path, monkeypatch):
    d = tmp_path / "cache"
    monkeypatch.setenv("NPXLA_CACHE_DIR", str(d))
    f, g = jit(shift), jit(poly)
    f.clear_cache()
    g.clear_cache()
    f(np.ones(3))
    g(np.ones(3), 1)
    assert f.cache_info().on_disk == 1 and g.cache_info().on_disk == 1
    f.clear_cache(disk=True)
    assert f.cache_info().on_disk == 0 and g.cache_info().on_disk == 1


def test_cache_option_is_checked():
    with pytest.raises(TypeError):
        jit(shift, cache="yes")
