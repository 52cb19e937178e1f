"""What to write instead of a callable `@jit` does not compile, where a spelling it does
compile exists. Read by the linter's NPX15x rules and by the compiler's refusals of the
same calls (`runtime.operators.call`), so that both suggest the same thing. The NumPy
names the texts call are checked against the supported table by
tests/lint/test_lint_supported.py."""

# NumPy callables, by name below `numpy.`
NUMPY_INSTEAD = {
    "asarray_chkfinite": "np.asarray", "asfortranarray": "np.asarray",
    "require": "np.asarray", "row_stack": "np.vstack", "matrix_transpose":
    "np.linalg.matrix_transpose", "vecdot": "np.sum(a * b, axis=-1)",
    "apply_along_axis": "a loop over a static range, or NumPy functions with axis=",
    "vectorize": "ufuncs on whole arrays (np.where for branches)",
    "frompyfunc": "ufuncs on whole arrays (np.where for branches)",
    "fill_diagonal": "x[np.arange(n), np.arange(n)] = v",
    "polynomial.polynomial.polyval": "np.polyval(c[::-1], x)",
    "logspace": "10.0 ** np.linspace(...)", "geomspace": "np.exp(np.linspace(...))",
    "lib.stride_tricks.sliding_window_view":
        "x[np.arange(len(x) - w + 1)[:, None] + np.arange(w)] (a copy of the windows)",
}
# ndarray methods and properties, by attribute name
NDARRAY_INSTEAD = {
    "view": "x[...] (a view), or x.astype(dtype) to change the type",
    "mT": "np.swapaxes(x, -1, -2)", "resize": "np.reshape or np.pad",
    "compress": "np.where(cond, x, fill)", "choose": "np.select or np.where",
}
# `math` functions without a lowering, by qualified name
MATH_INSTEAD = {
    "math.isclose": "np.isclose", "math.fsum": "np.sum", "math.prod": "np.prod",
    "math.modf": "np.modf", "math.dist": "np.linalg.norm(a - b)",
    "math.ldexp": "x * 2.0 ** e", "math.remainder": "np.remainder",
}


def use_instead(text) -> str:
    """The `{instead}` field of a refusal's message for suggestion `text` (or None)."""
    return f"; use {text}" if text else ""
