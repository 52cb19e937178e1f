"""mypy on the public API surface (issue 38): the package root, `jit`, JittedFunction,
Lowered/CompiledFunction, the logger's settings, `cache_info()`'s types and DeviceArray
type-check without errors, and so does typical use of them. A second snippet misuses
them: mypy must report exactly those lines, which shows it saw npxla's hints (an
unresolved `npxla` would be `Any` and accept anything)."""
import os
import re
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

PUBLIC = ["npxla", "npxla.runtime.driver.api", "npxla.runtime.driver.jitted",
          "npxla.runtime.driver.lowered", "npxla.runtime.driver.log",
          "npxla.runtime.driver.cacheinfo", "npxla.runtime.xla.resident"]

CONFIG = """\
[mypy]
ignore_missing_imports = True
follow_imports = silent
[mypy-jax.*,jaxlib.*]
follow_imports = skip
"""

USE = '''\
from typing import Optional

import numpy as np

import npxla
from npxla import jit


@jit
def f(x: np.ndarray) -> np.ndarray:
    return x + 1


g = jit(static_argnums=0, donate_argnums=1, cache=False)(lambda n, x: x * n)
h = jit(f, donate_argnames="x", cache=True, output="device")
lowered: npxla.Lowered = f.lower(np.ones(3))
text: str = lowered.as_text()
hlo: str = lowered.as_text("hlo")
compiled: npxla.CompiledFunction = lowered.compile()
result = compiled(np.ones(3))
info: npxla.CacheInfo = f.cache_info()
hits: int = info.hits + info.misses + info.in_memory + info.disk_loads
on_disk: Optional[int] = info.on_disk
seconds: float = info.compile_seconds + sum(s.seconds for s in info.signatures)
reasons: list[str] = [s.reason for s in info.signatures]
f.clear_cache()
f.clear_cache(disk=True)
f.cache_clear()
threshold: Optional[float] = npxla.compile_notice()
npxla.compile_notice(10.0)
d: npxla.DeviceArray = npxla.asarray(np.ones(3))
gone: bool = d.is_deleted()
shape: tuple[int, ...] = d.shape
'''

MISUSE = '''\
import numpy as np

import npxla
from npxla import jit

f = jit(lambda x: x)
n: int = f.lower(np.ones(3))  # error
s: str = f.cache_info().hits  # error
jit(f, cache="yes")  # error
jit(f, donate_argnums="x")  # error
b: int = npxla.asarray(np.ones(2)).is_deleted() + "x"  # error
'''


def test_mypy_accepts_the_public_api_and_typical_use(tmp_path):
    pytest.importorskip("mypy")
    (tmp_path / "npxla").symlink_to(ROOT, target_is_directory=True)
    snippets = tmp_path / "snippets"
    snippets.mkdir()
    (snippets / "npxla_use.py").write_text(USE)
    (snippets / "npxla_misuse.py").write_text(MISUSE)
    (tmp_path / "mypy.ini").write_text(CONFIG)
    modules = [arg for name in PUBLIC + ["npxla_use", "npxla_misuse"]
               for arg in ("-m", name)]
    out = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(tmp_path / "mypy.ini"),
         "--cache-dir", str(tmp_path / "cache"), "--no-error-summary",
         "--hide-error-context", "--no-pretty", *modules],
        capture_output=True, text=True, cwd=str(tmp_path), timeout=120,
        env={**os.environ, "MYPYPATH": os.pathsep.join([str(tmp_path), str(snippets)])})
    errors = [line for line in out.stdout.splitlines() if ": error:" in line]
    elsewhere = [line for line in errors if not line.startswith(
        os.path.join("snippets", "npxla_misuse.py"))]
    assert elsewhere == [], "\n".join(elsewhere) + out.stderr
    flagged = {int(re.match(r"[^:]+:(\d+):", line).group(1)) for line in errors}
    expected = {k + 1 for k, line in enumerate(MISUSE.splitlines())
                if line.endswith("# error")}
    assert flagged == expected, out.stdout + out.stderr


def test_the_test_extra_installs_mypy():
    import configparser
    cfg = configparser.ConfigParser()
    cfg.read(os.path.join(ROOT, "setup.cfg"))
    extra = textwrap.dedent(cfg["options.extras_require"]["test"]).split()
    assert any(req.startswith("mypy") for req in extra)
