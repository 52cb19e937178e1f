"""The classes of misses and false positives the real-code corpus (tests/lintcorpus)
showed, shrunk: a sibling module's helper that @jit refuses, `locals()` looked up in a
converted block, an array of run-time length carried by a staged loop, and branches on
options a plain call leaves at their defaults."""
import textwrap

from npxla.transpiler.lint import lint_file, lint_source


def _codes(source, jitted=()):
    return [(f.line, f.code) for f in lint_source(textwrap.dedent(source), "m.py",
                                                  jitted=jitted)]


def _package(tmp_path, files):
    pkg = tmp_path / "geo"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    for name, text in files.items():
        (pkg / name).write_text(textwrap.dedent(text))
    return pkg


def test_a_sibling_modules_refusal_is_reported_at_the_call(tmp_path):
    pkg = _package(tmp_path, {
        "enu.py": """
            import numpy as np

            def aer2enu(az, srange):
                try:
                    while (np.asarray(srange) < 0).any():
                        srange = srange + 1.0
                except NameError:
                    pass
                return srange * np.sin(az)
            """,
        "aer.py": """
            from .enu import aer2enu

            def aer2geodetic(az, srange):
                return aer2enu(az, srange) + 1.0
            """})
    found = lint_file(str(pkg / "aer.py"), jitted=("aer2geodetic",))
    assert [(f.line, f.code) for f in found] == [(5, "NPX131")]
    assert "in 'aer2enu', enu.py:6" in found[0].message


def test_a_sibling_helper_that_compiles_is_clean(tmp_path):
    pkg = _package(tmp_path, {
        "enu.py": """
            import numpy as np

            def aer2enu(az, srange):
                return srange * np.sin(az)
            """,
        "aer.py": """
            from .enu import aer2enu

            def aer2geodetic(az, srange):
                return aer2enu(az, srange) + 1.0
            """})
    assert lint_file(str(pkg / "aer.py"), jitted=("aer2geodetic",)) == []


def test_locals_looked_up_in_a_converted_block():
    source = """
        def check(namespace, name, shape):
            return namespace[name].shape

        def project(vector, onto):
            if vector.ndim == 1:
                check(locals(), "vector", (3,))
            else:
                k = check(locals(), "vector", (-1, 3))
            return vector * onto

        def dot(v1, v2):
            if v1.ndim == 1:
                check(locals(), "v1", (3,))      # the block mentions v1: it is there
                return v1 @ v2
            return v1 * v2
        """
    assert _codes(source, jitted=("project",)) == [(7, "NPX108"), (9, "NPX108")]
    assert _codes(source, jitted=("dot",)) == []


def test_a_run_time_length_array_carried_by_a_staged_loop():
    source = """
        import numpy as np

        def matches(x, tol):
            search = np.arange(len(x) - 2)
            for length in range(3):
                hits = np.abs(x[search] - x[length]) < tol
                search = search[hits] + 1
            return search.size

        def not_carried(x):
            for length in range(3):
                kept = x[x > length]
                total = kept.sum()
            return total
        """
    # a staged loop carries it as its buffer and count (runtime/operators/bounded_carry.py):
    # `@jit` compiles both, so neither is flagged
    assert _codes(source, jitted=("matches",)) == []
    assert _codes(source, jitted=("not_carried",)) == []


def test_branches_on_options_left_at_their_defaults_are_not_checked():
    source = """
        import numpy as np
        import scipy.special

        def metric(sim, obs, replace_nan=None, deg=True, units="deg"):
            if replace_nan is not None:
                sim = scipy.special.gamma(sim)
            if not deg:
                obs = scipy.special.gamma(obs)
            out = np.mean(sim - obs)
            return np.degrees(out) if units == "deg" else scipy.special.gamma(out)
        """
    assert _codes(source, jitted=("metric",)) == []


def test_builtins_of_a_run_time_length_array():
    source = """
        import numpy as np

        def departure(lon1, lon2):
            return round(lon2 - lon1, 3) % np.pi

        def inverse(lon1, lon2):
            i = np.cos(lon1) < 1e-9
            out = lon1 * 0.0
            out[i] = departure(lon2[i], lon1[i])
            return out, sum(lon1[lon1 > 0])
        """
    # `round` needs the length; `abs` and `sum` of a selection compile
    assert _codes(source, jitted=("inverse",)) == [(5, "NPX115")]
