"""Traced values are followed through assignments, calls and control flow; Python
values (shapes, static arguments, Python ints that npxla specialises) are not flagged."""
import textwrap

import pytest

from npxla.transpiler.lint import lint_source

HEADER = "import math\nimport numpy as np\nimport jax\nimport jax.numpy as jnp\nfrom npxla import jit\n\n"


def codes(body, **kw):
    src = HEADER + textwrap.dedent(body).lstrip("\n")
    return [(f.line - HEADER.count("\n"), f.code) for f in lint_source(src, "t.py", **kw)]


@pytest.mark.parametrize("body", [
    # shapes, ndim and len are Python values
    """
    @jit
    def f(x):
        n = x.shape[0] // 2
        y = np.zeros((n, x.ndim)) + len(x)
        for i in range(x.shape[0] - 1):
            y[0, 0] += x[i]
        return x[:n], y.reshape(n, -1)
    """,
    # Python int arguments are specialised by npxla
    """
    @jit
    def f(x, n, k=3):
        out = []
        for i in range(n):
            out.append(x[i:i + k].sum())
        return np.zeros(n * 2), x[:n], out
    """,
    # data-dependent control flow is fine under npxla
    """
    @jit
    def f(x, tol=1e-6):
        it = 0
        while np.abs(x).max() > tol:
            x = x / 2
            it += 1
        if x.sum() > 0:
            y = x
        else:
            y = -x
        return y, it
    """,
    # a list built in a loop over an array or a static range
    """
    @jit
    def f(x):
        rows = []
        for v in x:
            rows.append(v * 2)
        for i in range(3):
            rows.append(x[i])
        return rows
    """,
    # string arguments and `is None` tests are Python values
    """
    @jit
    def f(x, mode="fast", w=None):
        try:
            if mode == "fast" and w is None:
                x = x * 2
        except ValueError:
            pass
        return x
    """,
    # in-place updates of a fresh array, updates through a mask
    """
    @jit
    def f(x):
        out = np.zeros_like(x)
        if x.sum() > 0:
            out[0] = 1.0
        out += 1
        x[x > 2] = 0.0
        x[x < 0] *= 2
        return out
    """,
    # numpy on static values inside jax.jit
    """
    @jax.jit
    def f(x):
        n = int(np.prod(x.shape))
        return jnp.zeros(n) + x.reshape(-1), jnp.where(x > 0, x, 0.0)
    """,
    # the unrolled index of a static loop may index a Python list
    """
    @jit
    def f(x):
        weights = [1.0, 2.0, 3.0]
        s = 0.0
        for i in range(len(weights)):
            s = s + weights[i] * x[i]
        return s
    """,
])
def test_supported_code_is_clean(body):
    assert codes(body) == []


def test_traced_through_assignments_and_tuples():
    assert codes("""
    @jit
    def f(x):
        a, b = x.max(), x.min()
        k = int(a - b)
        m = k
        return np.ones(m)
    """) == [(6, "NPX122")]


def test_traced_through_calls_to_functions_of_the_file():
    assert codes("""
    def helper(v, n):
        return v[0] + np.zeros(n)

    @jit
    def f(x):
        return helper(x, int(x.max())), helper(x, x.shape[0])
    """) == [(2, "NPX122")]


def test_traced_through_nested_functions_and_lambdas():
    assert codes("""
    @jit
    def f(x):
        def pos(v):
            return v.tolist()
        g = lambda v: np.ones(int(v.max()))
        return pos(x), g(x), x.sum()
    """) == [(4, "NPX121"), (5, "NPX122")]
    # the same analysis under jax.jit, with the rules only jax.jit applies
    assert codes("""
    @jax.jit
    def f(x):
        def pos(v):
            return v[v > 0]
        g = lambda v: jnp.nonzero(v)
        return pos(x), g(x)
    """) == [(4, "NPX111"), (5, "NPX112")]


def test_control_flow_taints_what_it_assigns():
    assert codes("""
    @jit
    def f(x):
        if x.sum() > 0:
            n = 2
        else:
            n = 3
        return np.zeros(n)
    """) == [(7, "NPX122")]
    assert codes("""
    @jit
    def f(x):
        if x.ndim == 1:
            n = 2
        else:
            n = 3
        return np.zeros(n)
    """) == []


def test_loop_carried_values_are_traced():
    assert codes("""
    @jit
    def f(x):
        k = 0
        while x.sum() < 100:
            x = x * 2
            k = k + 1
        return x, np.zeros(k)
    """) == [(7, "NPX122")]


def test_traced_slice_bounds_have_a_run_time_length():
    # @jit gives a slice with traced bounds and step 1 a length known at run time
    # (docs/semantics.md, "Lengths known at run time"), and so does any step: only
    # shapes are refused
    assert codes("""
    @jit
    def f(x, lo):
        k = x.argmax()
        return x[:k], x[lo[0]:lo[1]], x[k:][::-1], x[1:k:1], x[:k].sum()
    """) == []
    assert codes("""
    @jit
    def f(x):
        k = x.argmax()
        a = x[::k]
        b = x[k::2]
        return a, b, x.reshape(k, -1)
    """) == [(6, "NPX122")]
    # jax.jit refuses the bounds too (its own rule)
    assert codes("""
    @jax.jit
    def f(x):
        k = jnp.argmax(x)
        return x[:k]
    """) == [(4, "NPX203")]


def test_staged_loop_index_needed_as_python_value():
    assert codes("""
    @jit
    def f(x):
        s = 0.0
        lst = [x, 2.0 * x]
        for i in range(int(x.max())):
            s = s + lst[i]
        return s
    """) == [(5, "NPX139"), (6, "NPX124")]     # (and `s`: a number, then x's shape)


def test_a_list_of_numbers_at_a_traced_index_is_read_like_an_array():
    assert codes("""
    @jit
    def f(x):
        s = 0.0
        lst = [1.0, 2.0]
        for i in range(int(x.max())):
            s = s + lst[i]
        return s + [0.5, 1.5][x.argmax()]
    """) == []


def test_elements_of_a_created_table_at_a_traced_index_are_numbers():
    # `D[i, j]` of a 2-d table is a number (dtaidistance's `prev_costs[prev_costs_i]`);
    # a row of it is an array, which a traced index cannot pick from a list
    assert codes("""
    @jit
    def f(x, limit):
        D = np.full((x.shape[0] + 1, 3), np.inf)
        for i in range(x.shape[0]):
            options = [D[i, 0], D[i, 1], D[i, 2]]
            pick = 0
            if options[1] < options[pick]:
                pick = 1
            D[i + 1, 0] = options[pick] + x[i]
        rows = [D[0], D[1]]
        return D, rows[int(x.argmax() > limit)]
    """) == [(11, "NPX124")]


def test_jax_rules_fire_on_every_traced_argument():
    assert codes("""
    @jax.jit
    def f(x, n):
        if n > 0:
            x = x.at[0].set(1.0)
        y = jnp.zeros(n)
        x[1] = 2.0
        print(x)
        return np.sum(x) + float(x[0]) + y
    """) == [(3, "NPX201"), (5, "NPX203"), (6, "NPX202"), (7, "NPX302"),
             (8, "NPX205"), (8, "NPX204")]


def test_jnp_results_are_traced_in_jax():
    assert codes("""
    @jax.jit
    def f(x):
        n = jnp.prod(jnp.array(x.shape))
        return jnp.zeros(n)
    """) == [(4, "NPX203")]


def test_static_argnums_silence_jax_rules():
    assert codes("""
    from functools import partial
    @partial(jax.jit, static_argnums=1)
    def f(x, n):
        if n > 0:
            return x[:n]
        return jnp.zeros(n)
    """) == []


def test_npxla_rules_on_python_int_conditions():
    # npxla traces Python int/bool arguments: a loop on one is compiled, so its
    # else clause is refused; the same loop on a shape is not
    assert codes("""
    @jit
    def f(x, n):
        for i in range(n):
            x = x * 2
        else:
            x = x + 1
        for i in range(x.shape[0]):
            x = x * 2
        else:
            x = x + 1
        return x
    """) == [(3, "NPX132")]


def test_aliasing_on_staged_paths():
    assert codes("""
    @jit
    def f(x, n):
        y = x
        for i in range(n):
            y = y * 2
        y[0] = 1.0
        z = x
        for i in range(x.shape[0]):
            z = z * 2
        z[0] = 1.0
        return y, z
    """) == [(6, "NPX134")]


def test_outside_state():
    assert codes("""
    G = np.zeros(3)
    LOG = []
    RNG = np.random.default_rng(0)

    @jit
    def f(x):
        G[0] = x[0]
        G[1] = 1.0
        LOG.append(x)
        return x + RNG.normal(size=3)
    """) == []      # G is written back, LOG's append replayed, RNG drawn when it runs


def test_jit_in_loop():
    assert codes("""
    def step(u):
        return u * 2

    def run(u):
        for _ in range(3):
            u = jit(step)(u)
        fs = [jax.jit(step) for _ in range(2)]
        g = jit(step)
        return u
    """) == [(6, "NPX301"), (7, "NPX301")]


# --- false positives found on real NumPy code (scipy, numpy, filterpy), kept fixed -------
@pytest.mark.parametrize("body", [
    # an array namespace parameter is not an array (scipy's `xp`)
    """
    @jit
    def f(x, xp):
        return xp.mean(x, axis=-1), xp.reshape(x, (-1,))
    """,
    # a parameter rebound before it is used as an array (`deg = np.asarray(deg)`)
    """
    @jit
    def f(x, deg):
        deg = np.asarray(deg)
        if deg.ndim > 0:
            raise ValueError("deg")
        return np.zeros(int(deg) + 1)
    """,
    # what another library returns may be traced but is not certainly data
    """
    import scipy.fft
    @jit
    def f(x):
        _, axes = scipy.fft._helper._init_nd_shape_and_axes(x, None, None)
        shape = x.shape
        return [shape[a] for a in axes]
    """,
    # attributes of Python objects (`res.converged`) are Python values
    """
    from scipy.optimize import root_scalar
    @jit
    def f(x):
        try:
            res = root_scalar(lambda b: b - 1, bracket=(0, 2))
            if not res.converged:
                return x
        except ValueError:
            pass
        return x * 2
    """,
    # array-api-extra's functional update through a mask
    """
    import array_api_extra as xpx
    @jit
    def f(x):
        return xpx.at(x)[x > 0].set(0.0)
    """,
    # Python counters stored in lists next to array values
    """
    @jit
    def f(x, gap):
        n = x.shape[0]
        lines = [[0, x[0]], [3, x[1]]]
        out = []
        for ind in range(len(lines)):
            line = lines[ind]
            if line[0] > gap:
                out.append(line)
        return out
    """,
    # buffers swapped in a data-dependent loop are updated in place inside it
    """
    @jit
    def f(x, n):
        a = np.zeros(x.shape[0])
        b = np.ones(x.shape[0])
        for i in range(n):
            a, b = b, a
            a[0] = x.sum() + i
        return a, b
    """,
    # assigned on one path only (not an alias question)
    """
    @jit
    def f(x, save):
        if save:
            pred = np.zeros(x.shape[0])
        for i in range(x.shape[0]):
            if save:
                pred[i] = x[i] * 2
        return x
    """,
    # .tolist() of an array built from a Python int (npxla specialises it)
    """
    @jit
    def f(x, pad):
        pairs = np.broadcast_to(pad, (x.ndim, 2)).tolist()
        return np.pad(x, pairs)
    """,
])
def test_real_code_false_positives_stay_fixed(body):
    assert codes(body) == []


# --- what parameters are: evidence read from the function (transpiler/lint/evidence.py) ---
# (loops on the parameter: a list changed in a branch outside loops is no refusal)
@pytest.mark.parametrize("body", [
    # a sequence or array: unpacked, indexed with a constant, converted by np.asarray
    """
    @jit
    def f(q):
        out = []
        a, b = q
        while not np.isclose(np.linalg.norm(q), 1.0):
            q = q / 2
            out.append(a)
        return q
    """,
    """
    @jit
    def f(q):
        out = []
        q = np.asarray(q)
        while q.sum() < 0.5:
            q = q * 2
            out.append(1)
        return q
    """,
])
def test_parameters_with_evidence_are_data(body):
    assert [c for _, c in codes(body)] == ["NPX133"]


@pytest.mark.parametrize("body", [
    # no evidence: maybe a Python int, which npxla specialises
    # a real number (given to math.cos): maybe a Python float, specialised too
    """
    @jit
    def f(x, z):
        out = []
        while z:
            z = z - 1
            out.append(math.cos(z))
        return x
    """,
    """
    @jit
    def f(x, n):
        out = []
        while n:
            n = n - 1
            out.append(1)
        return x
    """,
    # integer evidence wins: int() after `n = np.asarray(n)`, a range bound
    """
    @jit
    def f(x, n):
        out = []
        n = np.asarray(n)
        while n > 0.5:
            n = n - 1
            out.append(int(n))
        return x
    """,
    """
    @jit
    def f(x, n):
        out = []
        for i in range(n):
            x = x + 1
        while n == 0.0:
            n = n + 1
            out.append(1)
        return x
    """,
])
def test_parameters_without_evidence_may_be_ints(body):
    assert codes(body) == []


@pytest.mark.parametrize("src,arrays", [
    # the argument reaches the unpacking on the path that does not rebind it
    ("def f(q, flip):\n    if flip:\n        q = -q\n    a, b = q\n    return a\n", {"q"}),
    # a rebinding on every path: the unpacking reads the list, not the argument
    ("def f(q):\n    q = list(q)\n    a, b = q\n    return a\n", set()),
    # read in the statement that rebinds it: the argument
    ("def f(q):\n    q = q[0]\n    return q\n", {"q"}),
    # in a loop the back edge brings the rebinding, the entry the argument
    ("def f(q):\n    for i in range(3):\n        s = q.shape\n        q = 2\n"
     "    return s\n", {"q"}),
    # a nested function reads what reaches its definition
    ("def f(q):\n    g = lambda: q.sum()\n    q = 1\n    return g()\n", {"q"}),
    ("def f(q):\n    q = 1\n    g = lambda: q.sum()\n    return g()\n", set()),
])
def test_evidence_is_read_where_the_argument_reaches(src, arrays):
    """A use is evidence about the argument only where the argument may still be the
    value (reaching definitions, `transpiler/analysis`), not by source position."""
    import ast
    from npxla.transpiler.lint.discovery import module_info
    from npxla.transpiler.lint.taint import Analysis
    tree = ast.parse(src)
    analysis = Analysis(module_info(tree, "t.py"), {}, lambda *args: None)
    found, _ = analysis.evidence(tree.body[0])
    assert set(found) == arrays


def test_handler_types_are_read_after_a_body_that_always_returns():
    # `try: return ... except TypeError: return False` (numpy's issubclass_): the
    # handler's type is evaluated though no path falls out of the body
    assert codes("""
    @jit
    def f(x):
        try:
            if x.ndim > 1:
                return x.sum(axis=0)
            else:
                return x
        except (TypeError, ValueError):
            return x
    """) == []


def test_data_bounds_and_steps_are_clean_for_jit():
    # every step gives a run-time length (strided ones a gathered view); only a shape
    # computed from the data is flagged
    assert codes("""
    @jit
    def f(x, ij):
        i = ij[0]
        a = x[i:0:-1].sum() + x[:i].sum() + x[i::-1].sum()
        return a + x[i::2].sum() + x[::i].sum() + np.zeros(i)
    """) == [(5, "NPX122")]
