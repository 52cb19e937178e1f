"""One behaviour across the commands (issue 38): `--assume-jit` before a path, one
wording and exit status for a missing file, `emit`'s count of --sig entries."""
import os

import pytest

from npxla.runtime.driver.cli import main

HERE = os.path.dirname(os.path.abspath(__file__))
TARGET = os.path.join(HERE, "cli_emit_target.py")

KERNELS = """\
import numpy as np


def positives(x):
    return x[x > 0]
"""


@pytest.fixture
def kernels(tmp_path):
    path = tmp_path / "kernels.py"
    path.write_text(KERNELS)
    return str(path)


@pytest.mark.parametrize("flag,found", [
    (["--assume-jit"], False),          # npxla's @jit compiles x[mask]
    (["--assume-jit=npxla"], False),
    (["--assume-jit=jax"], True),       # jax.jit refuses it
    (["--assume-jit", "jax"], True),    # the older spelling still works
])
def test_assume_jit_does_not_swallow_the_path(capsys, kernels, flag, found):
    code = main(["lint", *flag, kernels])
    out, err = capsys.readouterr()
    assert code == (1 if found else 0), err
    assert ("NPX111" in out) is found and "invalid choice" not in err


def test_assume_jit_after_the_path(capsys, kernels):
    assert main(["lint", kernels, "--assume-jit=jax"]) == 1
    assert main(["lint", kernels, "--assume-jit"]) == 0


@pytest.mark.parametrize("argv", [
    ["convert", "{missing}"],
    ["convert", "--check", "{missing}"],
    ["emit", "{missing}::f"],
    ["emit", "{missing}"],
    ["lint", "{missing}"],
    ["lint", "--assume-jit", "{missing}"],
])
def test_a_missing_file_is_reported_one_way(capsys, tmp_path, argv):
    missing = str(tmp_path / "nope.py")
    code = main([a.format(missing=missing) for a in argv])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err == f"npxla {argv[0]}: error: {missing}: no such file or directory\n"


def test_emit_with_too_many_sig_entries_counts_them(capsys):
    code = main(["emit", f"{TARGET}::mismatch", "--sig", "f64[1], f64[1], f64[1]"])
    err = capsys.readouterr().err
    assert code == 2
    assert "takes 2 positional arguments, 3 given in --sig (parameters: x, y)" in err, err
    code = main(["emit", f"{TARGET}::mismatch", "--sig", "y=f64[1], f64[1], f64[1]"])
    err = capsys.readouterr().err
    assert code == 2 and "takes 1 positional argument, besides those given by name, " \
        "2 given in --sig (parameters: x)" in err, err


def test_emit_prints_the_readable_form(capsys):
    assert main(["emit", f"{TARGET}::mismatch", "--sig", "f64[3], f64[3]"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("module") and "func.func public @main" in out


# --- one meaning per option name, ruff's spellings; the old ones still work ---------------
@pytest.mark.parametrize("flag", ["--output-format", "--format"])
def test_lint_report_format_spellings(capsys, kernels, flag):
    code = main(["lint", "--assume-jit=jax", flag, "json", kernels])
    out, _ = capsys.readouterr()
    assert code == 1 and out.lstrip().startswith(("[", "{")) and "NPX111" in out


@pytest.mark.parametrize("flag", ["--ir", "--format"])
def test_emit_ir_spellings(capsys, flag):
    assert main(["emit", f"{TARGET}::mismatch", "--sig", "f64[3], f64[3]", flag, "stablehlo"]) == 0
    out, _ = capsys.readouterr()
    assert "stablehlo" in out or "func.func" in out


@pytest.mark.parametrize("flag", ["-o", "--output-file", "--output"])
def test_emit_output_file_spellings(capsys, tmp_path, flag):
    target = tmp_path / "ir.mlir"
    assert main(["emit", f"{TARGET}::mismatch", "--sig", "f64[3], f64[3]", flag, str(target)]) == 0
    assert "func.func" in target.read_text()


@pytest.mark.parametrize("flag", ["--output-dir", "-o"])
def test_convert_output_dir_spellings(capsys, tmp_path, kernels, flag):
    out_dir = tmp_path / "out"
    assert main(["convert", "--all", flag, str(out_dir), kernels]) == 0
    assert (out_dir / "kernels.py").exists()
