"""SciPy functions are registered by name and found once the user's code imports them
(SciPy is optional: npxla never imports it itself)."""
import subprocess
import sys

import numpy as np
import pytest

from npxla import jit
from npxla.transpiler.base.errors import LibraryCallError

scipy_special = pytest.importorskip("scipy.special")


def both_spellings(x):
    from scipy.special import expit
    return scipy_special.expit(x) + expit(2 * x)


def not_covered(x):
    return scipy_special.ellipk(x)


def test_found_by_either_spelling():
    x = np.linspace(-30, 30, 101)
    np.testing.assert_allclose(jit(both_spellings)(x), both_spellings(x), rtol=1e-15)


def test_other_scipy_functions_keep_a_located_refusal():
    with pytest.raises(LibraryCallError, match="ellipk"):
        jit(not_covered)(np.ones(3))


def test_importing_npxla_does_not_import_scipy():
    code = "import sys, numpy as np, npxla; from npxla import jit\n" \
           "jit(lambda x: x + 1) if False else None\n" \
           "import npxla.runtime.numpy as m; m.load_all()\n" \
           "print('scipy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "False"
