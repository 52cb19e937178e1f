"""NPX115: a function that does not accept an array whose length is only known at run
time (`x[mask]`, `np.nonzero(m)[0]`, `np.unique(x)`, a slice with bounds from data),
read from the supported-API table the runtime's bounded handlers generate. Each case is
run under `@jit` too: the linter flags it exactly when the compiler refuses it."""
import textwrap
import warnings

import numpy as np
import pytest

from npxla import jit
from npxla.transpiler.base.errors import ConcretizationError
from npxla.transpiler.lint import lint_file

X = np.array([1.0, -2.0, 3.0, np.nan, 4.0])

# name -> (body of f(x), whether @jit refuses it with NPX115's error)
CASES = {
    # what @jit still refuses on such arrays (a bound exists, no implementation yet)
    "correlate_of_mask": ("return np.correlate(x[x > 0], [0.5, 0.5]).sum()", True),
    "kron_of_unique": ("return np.kron(np.unique(x), [1.0, 2.0]).sum()", True),
    "gradient_of_unique": ("return np.gradient(np.unique(x)).sum()", False),
    "cross_of_traced_slice": ("""
        k = np.argmax(x)
        return np.cross(x[:k], x[:k]).sum()
        """, True),
    "tile_of_mask": ("return np.tile(x[x > 0], 2).sum()", False),
    "correlate_through_elementwise": (
        "return np.correlate(np.sqrt(x[x > 0]) * 2, [1.0]).sum()", True),
    "convolve_of_mask": ("return np.convolve(x[x > 0], [0.5, 0.5]).sum()", False),
    "histogram_of_mask": ("return np.histogram(x[x > 0], bins=3)[0].sum()", False),
    "searchsorted_of_unique": ("return np.searchsorted(np.unique(x), 2.0)", False),
    "list_of_mask": ("return sum(list(x[x > 0]))", True),
    "sort_method": ("""
        y = x[x > 0]
        y.sort()
        return y.sum()
        """, True),
    # what the bounded handlers accept
    # pymannkendall.sens_slope: the median of positions selected by a mask
    "sens_slope_intercept": ("""
        n = len(x)
        return np.nanmedian(x) - np.median(np.arange(n)[~np.isnan(x.flatten())])
        """, False),
    "median_of_mask": ("return np.median(x[x > 0])", False),
    "sort_of_unique": ("return np.sort(np.unique(x)).sum()", False),
    "median_of_nonzero": ("return np.median(np.nonzero(x > 0)[0])", False),
    "median_of_traced_slice": ("""
        k = np.argmax(x)
        return np.median(x[:k])
        """, False),
    "median_through_elementwise": ("return np.median(np.sqrt(x[x > 0]) * 2)", False),
    "concatenate_with_mask": ("return np.concatenate([x[x > 0], x]).sum()", False),
    "mean_of_mask": ("return np.mean(x[x > 0]) + x[x > 0].max()", False),
    "len_of_mask": ("return len(x[x > 1]) + x[x > 1].shape[0]", False),
    "elementwise_then_sum": ("return (np.sqrt(x[x > 0]) * 2).sum()", False),
    "cumsum_of_mask": ("return np.cumsum(x[x > 0]).max()", False),
    "unique_of_mask": ("return np.unique(x[~np.isnan(x)]).sum()", False),
    "unique_sum": ("return np.unique(x).sum()", False),
    "median_of_whole_array": ("return np.median(np.where(x > 0, x, 0.0))", False),
    "median_of_static_slice": ("return np.median(x[1:3])", False),
}


def _write(tmp_path, name, body):
    source = "import numpy as np\n\n\ndef f(x):\n" + textwrap.indent(
        textwrap.dedent(body).strip(), "    ") + "\n"
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    namespace = {}
    exec(compile(source, str(path), "exec"), namespace)
    return str(path), namespace["f"]


@pytest.mark.parametrize("case", sorted(CASES))
def test_flagged_exactly_when_jit_refuses(case, tmp_path):
    body, refused = CASES[case]
    path, f = _write(tmp_path, case, body)
    error = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            jit(f)(X.copy())
        except Exception as e:            # noqa: BLE001 - any refusal counts
            error = e
    assert (error is not None) == refused, repr(error)
    if refused:
        assert isinstance(error, ConcretizationError), repr(error)
        assert "only known at run time" in str(error)
    codes = [x.code for x in lint_file(path, jitted=("f",))]
    assert codes == (["NPX115"] if refused else []), codes


def test_message_names_the_function_and_where_the_length_comes_from(tmp_path):
    path, _ = _write(tmp_path, "msg", CASES["kron_of_unique"][0])
    (finding,) = lint_file(path, jitted=("f",))
    assert finding.message.startswith("np.kron is not supported on an array whose "
                                      "length")
    assert "np.unique" in finding.message
