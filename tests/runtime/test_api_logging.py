"""Observability (issue 38): the `npxla` logger says at INFO why a function compiles
again (which argument, static value, specialised int or captured value changed), and a
compile slower than a threshold writes one line to stderr (NPXLA_COMPILE_NOTICE,
`npxla.compile_notice`)."""
import logging

import numpy as np
import pytest

import npxla
from npxla import jit
from npxla.runtime.driver import log

OFFSET = 1.0


def offset(x, n):
    return x + n + OFFSET


def grow(x, n):
    return np.zeros(n) + x.sum()


def reasons(caplog):
    return [r for r in caplog.records if r.name == "npxla" and
            r.getMessage().startswith("recompiling")]


@pytest.fixture
def notice(monkeypatch):
    """The notice as the environment sets it (no process-wide override)."""
    monkeypatch.setattr(log, "_notice", log._UNSET)
    return monkeypatch


def test_recompiles_say_which_argument_changed(caplog):
    f = jit(offset)
    f.clear_cache()
    with caplog.at_level(logging.INFO, logger="npxla"):
        f(np.ones(3), 1)
        f(np.ones(3), 1)
        assert reasons(caplog) == []             # a first build is no recompile
        f(np.ones(4), 1)
        f(np.ones(4, np.float32), 1)
        f(np.ones(4, np.float32), 1.5)
    got = [r.getMessage() for r in reasons(caplog)]
    assert got == [
        "recompiling offset(f64[4], int) for cpu:0: new signature: x: f64[3] -> f64[4]",
        "recompiling offset(f32[4], int) for cpu:0: new signature: x: f64[4] -> f32[4]",
        "recompiling offset(f32[4], float) for cpu:0: new signature: n: int -> float"]
    record = reasons(caplog)[0]
    assert record.npxla_reason == "new signature: x: f64[3] -> f64[4]"
    assert record.npxla_function == "offset"
    compiled = [r for r in caplog.records if r.getMessage().startswith("compiled offset")]
    assert compiled[0].npxla_reason is None and compiled[1].npxla_reason is not None


def test_a_changed_global_is_named(caplog):
    global OFFSET
    f = jit(offset)
    f.clear_cache()
    with caplog.at_level(logging.INFO, logger="npxla"):
        f(np.ones(2), 1)
        OFFSET = 2.0
        try:
            np.testing.assert_array_equal(f(np.ones(2), 1), offset(np.ones(2), 1))
        finally:
            OFFSET = 1.0
    message = reasons(caplog)[0].getMessage()
    assert message.endswith(f"{__name__}.OFFSET changed: 1.0 -> 2.0"), message


def test_static_and_specialised_values_are_named(caplog):
    f, g = jit(grow, static_argnums=1), jit(grow)
    f.clear_cache()
    g.clear_cache()
    with caplog.at_level(logging.INFO, logger="npxla"):
        f(np.ones(2), 3)
        f(np.ones(2), 5)
        g(np.ones(2), 3)
        g(np.ones(2), 4)
    got = [r.npxla_reason for r in reasons(caplog)]
    assert got[0] == "new signature: n (static): 3 -> 5"
    assert got[1] == "n: a Python value the program needs as a constant is now 4 " \
                     "(compiled for 3)"


def test_a_slow_compile_writes_one_line_to_stderr(capsys, notice):
    notice.setenv("NPXLA_COMPILE_NOTICE", "1e-9")
    f = jit(offset)
    f.clear_cache()
    f(np.ones(3), 1)
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("npxla: compiling offset(f64[3], int) for cpu:0 took ")
    assert "XLA compile" in lines[0] and "NPXLA_COMPILE_NOTICE=off" in lines[0]
    f(np.ones(3), 1)                            # no compile: no line
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("setting", ["off", "0", "", "none"])
def test_the_notice_can_be_turned_off(capsys, notice, setting):
    notice.setenv("NPXLA_COMPILE_NOTICE", setting)
    assert npxla.compile_notice() is None
    f = jit(offset)
    f.clear_cache()
    f(np.ones(3), 1)
    assert capsys.readouterr().err == ""


def test_the_notice_threshold_defaults_to_five_seconds(notice):
    notice.delenv("NPXLA_COMPILE_NOTICE", raising=False)
    assert npxla.compile_notice() == 5.0
    notice.setenv("NPXLA_COMPILE_NOTICE", "2.5")
    assert npxla.compile_notice() == 2.5
    notice.setenv("NPXLA_COMPILE_NOTICE", "soon")         # a typo: the default
    assert npxla.compile_notice() == 5.0


def test_compile_notice_sets_it_for_the_process(capsys, notice):
    notice.setenv("NPXLA_COMPILE_NOTICE", "off")
    assert npxla.compile_notice(1e-9) == 1e-9            # wins over the variable
    f = jit(offset)
    f.clear_cache()
    f(np.ones(3), 1)
    assert capsys.readouterr().err.startswith("npxla: compiling offset")
    assert npxla.compile_notice(None) is None and npxla.compile_notice(0) is None
    with pytest.raises(ValueError):
        npxla.compile_notice("often")
