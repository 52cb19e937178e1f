"""`npxla lint` through transpiler.lint.command: formats, exit codes, selection, noqa,
standard input, --explain/--list-rules, progress and colour only on a terminal, and
the linter never imports or runs the file it reads."""
import argparse
import io
import json
import os
import subprocess
import sys
import textwrap

import pytest

from npxla.transpiler.lint import command, lint_paths, lint_source
from npxla.transpiler.lint.rules import RULES

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

BAD = textwrap.dedent("""\
    import numpy as np
    from npxla import jit

    @jit
    def f(x):
        y = x.tolist()
        return np.zeros(int(x.max())), y
    """)


class TTY(io.StringIO):
    def isatty(self):
        return True


def run(argv, stdin=None, stdout=None, stderr=None):
    parser = argparse.ArgumentParser(prog="npxla lint")
    command.add_arguments(parser)
    args = parser.parse_args(argv)
    out = stdout if stdout is not None else io.StringIO()
    err = stderr if stderr is not None else io.StringIO()
    code = command.run(args, stdout=out, stderr=err,
                       stdin=io.StringIO(stdin) if stdin is not None else None)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def bad_file(tmp_path):
    p = tmp_path / "bad.py"
    p.write_text(BAD)
    return p


def test_text_output_and_exit_codes(bad_file, tmp_path):
    code, out, _ = run([str(bad_file)])
    assert code == 1
    assert out.splitlines() == [
        f"{bad_file}:6:9: NPX121 {RULES['NPX121'].format(method='tolist')}",
        f"{bad_file}:7:21: NPX122 {RULES['NPX122'].format(what='a shape or size')}"]
    clean = tmp_path / "clean.py"
    clean.write_text("import numpy as np\n\ndef f(x):\n    return x.tolist()\n")
    assert run([str(clean)]) == (0, "", "")
    assert run([str(bad_file), "--exit-zero"])[0] == 0


def test_json_output(bad_file):
    code, out, _ = run([str(bad_file), "--format", "json"])
    data = json.loads(out)
    assert code == 1 and len(data) == 2
    assert set(data[0]) == {"path", "line", "col", "end_line", "end_col", "code", "message"}
    assert data[0]["code"] == "NPX121" and (data[0]["line"], data[0]["col"]) == (6, 9)
    assert (data[0]["end_line"], data[0]["end_col"]) == (6, 19)      # x.tolist()


def test_sarif_output(bad_file):
    code, out, _ = run([str(bad_file), "--format", "sarif"])
    log = json.loads(out)
    assert code == 1 and log["version"] == "2.1.0" and "sarif" in log["$schema"]
    run_ = log["runs"][0]
    rules = run_["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == list(RULES)
    result = run_["results"][0]
    assert result["ruleId"] == "NPX121" and rules[result["ruleIndex"]]["id"] == "NPX121"
    assert result["level"] == "error"
    region = result["locations"][0]["physicalLocation"]["region"]
    assert region == {"startLine": 6, "startColumn": 9, "endLine": 6, "endColumn": 19}


def test_select_ignore(bad_file):
    assert [l.split()[1] for l in run([str(bad_file), "--select", "NPX122"])[1].splitlines()] \
        == ["NPX122"]
    assert [l.split()[1] for l in run([str(bad_file), "--ignore", "NPX12"])[1].splitlines()] \
        == []
    code, _, err = run([str(bad_file), "--select", "E501"])
    assert code == 2 and "unknown rule code" in err


def test_noqa(tmp_path):
    last = "return np.zeros(int(x.max())), y"
    src = BAD.replace("y = x.tolist()", "y = x.tolist()  # noqa: NPX121") \
             .replace(last, last + "  # noqa: E501")
    assert [f.code for f in lint_source(src)] == ["NPX122"]
    src = BAD.replace(last, last + "  # noqa")
    assert [f.code for f in lint_source(src)] == ["NPX121"]
    src = BAD.replace("y = x.tolist()", "y = x.tolist()  # NOQA:NPX1")
    assert [f.code for f in lint_source(src)] == ["NPX122"]


def test_stdin():
    code, out, _ = run(["-", "--stdin-filename", "mod.py"], stdin=BAD)
    assert code == 1 and out.startswith("mod.py:6:9: NPX121")
    code, out, _ = run(["-"], stdin="x = 1\n")
    assert (code, out) == (0, "")


def test_usage_errors(tmp_path):
    assert run([])[0] == 2
    code, _, err = run([str(tmp_path / "missing.py")])
    assert code == 2 and "no such file" in err
    broken = tmp_path / "broken.py"
    broken.write_text("def f(:\n")
    code, _, err = run([str(broken)])
    assert code == 2 and "broken.py:1:" in err and "cannot parse" in err
    code, _, err = run(["--explain", "NPX000"])
    assert code == 2 and "unknown rule" in err


def test_explain_and_list_rules():
    code, out, _ = run(["--explain", "NPX111"])
    assert code == 0 and out.startswith("NPX111 boolean-mask-index")
    assert "Bad:" in out and "Good:" in out and "x[x > 0]" in out
    assert run(["--explain", "boolean-mask-index"])[1] == out
    code, out, _ = run(["--list-rules"])
    assert code == 0 and len(out.splitlines()) == len(RULES)
    assert out.splitlines()[0].startswith("NPX101  generator-function")


def test_directories_are_searched(tmp_path, bad_file):
    sub = tmp_path / "pkg"
    sub.mkdir()
    (sub / "m.py").write_text(BAD)
    (sub / "notes.txt").write_text("not python")
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "x.py").write_text(BAD)
    code, out, _ = run([str(tmp_path)])
    assert code == 1 and len(out.splitlines()) == 4
    assert len(lint_paths([str(tmp_path)])) == 4


def test_progress_and_colour_only_on_a_terminal(tmp_path):
    for i in range(10):
        (tmp_path / f"m{i}.py").write_text(BAD if i == 3 else "x = 1\n")
    code, out, err = run([str(tmp_path)], stdout=io.StringIO(), stderr=io.StringIO())
    assert "\r" not in err and "\033" not in out and err == ""
    tty_out, tty_err = TTY(), TTY()
    code, out, err = run([str(tmp_path)], stdout=tty_out, stderr=tty_err)
    assert code == 1
    assert "10/10 files" in err and "\r" in err          # the progress bar
    assert "\033[" in out                                 # colour
    assert "NPX121" in out
    _, out, err = run([str(tmp_path), "--no-progress", "--color", "never"],
                      stdout=TTY(), stderr=TTY())
    assert err == "" and "\033" not in out
    _, _, err = run([str(tmp_path), "--statistics"])
    assert "10 files, 2 findings" in err and "files/s" in err


def test_the_linted_file_is_never_imported_or_run(tmp_path):
    marker = tmp_path / "marker"
    victim = tmp_path / "victim.py"
    victim.write_text(textwrap.dedent(f"""\
        open({str(marker)!r}, "w").write("imported")
        import numpy as np
        from npxla import jit
        raise SystemExit("this file must not run")

        @jit
        def f(x):
            return x.tolist()
        """))
    code, out, _ = run([str(victim)])
    assert code == 1 and "NPX121" in out
    assert lint_paths([str(victim)])
    assert not marker.exists()
    # also through the command line, in a fresh interpreter
    proc = subprocess.run([sys.executable, "-m", "npxla.transpiler.lint", str(victim)],
                          cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 1 and "NPX121" in proc.stdout
    assert not marker.exists()


def test_linter_imports_neither_jax_nor_the_runtime():
    code = ("import sys, npxla.transpiler.lint as L; L.lint_source(open(%r).read(), 'x.py');"
            "import npxla.transpiler.lint.command, npxla.transpiler.lint.flake8;"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('jax', 'jaxlib') "
            "or m.startswith('npxla.runtime')))") % os.path.join(ROOT, "examples", "kernels.py")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_python_dash_m_entry_point(bad_file):
    proc = subprocess.run([sys.executable, "-m", "npxla.transpiler.lint", str(bad_file),
                           "--format", "json"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 1 and len(json.loads(proc.stdout)) == 2


def test_internal_errors_exit_2(bad_file, monkeypatch):
    from npxla.transpiler.lint import engine

    def boom(*a, **k):
        raise RuntimeError("boom")
    monkeypatch.setattr(engine, "run", boom)
    code, _, err = run([str(bad_file)])
    assert code == 2 and "internal error" in err and "boom" in err
