"""The API next to `jax.jit`'s (issue 38): callable `.lower().compile()`, validation of
static_argnums/static_argnames, readable `.as_text()`, DeviceArray operators, a located
error for a Python int beyond int64, the `npxla` logger, `py.typed`."""
import logging
import os
import subprocess
import sys

import numpy as np
import pytest

import npxla
from npxla import TranspileError, jit
from npxla.runtime.xla import resident
from npxla.transpiler.base.errors import IntegerOverflowError

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def affine(x, n):
    return x * n + 1


def scale_into(out, x):
    out[:] = 2 * x
    return out.sum()


def nested(pair, k):
    a, b = pair
    return a @ b + k


def shaped(x, n):
    return np.zeros(n) + x.sum()


# --- .lower().compile() ---------------------------------------------------------------
def test_compiled_is_callable_and_agrees_with_the_function():
    f = jit(affine)
    x = np.arange(4.0)
    compiled = f.lower(x, 3).compile()
    np.testing.assert_array_equal(compiled(x, 3), f(x, 3))
    np.testing.assert_array_equal(compiled(x + 1, 5), affine(x + 1, 5))  # int traced
    assert "HloModule" in compiled.as_text()
    assert "f64[4]" in repr(compiled)


def test_compiled_call_with_another_signature_is_a_type_error():
    compiled = jit(affine).lower(np.arange(4.0), 3).compile()
    with pytest.raises(TypeError, match=r"compiled for arguments \(f64\[4\], int\) and is "
                                        r"called with \(f64\[5\], int\)"):
        compiled(np.arange(5.0), 3)
    with pytest.raises(TypeError, match=r"f32\[4\]"):
        compiled(np.arange(4.0, dtype=np.float32), 3)
    with pytest.raises(TypeError, match="float"):
        compiled(np.arange(4.0), 3.0)


def test_compiled_writes_back_like_the_function():
    out, x = np.zeros(3), np.arange(3.0)
    compiled = jit(scale_into).lower(out, x).compile()
    total = compiled(out, x)
    assert total == 6.0 and out.tolist() == [0.0, 2.0, 4.0]


def test_compiled_with_containers_and_specialised_ints():
    a, b = np.eye(2), np.ones((2, 2))
    compiled = jit(nested).lower((a, b), 1.5).compile()
    np.testing.assert_array_equal(compiled((a, b), 2.5), nested((a, b), 2.5))
    with pytest.raises(TypeError):
        compiled([a, b], 2.5)               # another container type
    # `n` decides a shape: the program is specialised on its value
    compiled = jit(shaped).lower(np.ones(2), 3).compile()
    np.testing.assert_array_equal(compiled(np.ones(2), 3), shaped(np.ones(2), 3))
    with pytest.raises(TypeError, match="Python value 3"):
        compiled(np.ones(2), 4)


def test_as_text_is_the_readable_form_and_hlo_is_kept():
    lowered = jit(affine).lower(np.arange(3.0), 2)
    text = lowered.as_text()
    assert text.startswith("module") and "func.func public @main" in text
    assert "stablehlo.multiply %" in text and '"stablehlo.multiply"' not in text
    assert lowered.as_text(None) == text
    assert "HloModule" in lowered.as_text("hlo")
    with pytest.raises(ValueError):
        lowered.as_text("llvm")


# --- static_argnums / static_argnames ---------------------------------------------------
@pytest.mark.parametrize("options", [
    dict(static_argnums=2), dict(static_argnums=-3), dict(static_argnums=(0, 5)),
    dict(static_argnames="m"), dict(static_argnames=("n", "steps")),
])
def test_static_arguments_that_name_no_parameter_raise_at_jit_time(options):
    with pytest.raises(ValueError):
        jit(affine, **options)
    with pytest.raises(ValueError):
        jit(**options)(affine)


def test_static_argument_types_are_checked():
    with pytest.raises(TypeError):
        jit(affine, static_argnums="n")
    with pytest.raises(TypeError):
        jit(affine, static_argnames=1)


def test_negative_static_argnums_count_from_the_end():
    f = jit(shaped, static_argnums=-1)
    assert f._static_argnums == {1} and f._static_argnames == {"n"}
    np.testing.assert_array_equal(f(np.ones(2), 3), shaped(np.ones(2), 3))


def test_varargs_and_varkw_accept_any_index_and_name():
    def g(x, *rest, **options):
        return x
    jit(g, static_argnums=4)
    jit(g, static_argnames="anything")


# --- Python ints beyond int64 -------------------------------------------------------------
def test_python_int_beyond_int64_is_a_located_error():
    f = jit(affine)
    for _ in range(2):        # the general path, then the fast path
        with pytest.raises(IntegerOverflowError) as info:
            f(np.ones(2), 2 ** 70)
        f(np.ones(2), 3)
    err = info.value
    assert isinstance(err, TranspileError) and isinstance(err, OverflowError)
    assert err.location is not None and err.location.file == __file__
    assert "argument 'n'" in str(err) and "int64" in str(err) and err.hint
    with pytest.raises(IntegerOverflowError):
        f(np.ones(2), n=-2 ** 64)
    with pytest.raises(IntegerOverflowError):
        f.lower(np.ones(2), 2 ** 63)
    assert f(np.ones(2), 2 ** 63 - 1)[0] == np.ones(2)[0] * (2 ** 63 - 1) + 1


# --- DeviceArray ---------------------------------------------------------------------------
def test_device_array_operators_give_numpys_results_on_the_device():
    x = np.arange(6.0).reshape(2, 3) - 2
    i = np.arange(6).reshape(2, 3) - 2
    d, di = npxla.asarray(x), npxla.asarray(i)
    cases = [
        (d + 1, x + 1), (1 - d, 1 - x), (d * d, x * x), (d / 2, x / 2), (2 ** abs(di), 2 ** abs(i)),
        (di // 3, i // 3), (di % 3, i % 3), (-d, -x), (abs(d), abs(x)), (d < 0, x < 0),
        (d >= di, x >= i), (d == 1, x == 1), (d != di, x != i), (di & 1, i & 1),
        (~di, ~i), (d @ np.ones(3), x @ np.ones(3)),
        (np.sin(d), np.sin(x)), (np.ones(3) + d, np.ones(3) + x),
        (di + np.float32(1), i + np.float32(1)), (di * 1.5, i * 1.5),
    ]
    for got, want in cases:
        assert type(got) is npxla.DeviceArray
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(np.asarray(got), want)


def test_device_array_in_place_operators_replace_the_buffer():
    d = npxla.asarray(np.arange(3.0))
    alias = d
    d += 1
    assert alias is d and np.asarray(d).tolist() == [1.0, 2.0, 3.0]
    i = npxla.asarray(np.arange(3))
    with pytest.raises(TypeError):      # NumPy's same_kind casting rule
        i += 1.5
    i *= 2
    assert i.dtype == np.int64 and np.asarray(i).tolist() == [0, 2, 4]


def test_device_array_attributes_and_python_values():
    d = npxla.asarray(np.arange(4.0))
    assert (len(d), d.shape, d.dtype, d.ndim, d.size) == (4, (4,), np.float64, 1, 4)
    assert np.array(d).tolist() == [0.0, 1.0, 2.0, 3.0]
    assert repr(d).startswith("DeviceArray([0., 1., 2., 3.], dtype=float64")
    s = npxla.asarray(np.float64(2.5))
    assert float(s) == 2.5 and bool(s) and int(npxla.asarray(np.int64(3))) == 3
    assert (d == None) is False and (d != "x") is True    # noqa: E711
    with pytest.raises(TypeError):
        len(s)


def test_device_array_operators_do_not_read_the_host():
    d = npxla.asarray(np.arange(4.0))
    (d + 1).block_until_ready()
    before = resident.host_reads()
    for _ in range(3):
        d = d * 2 + 1
    assert resident.host_reads() == before


# --- the logger ----------------------------------------------------------------------------
def logged_kernel(x):
    return np.cumsum(x) * 3


def test_the_npxla_logger_reports_times_once_per_signature(caplog, monkeypatch):
    monkeypatch.setenv("NPXLA_CACHE_DIR", "off")
    f = jit(logged_kernel)
    f.clear_cache()
    with caplog.at_level(logging.DEBUG, logger="npxla"):
        f(np.arange(5.0))
        f(np.arange(5.0))
    infos = [r for r in caplog.records if r.name == "npxla" and r.levelno == logging.INFO]
    assert len(infos) == 1, [r.getMessage() for r in caplog.records]
    message = infos[0].getMessage()
    assert "logged_kernel(f64[5])" in message and "staging" in message and \
        "XLA compile" in message and "conversion" in message
    assert set(infos[0].npxla_times) == {"conversion", "staging", "compile"}
    debug = [r.getMessage() for r in caplog.records if r.levelno == logging.DEBUG and
             r.name == "npxla"]
    assert any(m.startswith("staged logged_kernel") for m in debug)


def test_the_npxla_logger_is_silent_by_default():
    code = ("import numpy as np, sys; sys.path.insert(0, %r); from test_api_parity import "
            "affine; from npxla import jit; jit(affine)(np.ones(2), 2)") % os.path.dirname(
                __file__)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "NPXLA_CACHE_DIR": "off"})
    assert out.returncode == 0, out.stderr
    assert "npxla" not in out.stderr and out.stdout == ""


# --- typing -----------------------------------------------------------------------------------
def test_py_typed_is_shipped_and_the_public_api_is_annotated():
    import configparser
    import inspect
    assert os.path.exists(os.path.join(ROOT, "py.typed"))
    cfg = configparser.ConfigParser()
    cfg.read(os.path.join(ROOT, "setup.cfg"))
    assert "py.typed" in cfg["options.package_data"]["npxla"]
    from npxla.runtime.driver.api import jit as api_jit
    hints = inspect.signature(api_jit).parameters
    assert all(p.annotation is not inspect.Parameter.empty for p in hints.values())
    assert inspect.signature(npxla.JittedFunction.lower).return_annotation != \
        inspect.Signature.empty
    assert inspect.signature(npxla.DeviceArray.to_numpy).return_annotation != \
        inspect.Signature.empty


MYPY_SAMPLE = '''\
import numpy as np
import npxla
from npxla import jit


@jit
def f(x: np.ndarray) -> np.ndarray:
    return x + 1


g = jit(static_argnums=0)(lambda n, x: x * n)
lowered: npxla.Lowered = f.lower(np.ones(3))
compiled: npxla.CompiledFunction = lowered.compile()
text: str = lowered.as_text()
d: npxla.DeviceArray = npxla.asarray(np.ones(3))
shape: tuple[int, ...] = d.shape
'''


def test_a_type_checker_accepts_typical_use(tmp_path):
    pytest.importorskip("mypy")
    sample = tmp_path / "sample.py"
    sample.write_text(MYPY_SAMPLE)
    out = subprocess.run([sys.executable, "-m", "mypy", "--ignore-missing-imports",
                          "--follow-imports=silent", "--no-incremental", str(sample)],
                         capture_output=True, text=True, cwd=str(tmp_path))
    assert out.returncode == 0, out.stdout + out.stderr
