"""The distribution installs one import name, `npxla`: the repository root is its package
directory, so `transpiler/` and `runtime/` become `npxla.transpiler` and `npxla.runtime`."""
import configparser
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _options():
    cfg = configparser.ConfigParser()
    cfg.read(os.path.join(ROOT, "setup.cfg"))
    return cfg["options"]


def test_every_source_package_is_listed_under_npxla():
    listed = set(_options()["packages"].split())
    found = {"npxla"}
    for top in ("transpiler", "runtime"):
        for dirpath, _, files in os.walk(os.path.join(ROOT, top)):
            if "__init__.py" in files:
                rel = os.path.relpath(dirpath, ROOT).replace(os.sep, ".")
                found.add("npxla." + rel)
    assert listed == found
    assert _options()["package_dir"].split() == ["npxla", "=", "."]


def test_import_npxla_is_light_and_public_names_resolve():
    code = ("import sys, npxla; assert npxla.TranspileError;"
            "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('jax', 'jaxlib'));"
            "print(heavy); from npxla import jit, to_source; print(callable(jit), "
            "callable(to_source))")
    out = subprocess.run([sys.executable, "-c", code], cwd=os.path.dirname(ROOT),
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:2] == ["[]", "True True"]


def test_no_generic_top_level_names_are_importable_from_elsewhere():
    code = "import importlib.util as u; print(u.find_spec('runtime'), u.find_spec('transpiler'))"
    out = subprocess.run([sys.executable, "-c", code], cwd=os.path.dirname(ROOT),
                         capture_output=True, text=True)
    assert out.stdout.strip() == "None None", out.stdout + out.stderr


def test_every_entry_point_in_setup_cfg_resolves():
    import importlib
    cfg = configparser.ConfigParser()
    cfg.read(os.path.join(ROOT, "setup.cfg"))
    for group in ("console_scripts", "flake8.extension"):
        for line in cfg["options.entry_points"][group].strip().splitlines():
            target = line.split("=", 1)[1].strip()
            module, attr = target.split(":")
            assert callable(getattr(importlib.import_module(module), attr)), line
