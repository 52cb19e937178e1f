"""`npxla emit FILE::FUNC`: the IR @jit compiles, from --sig or annotations."""
import os

import numpy as np
import pytest

from npxla.runtime.driver.cli import main
from npxla.runtime.driver.commands.signature import (ArgSpec, SignatureError,
                                                     parse_signature, parse_static)

TARGET = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cli_emit_target.py")


def emit(capsys, func, *extra):
    code = main(["emit", f"{TARGET}::{func}" if func else TARGET, *extra])
    out, err = capsys.readouterr()
    return code, out, err


def test_emit_stablehlo_from_sig(capsys):
    code, out, err = emit(capsys, "step", "--sig", "f64[30,30], i64[]")
    assert code == 0, err
    assert out.startswith("module {")
    assert "func.func public @main(%arg0: tensor<30x30xf64>, %arg1: tensor<i64>)" in out
    assert '"stablehlo.if"' in out or "stablehlo.if" in out
    assert "module-level print goes to stderr" in err     # stdout holds only the IR


def test_emit_from_annotations(capsys):
    code, out, _ = emit(capsys, "annotated")
    assert code == 0
    # an annotated parameter with a default is passed with its annotated type
    assert "(%arg0: tensor<4xf32>, %arg1: tensor<i64>, %arg2: tensor<f64>) -> " \
           "tensor<4xf64>" in out
    code, out, _ = emit(capsys, "scalar_types")
    assert code == 0 and "%arg0: tensor<f32>, %arg1: tensor<i1>" in out


def test_sig_overrides_annotations_and_keywords(capsys):
    code, out, _ = emit(capsys, "annotated", "--sig", "f64[2], s=f32[2]", "--static", "k=3")
    assert code == 0
    assert "(%arg0: tensor<2xf64>, %arg1: tensor<2xf32>) -> tensor<2xf64>" in out


def test_static_and_decorator_options(capsys):
    code, out, _ = emit(capsys, "heat", "--sig", "f64[10], f64", "--static", "steps=3")
    assert code == 0 and "tensor<10xf64>" in out
    # a plain function: --static makes n static (it decides the shape)
    code, out, _ = emit(capsys, "make", "--sig", "x=f32[]", "--static", "n=5")
    assert code == 0 and "-> tensor<5xf64>" in out


def test_hlo_format_and_device(capsys):
    code, out, _ = emit(capsys, "step", "--sig", "f64[3], int", "--format", "hlo",
                        "--device", "cpu")
    assert code == 0 and out.startswith("HloModule") and "ENTRY" in out


def test_dotted_name_and_output_file(tmp_path, capsys):
    target = tmp_path / "out.mlir"
    code, out, _ = emit(capsys, "Model.forward", "--sig", "f32[2,2]", "-o", str(target))
    assert code == 0 and out == ""
    assert "stablehlo.tanh" in target.read_text()


def test_transpile_error_is_located_without_traceback(capsys):
    code, out, err = emit(capsys, "repeated", "--sig", "f64[10]")
    assert code == 1 and out == ""
    assert f"{TARGET}:41:12" in err and "DataDependentShapeError" in err and "hint:" in err
    assert "Traceback" not in err
    code, out, err = emit(capsys, "mismatch", "--sig", "f64[10], f64[3]")
    assert code == 1 and "ShapeMismatchError" in err and "Traceback" not in err


@pytest.mark.parametrize("func,extra,message", [
    ("nope", ["--sig", "f64[1]"], "has no function 'nope'"),
    ("mismatch", ["--sig", "f63[1], f64[1]"], "unknown dtype 'f63'"),
    ("mismatch", ["--sig", "f64[1]"], "no signature for parameter 'y'"),
    ("mismatch", ["--sig", "f64[1], f64[1], f64[1]"], "3 given in --sig"),
    ("no_shape", [], "annotated 'ndarray', which gives no shape"),
    ("heat", ["--sig", "f64[3], f64", "--static", "bogus=1"], "no parameter 'bogus'"),
    ("step", ["--sig", "f64[3], int", "--device", "tpu9"], "--device tpu9"),
    ("", ["--sig", "f64[1]"], "2 @jit functions (step, heat)"),
    # @jit(static_argnums=2): --sig skips `steps`, whose value must come from --static
    ("heat", ["--sig", "f64[3], f64"], "give its value with --static steps=VALUE"),
])
def test_usage_errors_exit_2(capsys, func, extra, message):
    code, out, err = emit(capsys, func, *extra)
    assert code == 2 and out == "" and message in err, err


def test_missing_file_and_bad_target(capsys):
    assert main(["emit", "/no/such/file.py::f"]) == 2
    assert main(["emit", f"{TARGET}::"]) == 2
    assert "no function name after '::'" in capsys.readouterr().err


def test_import_failure_exit_1(tmp_path, capsys):
    path = tmp_path / "broken.py"
    path.write_text("import numpy as np\nraise RuntimeError('boom at import')\n"
                    "def f(x):\n    return x\n")
    assert main(["emit", f"{path}::f", "--sig", "f64[1]"]) == 1
    err = capsys.readouterr().err
    assert "importing" in err and "boom at import" in err


# --- signature syntax ----------------------------------------------------------------------
def test_parse_signature():
    specs = parse_signature("f64[100,100], i64[], int, pred, bool, u8[0], float32[2,3], "
                            "y=c64[4], bool[2]")
    assert [str(s) for s in specs] == ["f64[100,100]", "i64[]", "int", "pred[]", "bool",
                                       "u8[0]", "f32[2,3]", "c64[4]", "pred[2]"]
    assert specs[7].name == "y"
    assert specs[2] == ArgSpec(int, (), True)
    ex = specs[0].example()
    assert ex.shape == (100, 100) and ex.dtype == np.float64
    assert type(specs[2].example()) is int and type(specs[4].example()) is bool
    assert parse_signature("") == []


@pytest.mark.parametrize("text", ["f64[1,", "f64[-1]", "f64[a]", "int[3]", "x y", "i9[]"])
def test_bad_signatures(text):
    with pytest.raises(SignatureError):
        parse_signature(text)


def test_parse_static():
    assert parse_static(["n=5", "mode=fast", "t=(1, 2)", "f=1.5"]) == {
        "n": 5, "mode": "fast", "t": (1, 2), "f": 1.5}
    with pytest.raises(SignatureError):
        parse_static(["5"])


def test_sig_then_annotations_then_defaults(capsys):
    # --sig covers x; k comes from its annotation (int); s from its annotation too
    code, out, _ = emit(capsys, "annotated", "--sig", "f64[3]")
    assert code == 0
    assert "(%arg0: tensor<3xf64>, %arg1: tensor<i64>, %arg2: tensor<f64>)" in out
