"""`npxla convert`: static source-to-source conversion of modules."""
import ast
import importlib.util
import io
import os
import sys

import numpy as np
import pytest

from npxla.runtime.driver.cli import main
from npxla.transpiler.module_convert import convert_module

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLE = os.path.join(HERE, "cli_sample_module.py")


def run_cli(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def plain(f):
    return getattr(f, "__wrapped__", f)


@pytest.fixture(scope="module")
def converted_pair(tmp_path_factory):
    """(original module, converted module) for cli_sample_module.py."""
    import npxla.runtime.driver.jitted  # noqa: F401  (the NumPy registry loaded, as in a real program)
    out = tmp_path_factory.mktemp("conv") / "cli_sample_converted.py"
    assert main(["convert", SAMPLE, "-o", str(out.parent)]) == 0
    os.rename(out.parent / "cli_sample_module.py", out)
    original = load(SAMPLE, "cli_sample_original")
    converted = load(str(out), "cli_sample_converted")
    return original, converted, out.read_text()


def same(a, b):
    if isinstance(a, tuple):
        assert isinstance(b, tuple) and len(a) == len(b)
        for x, y in zip(a, b):
            same(x, y)
        return
    assert type(a) is type(b), (a, b)
    np.testing.assert_allclose(np.asarray(a), np.asarray(b))


RNG = np.random.default_rng(0)
X = RNG.normal(size=8)
POS = np.abs(X) + 0.5

CASES = [
    ("branches", (X, 0.5)), ("branches", (POS, 100.0)), ("branches", (-POS, 1.0)),
    ("newton", (POS, 50)), ("first_above", (X, 0.3)), ("first_above", (X, 99.0)),
    ("skip_negative", (X,)), ("early_return", (X * 20, 5)), ("early_return", (X, 5)),
    ("expressions", (X, -1.0, 100.0)), ("expressions", (X, 0, 0.5)),
    ("in_place", (X, 0.1)), ("nested", (X,)), ("plain_then_jit", (POS * 8,)),
    ("calls_jitted", (X, 0.2)), ("not_jitted", (X,)),
]


@pytest.mark.parametrize("name,args", CASES)
def test_converted_module_gives_same_results(converted_pair, name, args):
    original, converted, _ = converted_pair
    want = plain(getattr(original, name))(*[a.copy() if isinstance(a, np.ndarray) else a
                                             for a in args])
    got = getattr(converted, name)(*[a.copy() if isinstance(a, np.ndarray) else a
                                    for a in args])
    same(got, want)


def test_converted_module_imports_only_runtime_operators(converted_pair):
    _, converted, text = converted_pair
    tree = ast.parse(text)
    imports = [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert any(isinstance(n, ast.ImportFrom) and n.module == "npxla.runtime"
               and [(a.name, a.asname) for a in n.names] == [("operators", "ag__")]
               for n in imports)
    npxla_imports = [ast.unparse(n) for n in imports
                     if (getattr(n, "module", None) or "").startswith("npxla")
                     and (getattr(n, "module", None) or "") != "npxla.runtime"
                     or any(a.name.startswith("npxla") for a in n.names)]
    # only the `jit` that module code still calls (wrapped = jit(plain_then_jit)) remains
    assert npxla_imports == ["from npxla import jit"]
    assert not any(n.decorator_list for n in ast.walk(tree) if isinstance(n, ast.FunctionDef))
    assert "ag__.while_stmt" in text and "ag__.if_stmt" in text and "ag__.for_stmt" in text
    assert not any(isinstance(v, type(main)) and "ag__" in getattr(v, "__code__").co_names
                   for v in [converted.not_jitted, converted.helper])   # left unchanged


def test_converted_functions_still_compile_with_jit(converted_pair):
    from npxla import jit
    _, converted, _ = converted_pair
    np.testing.assert_allclose(jit(converted.branches)(X, 0.5),
                               plain(converted.branches)(X, 0.5))
    assert jit(converted.first_above)(X, 0.3) == converted.first_above(X, 0.3)


def test_creation_functions_run_as_numpy(tmp_path):
    import npxla.runtime.driver.jitted  # noqa: F401
    src = "import numpy as np\nfrom npxla import jit\n\n@jit\ndef f(x):\n" \
          "    out = np.zeros_like(x)\n    out[0] = 1.0\n    return out + x\n"
    path = tmp_path / "creation_mod.py"
    path.write_text(convert_module(src, "m.py").converted)
    got = load(str(path), "cli_creation_mod").f(np.arange(3.0))
    assert type(got) is np.ndarray
    np.testing.assert_array_equal(got, [1.0, 1.0, 2.0])


# --- which functions ---------------------------------------------------------------
SPELLINGS = '''
import jax
import npxla as npx
from functools import partial
from npxla import jit as J

@jax.jit
def a(x): return x
@J
def b(x): return x
@npx.jit(static_argnums=0)
def c(x): return x
@partial(J, static_argnums=0)
def d(x): return x
def e(x): return x
E = J(e)
def f(x): return x
class K:
    @J
    def m(self, x):
        if x > 0:
            x = x + 1
        return x
'''


def test_decorator_spellings():
    result = convert_module(SPELLINGS, "s.py")
    assert [f.qualname for f in result.functions] == ["b", "c", "d", "e", "K.m"]
    assert "@jax.jit\ndef a(x):\n    return x" not in result.converted  # kept verbatim
    assert "@jax.jit\ndef a(x): return x" in result.converted
    assert "    def m(self, x):\n" in result.converted and "ag__.if_stmt" in result.converted
    ast.parse(result.converted)
    everything = convert_module(SPELLINGS, "s.py", all_functions=True)
    assert [f.qualname for f in everything.functions] == ["a", "b", "c", "d", "e", "f", "K.m"]


def test_call_forms_the_linter_knows_are_converted_too():
    # one jit discovery (analysis/jit_discovery) for convert and lint: a `jit(f)` call
    # anywhere jits the module's `f`; a nested function is converted with its parent
    src = ("import npxla\nfrom npxla import jit\nnjit = npxla.jit\n\n"
           "def a(x): return x\ndef b(x): return x\ndef c(x): return x\n"
           "jit(a)(1.0)\n\ndef main():\n    return jit(b)\n\n@njit\ndef d(x):\n"
           "    @jit\n    def inner(y): return y\n    return inner(x)\n")
    result = convert_module(src, "calls.py")
    assert [f.qualname for f in result.functions] == ["a", "b", "d"]
    ast.parse(result.converted)


def test_jit_imported_from_jax_is_not_npxla():
    src = "from jax import jit\n\n@jit\ndef f(x):\n    return x\n"
    result = convert_module(src, "j.py")
    assert result.functions == [] and result.converted == src


def test_keep_decorators_and_idempotence():
    src = "import numpy as np\nfrom npxla import jit\n\n\n@jit\ndef f(x):\n" \
          "    if x.sum() > 0:\n        x = x + 1\n    return x\n"
    kept = convert_module(src, "k.py", keep_decorators=True).converted
    assert "@jit\ndef f(x):" in kept and "from npxla import jit" in kept
    dropped = convert_module(src, "k.py").converted
    assert "jit" not in dropped.replace("# added by npxla convert", "")
    # a converted file has no @jit left: converting it again changes nothing
    assert convert_module(dropped, "k.py").converted == dropped


def test_module_without_jit_is_unchanged(tmp_path, capsys):
    src = "# comment\nx = 1\n"
    path = tmp_path / "plain.py"
    path.write_text(src)
    code, out, _ = run_cli(["convert", str(path)], capsys)
    assert code == 0 and out == src


def test_comments_and_layout_outside_functions_are_kept():
    src = ("#!/usr/bin/env python\n# header comment\nimport numpy as np  # numpy!\n"
           "from npxla import jit\n\nCONST = 3  # keep me\n\n\n@jit\ndef f(x):\n"
           "    # lost: comments inside converted functions\n    return np.sin(x)\n\n\n"
           "def g():  # untouched\n    pass\n")
    out = convert_module(src, "c.py").converted
    assert out.startswith("#!/usr/bin/env python\n# header comment\n"
                          "from npxla.runtime import operators as ag__  # added by npxla convert\n"
                          "import numpy as np  # numpy!\n\nCONST = 3  # keep me\n")
    assert out.endswith("def g():  # untouched\n    pass\n")
    assert "ag__.converted_call(np.sin, (x,), None)" in out


# --- the command ---------------------------------------------------------------------
BAD = '''import numpy as np
from npxla import jit

COUNT = 0


@jit
def ok(x):
    return x + 1


@jit
def bad(x):
    yield x
    return x
'''


def test_unconvertible_function_reports_location_and_exit_1(tmp_path, capsys):
    path = tmp_path / "bad.py"
    path.write_text(BAD)
    code, out, err = run_cli(["convert", str(path)], capsys)
    assert code == 1 and out == ""
    assert f"{path}:14:5: NPX001 UnsupportedSyntaxError: 'yield' makes a generator" in err
    assert "hint:" in err
    code, out, err = run_cli(["convert", "-w", str(path)], capsys)
    assert code == 1 and path.read_text() == BAD          # not written


def test_check_mode(tmp_path, capsys):
    good = tmp_path / "good.py"
    good.write_text(BAD.replace("    yield x\n", ""))
    bad = tmp_path / "bad.py"
    bad.write_text(BAD)
    assert run_cli(["convert", "--check", str(good)], capsys) == (0, "", "")
    code, out, err = run_cli(["convert", "--check", str(good), str(bad)], capsys)
    assert code == 1 and out == "" and "bad.py:14:5: NPX001" in err
    assert good.read_text() == BAD.replace("    yield x\n", "")
    # --check -o DIR: is DIR up to date?
    gen = tmp_path / "gen"
    code, _, err = run_cli(["convert", "--check", "-o", str(gen), str(good)], capsys)
    assert code == 1 and "missing" in err
    assert run_cli(["convert", "-o", str(gen), str(good)], capsys)[0] == 0
    assert run_cli(["convert", "--check", "-o", str(gen), str(good)], capsys)[0] == 0
    (gen / "good.py").write_text("stale\n")
    code, _, err = run_cli(["convert", "--check", "-o", str(gen), str(good)], capsys)
    assert code == 1 and "out of date" in err


def test_write_in_place_and_output_dir(tmp_path, capsys):
    pkg = tmp_path / "src" / "pkg"
    pkg.mkdir(parents=True)
    (pkg / "a.py").write_text("from npxla import jit\n\n@jit\ndef f(x):\n"
                              "    return abs(x)\n")
    (pkg / "b.py").write_text("y = 2\n")
    out_dir = tmp_path / "out"
    code, out, _ = run_cli(["convert", "-o", str(out_dir), str(tmp_path / "src")], capsys)
    assert code == 0 and out == ""
    assert "ag__.converted_call(abs, (x,), None)" in (out_dir / "pkg" / "a.py").read_text()
    assert (out_dir / "pkg" / "b.py").read_text() == "y = 2\n"
    code, _, _ = run_cli(["convert", "-w", str(pkg / "a.py")], capsys)
    assert code == 0 and (pkg / "a.py").read_text() == (out_dir / "pkg" / "a.py").read_text()


def test_diff(tmp_path, capsys):
    path = tmp_path / "d.py"
    path.write_text("from npxla import jit\n\n@jit\ndef f(x):\n    return abs(x)\n")
    code, out, _ = run_cli(["convert", "--diff", str(path)], capsys)
    assert code == 0
    assert out.startswith(f"--- {path}\n+++ {path} (converted)\n@@")
    assert "-@jit\n" in out and "+    return ag__.converted_call(abs, (x,), None)\n" in out
    assert path.read_text().startswith("from npxla")
    code, out, _ = run_cli(["convert", "--diff", "--color", "always", str(path)], capsys)
    assert "\033[32m+" in out and "\033[31m-" in out


def test_stdin(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO(
        "from npxla import jit\n\n@jit\ndef f(x):\n    while x > 1:\n"
        "        x = x / 2\n    return x\n"))
    code, out, _ = run_cli(["convert", "-"], capsys)
    assert code == 0 and "ag__.while_stmt" in out
    monkeypatch.setattr(sys, "stdin", io.StringIO("def f(:\n"))
    code, out, err = run_cli(["convert", "-", "--stdin-filename", "x.py"], capsys)
    assert code == 1 and err.startswith("x.py:1:7: E999 SyntaxError")


@pytest.mark.parametrize("argv,message", [
    (["convert", "-w", "-"], "cannot be combined with -w"),
    (["convert", "/nonexistent/file.py"], "no such file"),
    (["convert", "-w", "-o", "x", "f.py"], "not allowed with argument"),
])
def test_usage_errors_exit_2(argv, message, capsys):
    code, _, err = run_cli(argv, capsys)
    assert code == 2 and message in err


def test_multiple_files_to_stdout_have_headers(tmp_path, capsys):
    for name in ("p.py", "q.py"):
        (tmp_path / name).write_text("z = 1\n")
    code, out, _ = run_cli(["convert", str(tmp_path / "p.py"), str(tmp_path / "q.py")], capsys)
    assert code == 0 and out.count("# ---- ") == 2 and out.count("z = 1\n") == 2


LINTED = '''import numpy as np
from npxla import jit

calls = 0


@jit
def count(x):
    yield calls
    calls += 1
    return x.tolist()


@jit
def bessel(x):
    return np.i0(x)
'''


def test_unconvertible_function_gets_lint_diagnostics(tmp_path, capsys):
    pytest.importorskip("npxla.transpiler.lint")
    path = tmp_path / "linted.py"
    path.write_text(LINTED)
    code, out, err = run_cli(["convert", str(path)], capsys)
    assert code == 1 and out == ""
    lines = [l for l in err.splitlines() if not l.startswith("    ")]
    assert lines[0].startswith(f"{path}:9:5: NPX001 UnsupportedSyntaxError: 'yield' makes")
    # the linter's findings inside the function follow (not the one at the same place)
    assert any(l.startswith(f"{path}:11:12: NPX121") and "'.tolist()'" in l for l in lines[1:])
    assert not any(":16:" in l for l in lines)      # `bessel` converts: not reported


def test_strict_fails_on_lint_findings(tmp_path, capsys):
    pytest.importorskip("npxla.transpiler.lint")
    path = tmp_path / "strict.py"
    path.write_text("import numpy as np\nfrom npxla import jit\n\n\n@jit\n"
                    "def bessel(x):\n    return np.i0(x)\n")
    assert run_cli(["convert", "--check", str(path)], capsys)[0] == 0
    code, out, err = run_cli(["convert", "--check", "--strict", str(path)], capsys)
    assert code == 1 and out == "" and f"{path}:7:12: NPX" in err and "1 with lint findings" in err


def test_source_encoding_is_kept(tmp_path, capsys):
    path = tmp_path / "latin.py"
    path.write_bytes(b"# -*- coding: latin-1 -*-\nfrom npxla import jit\n\n@jit\n"
                     b"def f(x):\n    s = '\xe9'\n    return x\n")
    code, _, _ = run_cli(["convert", "-o", str(tmp_path / "out"), str(path)], capsys)
    data = (tmp_path / "out" / "latin.py").read_bytes()
    assert code == 0 and b"'\xe9'" in data and data.startswith(b"# -*- coding: latin-1")
    bad = tmp_path / "bad.py"
    bad.write_bytes(b"x = '\xff'\n")        # not UTF-8, no coding line
    code, _, err = run_cli(["convert", "--check", str(bad), str(path)], capsys)
    assert code == 2 and "cannot decode" in err
