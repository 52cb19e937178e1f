"""Importing and using npxla leaves the user's global state alone (issue 36, item 1):
NumPy's global random stream (JAX's import draws from it), warning filters, print
options and floating-point error settings. Checked in a fresh interpreter, where the
first compile imports JAX."""
import os
import subprocess
import sys
import textwrap

PROGRAM = textwrap.dedent("""
    import warnings
    import numpy as np

    np.random.seed(1)
    expected = np.random.rand(3).tolist()
    np.random.seed(1)
    before = (list(warnings.filters), np.get_printoptions(), np.geterr())

    from npxla import jit

    def f(x):
        return x * 2 + 1

    jit(f)(np.arange(3.0))
    after = (list(warnings.filters), np.get_printoptions(), np.geterr())
    print(np.random.rand(3).tolist() == expected, before == after)
""")


def test_first_compile_keeps_numpys_random_stream_and_settings(tmp_path):
    path = tmp_path / "global_state_prog.py"
    path.write_text(PROGRAM)
    env = dict(os.environ, NPXLA_CACHE_DIR="off", TF_CPP_MIN_LOG_LEVEL="3")
    out = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                         env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "True"], out.stdout
