"""Text made from traced values (f-strings, `%`, `str.format`) outside print/logging:
returned or joined to other text it is formatted from each run's values, as in NumPy
code; what needs its characters while compiling (its length, an item, a comparison, a
dict key, a `str` method) is refused, located. Arrays of run-time length print, format
and answer type questions as the ndarray they stand for. Differential against NumPy."""
import numpy as np
import pytest

from npxla import jit
from npxla.transpiler.base.errors import TranspileError

_X = np.array([0.25, 3.5, -1.0, 2.0])


def returned(x):
    return f"mean={x.mean():.3f}", "%d items, max %s" % (x.size, x.max()), \
        "{:+.1e}".format(x[0])


def joined(x):
    head = f"{x[0]:.2f}"
    return ("<" + head + ">", head * 2, ", ".join([head, "b", f"{x[1]}"]),
            "-".join(f"{v:.1f}" for v in x[:2]), "".join(["a", "b"]))


def in_containers(x):
    return {"label": f"{x.sum()}", "n": 2}, [f"{x[-1]}", ("t", f"{x[2]!r}")]


def of_run_time_length(x):
    pos = x[x > 0]
    return f"{pos}", f"{pos.sum():.2f} of {pos.size}", "%s" % (x[:2],), \
        isinstance(pos, np.ndarray), type(pos) is np.ndarray, np.ndim(pos)


@pytest.mark.parametrize("fn", [returned, joined, in_containers, of_run_time_length])
def test_text_is_formatted_from_each_runs_values(fn):
    f = jit(fn)
    for x in (_X, _X[::-1].copy(), np.array([1.0, -2.0, 0.5, 7.25])):
        assert f(x) == fn(x)


def prints_run_time_length(x):
    pos = x[x > 0]
    print(pos, f"<{pos}>", pos[::-1])
    print("%s|%r" % (pos, x[x < 0]))
    return pos.size


def test_arrays_of_run_time_length_print_their_values(capsys):
    for x in (_X, np.array([-1.0, -2.0])):
        capsys.readouterr()
        want = prints_run_time_length(x)
        expected = capsys.readouterr().out
        assert jit(prints_run_time_length)(x) == want
        assert capsys.readouterr().out == expected


def length(x):
    return len(f"{x[0]}")


def item(x):
    return f"{x[0]}"[0]


def compared(x):
    return f"{x[0]}" == "0.25"


def key(x):
    return {f"{x[0]}": 1}


def method(x):
    return f"{x[0]}".upper()


def text_of_run_time_length(x):
    return str(x[x > 0])


@pytest.mark.parametrize("fn", [length, item, compared, key, method,
                                text_of_run_time_length])
def test_text_needed_while_compiling_is_refused_located(fn):
    fn(_X)                                    # NumPy code runs
    with pytest.raises(TranspileError) as info:
        jit(fn)(_X)
    message = str(info.value)
    assert "test_deferred_text.py" in message and "while compiling" in message


def test_text_results_with_the_disk_cache(tmp_path, monkeypatch):
    # (a text slot holds its template, which the data-only cache codec does not store:
    # such a program is compiled again in a new process, never rebuilt wrong)
    monkeypatch.setenv("NPXLA_CACHE_DIR", str(tmp_path))
    assert jit(returned, cache=True)(_X) == returned(_X)
    y = np.array([9.0, 1.0, 2.0, 3.0])
    assert jit(returned, cache=True)(y) == returned(y)


def questions(x):
    pos = x[x > 0]
    return np.iterable(pos), np.iterable(x[0]), np.iterable(x), hasattr(pos, "shape"), \
        np.isscalar(pos), isinstance(pos, (list, tuple))


def test_type_questions_about_arrays_of_run_time_length():
    assert jit(questions)(_X) == questions(_X)
