"""The `npxla` entry point: help, version, exit codes, colour, progress, `python -m`."""
import io
import os
import shutil
import subprocess
import sys

import pytest

import npxla
from npxla.runtime.driver.cli import main
from npxla.runtime.driver.commands.output import Progress, color_enabled

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COMMANDS = ["convert", "emit", "lint", "devices"]
BAD = "from npxla import jit\n\n@jit\ndef f(x):\n    yield x\n"


class TTY(io.StringIO):
    def isatty(self):
        return True


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help_with_examples(command, capsys):
    assert main([command, "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: npxla {command}")
    assert "\nexamples:\n  npxla " in out and "exit status:" in out


def test_main_help_and_version(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert all(c in out for c in COMMANDS) and "examples:" in out
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.startswith(f"npxla {npxla.__version__} (python ")


def test_usage_errors_exit_2(capsys):
    assert main([]) == 2
    assert "a command is required" in capsys.readouterr().err
    assert main(["frobnicate"]) == 2
    assert "invalid choice" in capsys.readouterr().err
    assert main(["convert"]) == 2
    assert main(["convert", "--bogus", "x.py"]) == 2


def test_internal_error_exit_2(monkeypatch, capsys):
    from npxla.runtime.driver.commands import devices

    def boom(args):
        raise KeyError("oops")
    monkeypatch.setattr(devices, "run", boom)
    assert main(["devices"]) == 2
    err = capsys.readouterr().err
    assert "npxla devices: internal error: KeyError" in err and "--traceback" in err
    assert "Traceback" not in err
    assert main(["--traceback", "devices"]) == 2
    assert "Traceback" in capsys.readouterr().err


def test_devices(capsys):
    assert main(["devices"]) == 0
    out = capsys.readouterr().out
    assert "cpu:0\t" in out
    assert main(["devices", "--json"]) == 0
    assert '"platform": "cpu"' in capsys.readouterr().out


# --- colour ---------------------------------------------------------------------------
def test_color_rules(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    assert color_enabled(TTY(), "auto") and not color_enabled(io.StringIO(), "auto")
    assert color_enabled(io.StringIO(), "always") and not color_enabled(TTY(), "never")
    monkeypatch.setenv("NO_COLOR", "1")
    assert not color_enabled(TTY(), "auto") and color_enabled(TTY(), "always")
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert color_enabled(io.StringIO(), "auto")


def test_diagnostics_colour_only_on_a_tty(tmp_path, monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    path = tmp_path / "bad.py"
    path.write_text(BAD)
    for stream, argv, coloured in [(io.StringIO(), [], False), (TTY(), [], True),
                                   (TTY(), ["--color", "never"], False),
                                   (io.StringIO(), ["--color", "always"], True)]:
        monkeypatch.setattr(sys, "stderr", stream)
        assert main(["convert", *argv, str(path)]) == 1
        text = stream.getvalue()
        assert "NPX001" in text and ("\033[" in text) == coloured, (argv, text)
    monkeypatch.setenv("NO_COLOR", "1")
    stream = TTY()
    monkeypatch.setattr(sys, "stderr", stream)
    assert main(["convert", str(path)]) == 1
    assert "\033[" not in stream.getvalue()


# --- progress bar ---------------------------------------------------------------------
def test_progress_bar_only_on_a_tty_with_many_files(tmp_path, monkeypatch):
    files = []
    for i in range(6):
        p = tmp_path / f"m{i}.py"
        p.write_text("from npxla import jit\n\n@jit\ndef f(x):\n    return x\n")
        files.append(str(p))
    for stream, paths, shown in [(TTY(), files, True), (io.StringIO(), files, False),
                                 (TTY(), files[:3], False)]:
        monkeypatch.setattr(sys, "stderr", stream)
        assert main(["convert", "--check", *paths]) == 0
        assert ("\r[" in stream.getvalue()) == shown
    stream = TTY()
    monkeypatch.setattr(sys, "stderr", stream)
    assert main(["convert", "--check", "-q", *files]) == 0
    assert stream.getvalue() == ""


def test_progress_bar_drawing():
    stream = TTY()
    with Progress(10, stream) as bar:
        for i in range(10):
            bar.advance(f"f{i}.py")
        bar.write("a message")
    text = stream.getvalue()
    assert "\r[" + "#" * 30 + "] 10/10 f9.py" in text and "a message\n" in text
    assert text.endswith("\r" + " " * 44 + "\ra message\n")   # erased before the message


# --- lint -------------------------------------------------------------------------------
def test_lint_is_wired(tmp_path, capsys):
    pytest.importorskip("npxla.transpiler.lint.command")
    clean = tmp_path / "clean.py"
    clean.write_text("import numpy as np\nfrom npxla import jit\n\n@jit\ndef f(x):\n"
                     "    return np.sin(x)\n")
    assert main(["lint", str(clean)]) == 0
    bad = tmp_path / "bad.py"
    bad.write_text("import numpy as np\nfrom npxla import jit\n\n@jit\ndef f(x):\n"
                   "    return x.tolist()\n")
    assert main(["lint", str(bad)]) == 1
    assert f"{bad}:6:" in capsys.readouterr().out


# --- subprocess: the console script and python -m -------------------------------------------
def _run(argv, **kw):
    env = dict(os.environ, NO_COLOR="1")
    return subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, env=env,
                          timeout=120, **kw)


@pytest.mark.parametrize("prefix", [["npxla"], [sys.executable, "-m", "npxla"]])
def test_console_script_and_python_m_agree(prefix, tmp_path):
    if prefix == ["npxla"] and shutil.which("npxla") is None:
        pytest.skip("the npxla console script is not installed (pip install -e .)")
    version = _run(prefix + ["--version"])
    assert version.returncode == 0 and version.stdout.startswith("npxla ")
    path = tmp_path / "bad.py"
    path.write_text(BAD)
    r = _run(prefix + ["convert", str(path)])
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr.startswith(f"{path}:5:5: NPX001 UnsupportedSyntaxError: 'yield' makes a generator")
    good = os.path.join(ROOT, "tests", "cli", "cli_sample_module.py")
    r = _run(prefix + ["convert", good])
    assert r.returncode == 0
    assert r.stdout == _run([sys.executable, "-m", "npxla", "convert", good]).stdout


def test_emit_subprocess_exit_codes():
    target = os.path.join(ROOT, "tests", "cli", "cli_emit_target.py")
    r = _run([sys.executable, "-m", "npxla", "emit", f"{target}::repeated", "--sig",
              "f64[4]"])
    assert r.returncode == 1 and "DataDependentShapeError" in r.stderr
    assert "Traceback" not in r.stderr and r.stdout == ""
    r = _run([sys.executable, "-m", "npxla", "emit", f"{target}::step", "--sig",
              "f64[4], f64"])
    assert r.returncode == 0 and r.stdout.startswith("module {")
