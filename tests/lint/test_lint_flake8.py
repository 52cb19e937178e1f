"""The flake8 plugin reports the same findings as `npxla lint`."""
import ast
import configparser
import os
import subprocess
import sys
import textwrap

import pytest

from npxla.transpiler.lint import lint_source
from npxla.transpiler.lint.flake8 import Plugin

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SRC = textwrap.dedent("""\
    import numpy as np
    from npxla import jit


    @jit
    def f(x):
        y = x.tolist()
        return np.zeros(int(x.max())), y
    """)


def test_plugin_class_reports_the_linter_findings():
    tree = ast.parse(SRC)
    results = list(Plugin(tree, "m.py", SRC.splitlines(True)).run())
    expected = lint_source(SRC, "m.py")
    assert [(r[0], r[1] + 1, r[2].split()[0]) for r in results] == \
        [(f.line, f.col, f.code) for f in expected]
    assert all(r[3] is Plugin for r in results)
    assert results[0][2] == f"NPX121 {expected[0].message}"
    assert Plugin.name == "npxla" and Plugin.version


def test_plugin_internal_error_is_a_finding(monkeypatch):
    from npxla.transpiler.lint import engine
    monkeypatch.setattr(engine, "run", lambda *a, **k: 1 / 0)
    results = list(Plugin(ast.parse(SRC), "m.py").run())
    assert len(results) == 1 and results[0][2].startswith("NPX999")


def test_entry_point_is_registered_in_setup_cfg():
    cfg = configparser.ConfigParser()
    cfg.read(os.path.join(ROOT, "setup.cfg"))
    entry = cfg["options.entry_points"]["flake8.extension"]
    assert entry.strip() == "NPX = npxla.transpiler.lint.flake8:Plugin"
    module, cls = entry.split("=")[1].strip().split(":")
    assert getattr(__import__(module, fromlist=[cls]), cls) is Plugin


def test_inside_flake8(tmp_path):
    pytest.importorskip("flake8")
    (tmp_path / "m.py").write_text(SRC.replace("y = x.tolist()", "y = x.tolist()  # noqa: NPX121"))
    from importlib.metadata import entry_points
    if not any(ep.value.startswith("npxla.transpiler.lint") for ep in
               entry_points(group="flake8.extension")):
        # not installed through the entry point (e.g. a source checkout): local plugin
        (tmp_path / "setup.cfg").write_text(textwrap.dedent(f"""\
            [flake8:local-plugins]
            extension =
                NPX = npxla.transpiler.lint.flake8:Plugin
            paths = {ROOT}
            """))
    proc = subprocess.run([sys.executable, "-m", "flake8", "--select", "NPX", "m.py"],
                          cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.splitlines() == [
        "./m.py:8:21: NPX122 " + lint_source(SRC)[1].message] or \
        proc.stdout.splitlines() == ["m.py:8:21: NPX122 " + lint_source(SRC)[1].message]
