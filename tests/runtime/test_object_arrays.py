"""Object arrays of Python values (`np.atleast_1d(f)` of a function, as scikit-learn's
`array1d` helper builds in pykalman) stay NumPy objects that Python indexes."""
import numpy as np
from differential import check



def double(x):
    return x * 2


def per_step_functions(x, functions):
    table = np.asarray(np.atleast_1d(functions))
    for t in range(3):
        x = table[t % len(table)](x) + 1
    return x


def test_an_object_array_of_functions_is_indexed_in_python():
    check(per_step_functions, np.ones(3), double)
    check(per_step_functions, np.ones(3), [double, np.sin])
