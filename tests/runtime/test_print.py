"""`print` in compiled code prints at run time, with the values NumPy code would print."""
import io
import sys

import numpy as np
import pytest

import npxla.runtime.driver.compiled
from npxla import jit


def _copy(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def same_output(capsys, fn, *args, jitted=None, calls=1):
    """Run `fn` with NumPy and compiled (`calls` times each); compare stdout and stderr."""
    capsys.readouterr()
    for _ in range(calls):
        fn(*_copy(args))
    expected = capsys.readouterr()
    g = jitted or jit(fn)
    for _ in range(calls):
        g(*_copy(args))
    actual = capsys.readouterr()
    assert actual.out == expected.out
    assert actual.err == expected.err
    return actual.out


# --- values ------------------------------------------------------------------------------
def print_array(x):
    print(x)
    print("sum", x.sum(), "head", x[:1] if x.ndim else x, [x.dtype, x.shape])
    # (a 0-d *array* prints like a NumPy scalar: `[array(2.5)]` shows as `[np.float64(2.5)]`)
    print([x] if x.ndim else x, (x.max() if x.size else None,))
    return x


DTYPES = [np.bool_, np.int8, np.int64, np.uint8, np.uint64, np.float16, np.float32,
          np.float64, np.complex64, np.complex128]


@pytest.mark.parametrize("dtype", DTYPES)
def test_traced_arrays_of_each_dtype(capsys, dtype):
    x = np.array([[0, 1, 3], [2, 0, 1]])
    x = (x % 2 if dtype is np.bool_ else x * 0.25 if np.dtype(dtype).kind in "fc" else x)
    x = x.astype(dtype)      # sums are exact: the test is about printing, not rounding
    same_output(capsys, print_array, x)


@pytest.mark.parametrize("x", [np.arange(4.0), np.array(2.5), np.float32(1.5),
                               np.arange(12).reshape(3, 4), np.zeros((0, 3)),
                               np.arange(2000) * 0.5])
def test_shapes(capsys, x):
    same_output(capsys, print_array, x)


def scalars(x, s):
    print(s, s * 2, s + x[0], x.sum(), x[1] * 2, np.float32(3) * s, x[0] > s)
    print([s, x[0], (s * 3, x.sum())], {"a": x[1], "b": s})
    return x


@pytest.mark.parametrize("s", [2.5, 3, True, 1 + 2j, np.float64(2.5), np.int32(3),
                               np.float32(0.1)])
def test_weak_scalars_print_like_python_and_strong_like_numpy(capsys, s):
    out = same_output(capsys, scalars, np.arange(3.0), s)
    if isinstance(s, float):
        assert out.startswith("2.5 5.0 2.5 3.0 2.0")


def constants(x):
    print("x:", x, 3, None, [1, 2], np.arange(2), (np.int64(3), 1.5), "done")
    print(np.float64(1) / 3, np.arange(3) * 2, {"k": np.ones(2)})
    print("only constants", 1, 2.0)
    return x


def test_mixed_with_strings_and_constants(capsys):
    same_output(capsys, constants, np.arange(3))


def separators(x):
    print(x, x.sum(), sep="")
    print(x, x[0], "s", sep=" | ", end=" <end>\n")
    print(x[0], end="")
    print(x[1], sep=None, end=None)
    print()
    print(sep="-", end="**\n")
    print(x, flush=True)
    return x


def test_sep_end_flush(capsys):
    same_output(capsys, separators, np.arange(4))


def to_stderr(x):
    print("error:", x, file=sys.stderr)
    print("out", x[0])
    return x


def test_file_stderr_is_looked_up_at_run_time(capsys):
    g = jit(to_stderr)
    same_output(capsys, to_stderr, np.arange(3.0), jitted=g)
    same_output(capsys, to_stderr, np.arange(3.0) + 1, jitted=g)   # new capture streams


def to_file(x, f):
    print("value", x, file=f)
    return x * 2


def test_file_object():
    expected, actual = io.StringIO(), io.StringIO()
    to_file(np.arange(3.0), expected)
    jit(to_file, static_argnums=1)(np.arange(3.0), actual)
    assert actual.getvalue() == expected.getvalue() == "value [0. 1. 2.]\n"


def test_print_options_of_the_caller_apply(capsys):
    x = np.linspace(0, 1, 7)
    g = jit(print_array)
    with np.printoptions(precision=3, suppress=True):
        same_output(capsys, print_array, x, jitted=g)
    same_output(capsys, print_array, x, jitted=g)


# --- run time, not staging time --------------------------------------------------------------
def twice(x):
    y = x * 2
    print("y =", y)
    return y


def test_prints_at_run_time_on_every_call_and_compiles_once(capsys, monkeypatch):
    compiles = []
    original = npxla.runtime.driver.compiled.compile_module

    def counting(*args, **kwargs):
        compiles.append(args)
        return original(*args, **kwargs)

    monkeypatch.setattr(npxla.runtime.driver.compiled, "compile_module", counting)
    g = jit(twice)
    g.lower(np.arange(3.0))            # staging and lowering print nothing
    assert capsys.readouterr().out == ""
    g(np.arange(3.0))
    assert capsys.readouterr().out == "y = [0. 2. 4.]\n"
    g(np.arange(3.0) + 1)
    g(np.arange(3.0) + 2)
    assert capsys.readouterr().out == "y = [2. 4. 6.]\ny = [4. 6. 8.]\n"
    assert len(compiles) == 1
    g(np.arange(4))                      # a new signature compiles again
    assert capsys.readouterr().out == "y = [0 2 4 6]\n"
    assert len(compiles) == 2


def test_function_called_twice_inside_a_jitted_function(capsys):
    inner = jit(twice)

    def outer(x):
        a = inner(x)
        return inner(a + 1)

    out = same_output(capsys, outer, np.arange(3.0), calls=2)
    assert out.count("y =") == 4


def mutated(x):
    x[0] = 10
    print(x)
    x += 1
    v = x[1:]
    v *= 2
    print(x, v, x.sum())
    return x.sum()


def test_value_computed_from_a_mutated_array(capsys):
    same_output(capsys, mutated, np.arange(4))


def test_output_capture_at_file_descriptor_level(capfd):
    jit(twice)(np.arange(2.0))
    assert capfd.readouterr().out == "y = [0. 2.]\n"


def many(x):
    print("a")
    print(0, (x * 0).sum())
    print("b")
    print(1, (x * 1).max())
    print("c")
    print(2, (x * 2).sum())
    print("d")
    print(3, (x * 3).max())
    print("e", x[0])
    print(4, (x * 4).sum())
    print("f")
    print(5, (x * 5).max())
    print("g")
    return x


def test_independent_prints_keep_program_order(capsys):
    # independent work that XLA may schedule in any order or in parallel
    same_output(capsys, many, np.arange(300_000.0), calls=3)


# --- control flow ------------------------------------------------------------------------------
def branches(x):
    print("start", x[0])
    if x[0] > 1:
        print("big", x)
    else:
        print("small")
    print("after")
    return x


def loops(x):
    i = 0
    while x.sum() < 20:
        x = x * 2
        print("loop", i, x)
        i += 1
        if i % 2 == 0:
            print("even", i)
    for k in range(3):
        print("for", k, x[k])
    print("end", i)
    return x


def first_print_in_a_region(x):
    y = x * 2
    if x[0] > 1:
        print("big", y)
    while y.sum() < 50:
        y = y + 1
        if y[0] > 3:
            print("inner", y[0], [y[1]])
    print("after", y.sum())
    return y


def around_regions(x):
    print("before")
    if x[0] > 0:
        print("inside", (x * 2).sum())
    print("between", (x * 3).max())
    n = 0
    while n < x[0]:
        print("loop", n)
        n += 1
    print("after", (x * 4).sum())
    return x


@pytest.mark.parametrize("fn", [branches, loops, first_print_in_a_region])
def test_print_inside_branches_and_loops(capsys, fn):
    g = jit(fn)
    for x in (np.arange(3.0), np.arange(3.0) + 2, np.arange(3.0) + 30):
        same_output(capsys, fn, x, jitted=g)


def test_order_around_branches_and_loops(capsys):
    g = jit(around_regions)
    for x in (np.arange(100_000.0), np.arange(100_000.0) + 3):
        same_output(capsys, around_regions, x, jitted=g, calls=2)


# --- errors --------------------------------------------------------------------------------------
def bad_sep(x):
    print(x, sep=1)
    return x


def test_bad_separator_is_python_type_error():
    with pytest.raises(TypeError, match="sep must be None or a string"):
        jit(bad_sep)(np.arange(3))


def test_error_while_printing_is_raised_by_the_call(capsys):
    closed = io.StringIO()
    closed.close()
    with pytest.raises(ValueError, match="closed file"):
        jit(to_file, static_argnums=1)(np.arange(3.0), closed)


# --- f-strings: formatted at run time, with the values --------------------------------
def fstrings(x, w):
    s = x.sum()
    print(f"sum is {s}")
    print(f"mean={x.mean():.2f} first={x[0]!r} w={w} const={np.float64(2.5):.1f} "
          f"shape={x.shape} arr={x * 2}")
    print(f"width {s:{w}.1f}|{s!s:>8}")
    if s > 0:
        print(f"positive {s:.3f}")
    return x * 2


@pytest.mark.parametrize("x", [np.arange(3.0), -np.arange(1.0, 4.0), np.arange(3, dtype=np.int32)])
def test_fstrings_of_traced_values_print_the_values(capsys, x):
    same_output(capsys, fstrings, x, 8, calls=2)


def fstring_message(x):
    return f"x has {x.size} elements"


def test_fstring_of_static_values_is_a_plain_string():
    out = jit(fstring_message)(np.ones(3))
    assert out == "x has 3 elements" and type(out) is str
