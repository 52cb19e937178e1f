"""The program families of issue 35 item 6, each behind its own switch (model.Features).

- `exact_float`: float32/float64 programs of `+ - * /` only, compared bit for bit
  (runner `__fuzz_exact__`): cancellation (`a*x + b*x` with `b = -a`, `x*y - y*x`,
  the residual of a product), random exact expressions, chaotic maps iterated 50-500
  times (logistic map, Lorenz and Roessler Euler steps, the Henon map, a coupled map
  lattice), Horner and Clenshaw recurrences, error-free transformations (TwoSum,
  Veltkamp's split, Dekker's product, Kahan's loop). No transcendental function and no
  reduction: their last bits legitimately differ (docs/semantics.md).
- `float_int_casts`: `astype` to integer types, `int()`, `round()`, `math.floor`, NumPy
  integer scalar constructors and stores into integer arrays, of NaN, inf and
  out-of-range floats (also exact: NumPy's x86 INT_MIN, Python's ValueError and
  OverflowError).
- `default_args`, `arg_layouts`, `private_attrs`: general programs (gen.py) with an
  array default `def f(x, w=W)` changed between two calls, with arguments that are
  non-contiguous or read-only views (and statements that ravel, reshape, flatten and
  transpose them, then write), or as the bound method of an object with name-mangled
  attributes. `gen.generate` builds those; the pieces they need are here.
- `row_loops` (gen_rows.py): loops over the rows of an array whose trips touch only
  their own row (the lanes rewrite), compared bit for bit.
- `list_builds` (gen_lists.py): lists of arrays built by comprehensions or `append`
  loops over rows, then used (staged comprehensions, collected appends), bit for bit.
- `table_loops` (gen_tables.py): dynamic-programming tables filled row by row, reading
  earlier rows and the own row behind and ahead of the cell (the rows rewrite), bit for
  bit.
- `reduce_loops` (gen_reductions.py): long counted loops folding integers (sums, bit
  folds, counts under conditions), the loop-reductions rewrite, bit for bit.
- `swap_loops` (gen_swaps.py): loops that swap elements, rows and columns and write
  under data-dependent `if`s (the branch-writes and bundled-reads rewrites), bit for
  bit.

Which family a seed makes is drawn by an RNG of its own (`family_of`), so a seed that
makes no family program makes exactly the program it made before the families existed.

What the default run leaves out (known.KNOWN, switched back on by `--all-features`):
a division of a quotient (`exact_chained_division`) and a constant added to a sum with
a constant (`exact_constant_sums`), which XLA reassociates; read-only arguments
(`readonly_args`); `np.ascontiguousarray` / `np.asarray(order='C')` of a
non-contiguous array (`layout_contiguous`). Never generated: a bit-exact loop whose
variable changes dtype after the first iteration (documented: the loop carries the
promoted dtype from the start), uint32/uint64 casts of out-of-range floats
(documented: npxla saturates).
"""
from __future__ import annotations

import ast
import random
import re
import warnings

import numpy as np

from .model import AUG, Features, Program, Val, Var
from .regress import VIEW_FORMS, literal

FAMILIES = ("exact_float", "default_args", "arg_layouts", "float_int_casts", "private_attrs",
            "row_loops", "list_builds", "table_loops", "reduce_loops", "swap_loops")
FAMILY_SHARE = 0.05     # of the seeds, for each family (a quarter in all)


def family_of(seed: int, feats: Features) -> str | None:
    """The family `seed` makes under `feats` (None: a general program)."""
    if feats.family:
        if feats.family not in FAMILIES:
            raise ValueError(f"unknown family {feats.family!r}; one of {FAMILIES}")
        return feats.family
    u = random.Random(f"npxla-fuzz-family:{seed}").random()
    for i, name in enumerate(FAMILIES):
        if u < FAMILY_SHARE * (i + 1):
            return name if getattr(feats, name) else None
    return None


def _runs(source: str, args) -> bool:
    """Whether NumPy runs the program at all (a template may still be refused by NumPy:
    then the generator tries another draw)."""
    ns: dict = {}
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(compile(source, "<family>", "exec"), ns)
            ns["f"](*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    except Exception:   # noqa: BLE001 - a draw NumPy rejects: the caller draws again
        return False
    return True


# =====================================================================================
# exact_float
# =====================================================================================
EXACT_HEAD = "import numpy as np\n\n__fuzz_exact__ = True"


class _Exact:
    """One bit-exact program being written: its parameters (with values), lines, results."""

    def __init__(self, seed, feats: Features):
        self.feats = feats
        self.divs: set = set()      # expressions and names whose value is a quotient
        self.csums: set = set()     # ... whose value is a sum with a constant (`x + 1.7`)
        self.r = random.Random(seed)
        self.rng = np.random.default_rng([seed, 35, 1])
        self.dtype = self.r.choice(["float32", "float64"])
        self.params: list = []      # (name, value)
        self.lines: list = []
        self.rets: list = []
        self.n = 0
        self.nonfinite = self.r.random() < 0.15
        self.ndims: dict = {}       # name -> number of dimensions

    def el(self, name):
        """The first element of `name` (`x[0]`, `x[0, 0]`: a NumPy scalar)."""
        return f"{name}[{', '.join(['0'] * self.ndims.get(name, 1))}]"

    def fresh(self, prefix):
        self.n += 1
        return f"{prefix}{self.n}"

    def chance(self, p):
        return self.r.random() < p

    def param(self, prefix, value):
        name = self.fresh(prefix)
        self.params.append((name, value))
        return name

    def array(self, shape, lo=None, hi=None, scale=1.0, dtype=None, specials=None,
              spread=False, mixed=False):
        """A float array argument: normal (times `scale`), uniform in [lo, hi), or with
        `spread` of magnitudes 1e-6 to 1e6; with `specials` (or the program's
        `nonfinite` draw) a NaN or an infinity at one or two places. With `mixed`, now
        and then of the other float dtype. (Not in loops: a variable whose dtype changes
        after the first iteration is carried in the promoted dtype from the start, so
        npxla computes that iteration in float64 where NumPy computes it in float32,
        docs/semantics.md "a loop carries one type from the start".)"""
        dtype = dtype or (self.r.choice(["float32", "float64"]) if mixed and self.chance(0.1)
                          else self.dtype)
        if lo is not None:
            a = self.rng.uniform(lo, hi, size=shape)
        else:
            a = self.rng.normal(size=shape) * scale
        if spread:
            a = a * 10.0 ** self.rng.integers(-6, 7, size=shape)
        a = a.astype(dtype)
        if (self.nonfinite if specials is None else specials) and a.size:
            for _ in range(self.r.randint(1, 2)):
                a.flat[self.r.randrange(a.size)] = self.r.choice([np.nan, np.inf, -np.inf])
        name = self.param("x", a)
        self.ndims[name] = len(shape)
        return name

    def shape(self):
        return self.r.choice([(3,), (4,), (5,), (6,), (2, 3), (3, 2)])

    def steps(self):
        """A trip count: a constant or a Python int argument (specialised by npxla)."""
        n = self.r.choice([50, 64, 100, 128, 200, 300, 500])
        if self.chance(0.3):
            return self.param("n", n)
        return str(n)

    def const(self):
        return self.r.choice(["0.1", "0.3", "1.7", "3.0", "-2.5", "1e-3", "12345.678",
                              "0.7071", "1.0 / 3.0", "2.0 ** -20"])

    def coef(self, x, y, constant=True):
        """A coefficient: a weak Python float, a NumPy scalar of the program's dtype or of
        float64 (strong: it promotes float32), an element, an array (not a constant
        unless `constant`)."""
        k = self.r.randrange(6) if constant else self.r.randrange(2, 6)
        if k == 0:
            return self.const()
        if k == 1:
            return f"np.{self.r.choice([self.dtype, 'float64'])}({self.const()})"
        if k == 2:
            return self.el(y)
        if k == 3:
            return y
        if k == 4:
            return f"({y} + {self.const()})"
        return f"({y} / ({x} * {x} + 1.0))"

    def out(self, *names):
        self.rets += names

    def source(self):
        body = "\n".join("    " + ln for block in self.lines for ln in block.splitlines())
        rets = ", ".join(self.rets) if self.rets else "None"
        sig = ", ".join(n for n, _ in self.params)
        return f"{EXACT_HEAD}\n\n\ndef f({sig}):\n{body}\n    return {rets}\n"


def _cancel(e: _Exact):
    """Expressions that cancel exactly under NumPy's rounding (no fused multiply-add)."""
    shape = e.shape()
    x, y = e.array(shape, mixed=True), e.array(shape, mixed=True)
    t = e.fresh("t")
    e.ndims[t] = len(shape)
    k = e.r.randrange(10)
    if k == 0:
        a = e.coef(x, y)
        b = e.fresh("b")
        e.lines.append(f"a = {a}\n{b} = -a\n{t} = a * {x} + {b} * {x}")
    elif k == 1:
        e.lines.append(f"{t} = {x} * {y} - {y} * {x}")
    elif k == 2:
        e.lines.append(f"p = {x} * {y}\n{t} = {x} * {y} - p")
    elif k == 3:
        e.lines.append(f"{t} = {x} * {x} - {y} * {y} - ({x} + {y}) * ({x} - {y})")
    elif k == 4:   # (a constant `c` here is the known constant-sums family)
        c = e.coef(x, y, constant=e.feats.exact_constant_sums)
        e.lines.append(f"{t} = ({x} + {c}) - {c} - {x}")
    elif k == 5:
        e.lines.append(f"{t} = {x} * 0.1 + {x} * 0.2 - {x} * 0.3")
    elif k == 6:
        c = e.r.choice(["3.0", "7.0", "0.1", "10.0"])
        e.lines.append(f"{t} = {x} * {c} / {c} - {x}")
    elif k == 7:
        z = e.fresh("z")
        e.lines.append(f"{z} = -({x} * {y})\n{t} = {x} * {y} + {z}")
    elif k == 8:
        e.lines.append(f"{t} = {x} / (np.abs({y}) + 1.0) * (np.abs({y}) + 1.0) - {x}")
    else:
        a = e.coef(x, y)
        e.lines.append(f"{t} = {a} * {x} * {y} - {x} * ({a} * {y})")
    e.out(t)
    if e.chance(0.3):
        e.out(e.el(t) if e.chance(0.5) else f"float({e.el(t)})")


def _cross(e: _Exact):
    """np.cross of 3-vectors: products and differences only (`np.cross(v, 2 * v)` is 0)."""
    x = e.array((3,), mixed=True)
    y = e.array((3,), mixed=True) if e.chance(0.5) else None
    other = y or e.r.choice([f"2.0 * {x}", f"{x} * 3.0", f"-{x}", f"{x}[::-1]"])
    t = e.fresh("t")
    e.lines.append(f"{t} = np.cross({x}, {other})")
    if e.chance(0.5):
        e.lines.append(f"{t} = {t}[0] * {x}[0] + {t}[1] * {x}[1] + {t}[2] * {x}[2]")
    e.out(t)


def _tree(e: _Exact, leaves, depth=0):
    if depth >= 3 or e.chance(0.3 + 0.2 * depth):
        return e.r.choice(leaves)
    k = e.r.randrange(9)
    a = _tree(e, leaves, depth + 1)
    if k == 0:
        return f"(-{a})"
    if k == 1:
        return f"np.abs({a})"
    b = _tree(e, leaves, depth + 1)
    if k <= 4:
        op = e.r.choice(['+', '-', '*'])
        if op != "*" and (_const(a) or _const(b)):
            if (a in e.csums or b in e.csums) and not e.feats.exact_constant_sums:
                op = "*"        # the known family: a constant added to such a sum
            else:
                e.csums.add(f"({a} {op} {b})")
        return f"({a} {op} {b})"
    if k in (5, 6):
        if a in e.divs and not e.feats.exact_chained_division:
            return f"({a} * {e.r.choice(['3.0', '0.1'])})"
        out = f"({a} / (np.abs({b}) + 1.0))" if k == 5 else \
            f"({a} / {e.r.choice(['3.0', '10.0', '0.1', '7.0', '2.0'])})"
        e.divs.add(out)
        return out
    if k == 7:
        return f"np.{e.r.choice(['maximum', 'minimum'])}({a}, {b})"
    return f"np.where({a} > {b}, {a} - {b}, {b} * {a})"


_CONST = re.compile(r"^(np\.float(32|64)\()?[-\d.e ()/*+]+\)?$")


def _const(src) -> bool:
    """Whether `src` is a constant XLA can fold (`1.7`, `1.0 / 3.0`, `np.float32(0.3)`)."""
    return bool(_CONST.match(src))


def _expr(e: _Exact):
    """A few statements of random exact arithmetic over arrays, elements, constants."""
    shape = e.shape()
    names = [e.array(shape, mixed=True) for _ in range(e.r.randint(1, 3))]
    leaves = names + [e.const(), e.el(names[0]), "2.0"]
    for _ in range(e.r.randint(1, 4)):
        t = e.fresh("t")
        tree = _tree(e, leaves)
        e.lines.append(f"{t} = {tree}")
        if tree in e.divs:
            e.divs.add(t)
        if tree in e.csums:
            e.csums.add(t)
        leaves.append(t)
        if e.chance(0.3):
            aug, rhs = e.r.choice(AUG), _tree(e, leaves, 2)
            if aug != "*=" and (t in e.csums or rhs in e.csums) and _const(rhs) and \
                    not e.feats.exact_constant_sums:
                aug = "*="
            e.lines.append(f"{t} {aug} {rhs}")
            e.divs.discard(t)
            if aug != "*=" and _const(rhs):
                e.csums.add(t)
            else:
                e.csums.discard(t)
    e.out(leaves[-1])
    if e.chance(0.3):
        e.out(names[0])


def _logistic(e: _Exact):
    shape = e.r.choice([(3,), (4,), (5,), (2, 2)])
    x = e.array(shape, 0.05, 0.95, specials=False)
    r = e.r.choice(["3.9", "3.7", "4.0", "3.99", "r", f"np.{e.dtype}(3.9)", "rr"])
    if r == "r":
        r = e.param("r", float(e.rng.uniform(3.6, 3.99)))    # a traced Python float
    elif r == "rr":
        r = e.fresh("rr")
        e.lines.append(f"{r} = {x} * 0.0 + 3.8")                # an array of rates
    n = e.steps()
    i = e.fresh("i")
    k = e.r.randrange(7)
    if k == 0:
        e.lines.append(f"for {i} in range({n}):\n    {x} = {r} * {x} * (1.0 - {x})")
        e.out(x)
    elif k == 1:
        v = e.fresh("v")
        e.lines.append(f"{v} = {x}.copy()\nfor {i} in range({n}):\n"
                       f"    {v} *= {r} * (1.0 - {v})")
        e.out(v, x)
    elif k == 2:   # in place: the caller's array changes
        e.lines.append(f"for {i} in range({n}):\n    {x}[...] = {r} * {x} - {r} * {x} * {x}")
        e.out(e.el(x))
    elif k == 3:   # a NumPy scalar, or a Python float, iterated
        v = e.fresh("v")
        start = e.r.choice([e.el(x), f"float({e.el(x)})"])
        e.lines.append(f"{v} = {start}\nfor {i} in range({n}):\n    {v} = {r} * {v} * (1 - {v})")
        e.out(v)
    elif k == 4:   # the trajectory
        m = e.r.choice([50, 100, 150])
        o = e.fresh("traj")
        e.lines.append(f"{o} = np.zeros(({m},) + {x}.shape, dtype={x}.dtype)\n"
                       f"for {i} in range({m}):\n    {x} = {r} * {x} * (1.0 - {x})\n"
                       f"    {o}[{i}] = {x}")
        e.out(o)
    elif k == 5:   # a coupled map lattice (np.roll: data movement only)
        eps = e.r.choice(["0.1", "0.3", "0.05"])
        g = e.fresh("g")
        e.lines.append(f"for {i} in range({n}):\n    {g} = {r} * {x} * (1.0 - {x})\n"
                       f"    {x} = (1.0 - {eps}) * {g} + {eps} * 0.5 * "
                       f"(np.roll({g}, 1) + np.roll({g}, -1))")
        e.out(x)
    else:          # a data-dependent branch in the loop
        e.lines.append(f"for {i} in range({n}):\n    {x} = {r} * {x} * (1.0 - {x})\n"
                       f"    if {e.el(x)} > 0.5:\n        {x} = {x} * 0.999")
        e.out(x)


def _flow(e: _Exact):
    """Euler steps of a 3-variable chaotic flow (Lorenz or Roessler) over small arrays."""
    shape = e.r.choice([(2,), (3,), (4,)])
    lorenz = e.chance(0.7)
    x, y, z = (e.array(shape, 0.5, 1.5, specials=False) for _ in range(3))
    dt = e.r.choice(["0.01", "0.005", "dt"])
    if dt == "dt":
        dt = e.param("dt", e.r.choice([0.01, 0.002]))
    n = e.steps()
    i = e.fresh("i")
    if lorenz:
        s, rho, beta = e.r.choice([("10.0", "28.0", "8.0 / 3.0"), ("sigma", "rho", "beta")])
        if s == "sigma":
            e.lines.append("sigma, rho, beta = 10.0, 28.0, 8.0 / 3.0")
        dx, dy, dz = (f"{s} * ({y} - {x})", f"{x} * ({rho} - {z}) - {y}",
                      f"{x} * {y} - {beta} * {z}")
    else:
        dx, dy, dz = (f"-{y} - {z}", f"{x} + 0.2 * {y}", f"0.2 + {z} * ({x} - 5.7)")
    k = e.r.randrange(5)
    if k == 0:
        e.lines.append(f"for {i} in range({n}):\n    dx = {dx}\n    dy = {dy}\n    dz = {dz}\n"
                       f"    {x} = {x} + {dt} * dx\n    {y} = {y} + {dt} * dy\n"
                       f"    {z} = {z} + {dt} * dz")
    elif k == 1:
        e.lines.append(f"for {i} in range({n}):\n    {x}, {y}, {z} = {x} + {dt} * ({dx}), "
                       f"{y} + {dt} * ({dy}), {z} + {dt} * ({dz})")
    elif k == 2:   # in place on the arguments
        e.lines.append(f"for {i} in range({n}):\n    dx = {dx}\n    dy = {dy}\n    dz = {dz}\n"
                       f"    {x} += {dt} * dx\n    {y} += {dt} * dy\n    {z} += {dt} * dz")
    elif k == 3:   # one stacked state, rows written
        st = e.fresh("s")
        sx, sy, sz = f"{st}[0]", f"{st}[1]", f"{st}[2]"
        sub = {x: sx, y: sy, z: sz}

        def tr(src):
            return _rename(src, sub)
        e.lines.append(f"{st} = np.stack([{x}, {y}, {z}])\nd = np.zeros_like({st})\n"
                       f"for {i} in range({n}):\n    d[0] = {tr(dx)}\n    d[1] = {tr(dy)}\n"
                       f"    d[2] = {tr(dz)}\n    {st} = {st} + {dt} * d")
        e.out(st)
        return
    else:          # Heun's method (two stages)
        e.lines.append(
            f"for {i} in range({n}):\n    dx = {dx}\n    dy = {dy}\n    dz = {dz}\n"
            f"    px = {x} + {dt} * dx\n    py = {y} + {dt} * dy\n    pz = {z} + {dt} * dz\n"
            + "\n".join(f"    {v}2 = {_rename(src, {x: 'px', y: 'py', z: 'pz'})}"
                        for v, src in (("dx", dx), ("dy", dy), ("dz", dz)))
            + f"\n    {x} = {x} + {dt} * 0.5 * (dx + dx2)\n"
              f"    {y} = {y} + {dt} * 0.5 * (dy + dy2)\n"
              f"    {z} = {z} + {dt} * 0.5 * (dz + dz2)")
    e.out(x, y, z)


def _rename(src, mapping):
    return re.sub(r"\b(" + "|".join(map(re.escape, mapping)) + r")\b",
                  lambda m: mapping[m.group(1)], src)


def _henon(e: _Exact):
    shape = e.r.choice([(3,), (4,), (5,)])
    x = e.array(shape, -0.1, 0.1, specials=False)
    y = e.array(shape, -0.1, 0.1, specials=False)
    n = e.steps()
    i = e.fresh("i")
    if e.chance(0.5):
        e.lines.append(f"for {i} in range({n}):\n    {x}, {y} = 1.0 - 1.4 * {x} * {x} + {y}, "
                       f"0.3 * {x}")
    else:
        e.lines.append(f"for {i} in range({n}):\n    t = {x}.copy()\n"
                       f"    {x}[:] = 1.0 - 1.4 * {x} * {x} + {y}\n    {y}[:] = 0.3 * t")
    e.out(x, y)


def _coeffs(e: _Exact, m):
    """Polynomial coefficients: an array argument (maybe of the other float dtype) or a
    Python list / tuple of float literals."""
    if e.chance(0.6):
        return e.array((m,), specials=False)
    vals = [repr(float(v)) for v in np.round(e.rng.normal(size=m), 6)]
    c = e.fresh("c")
    e.lines.append(f"{c} = [{', '.join(vals)}]" if e.chance(0.7) else
                   f"{c} = ({', '.join(vals)},)")
    return c


def _horner(e: _Exact):
    shape = e.r.choice([(3,), (4,), (6,), (2, 3)])
    x = e.array(shape, scale=0.7)
    c = _coeffs(e, e.r.randint(4, 25))
    y, k = e.fresh("y"), e.fresh("k")
    form = e.r.randrange(8)
    if form == 0:
        e.lines.append(f"{y} = np.zeros_like({x})\nfor {k} in range(len({c})):\n"
                       f"    {y} = {y} * {x} + {c}[{k}]")
    elif form == 1:
        e.lines.append(f"{y} = {x} * 0.0 + {c}[0]\nfor {k} in range(1, len({c})):\n"
                       f"    {y} = {y} * {x} + {c}[{k}]")
    elif form == 2:
        e.lines.append(f"{y} = np.zeros_like({x})\nfor ck in {c}:\n    {y} = {y} * {x} + ck")
    elif form == 3:
        e.lines.append(f"{y} = np.zeros_like({x})\nfor {k} in range(len({c})):\n"
                       f"    {y} *= {x}\n    {y} += {c}[{k}]")
    elif form == 4:
        e.lines.append(f"{y} = np.zeros_like({x})\nfor {k} in range(len({c}) - 1, -1, -1):\n"
                       f"    {y} = {y} * {x} + {c}[{k}]")
    elif form == 5:   # with the derivative
        d = e.fresh("d")
        e.lines.append(f"{y} = np.zeros_like({x})\n{d} = np.zeros_like({x})\n"
                       f"for ck in {c}:\n    {d} = {d} * {x} + {y}\n    {y} = {y} * {x} + ck")
        e.out(d)
    elif form == 6:   # on one element: a NumPy scalar
        e.lines.append(f"{y} = {e.el(x)} * 0.0\nfor ck in {c}:\n"
                       f"    {y} = {y} * {e.el(x)} + ck")
    else:             # NumPy's own Horner loop
        e.lines.append(f"{y} = np.polyval({c}, {x})")
    e.out(y)


def _clenshaw(e: _Exact):
    x = e.array(e.r.choice([(3,), (5,)]), -1.0, 1.0)
    c = _coeffs(e, e.r.randint(4, 20))
    y = e.fresh("y")
    e.lines.append(f"b1 = np.zeros_like({x})\nb2 = np.zeros_like({x})\n"
                   f"for k in range(len({c}) - 1, 0, -1):\n"
                   f"    b1, b2 = 2.0 * {x} * b1 - b2 + {c}[k], b1\n"
                   f"{y} = {x} * b1 - b2 + {c}[0]")
    e.out(y)


def _eft(e: _Exact):
    """Error-free transformations: wrong as soon as a product is fused or a sum is
    reassociated."""
    shape = e.r.choice([(4,), (6,), (2, 3)])
    split = "134217729.0" if e.dtype == "float64" else "4097.0"
    k = e.r.randrange(4)
    if k == 3:
        m = e.r.randint(6, 40)
        x = e.array((m,), spread=e.chance(0.7))
        e.lines.append(f"s = {x}[0] * 0.0\ncomp = s\nfor v in {x}:\n    yk = v - comp\n"
                       f"    t = s + yk\n    comp = (t - s) - yk\n    s = t")
        e.out("s", "comp")
        return
    a = e.array(shape, scale=float(10.0 ** e.r.randint(-3, 6)), mixed=True)
    b = e.array(shape, scale=float(10.0 ** e.r.randint(-6, 3)), mixed=True)
    if k == 0:   # TwoSum
        e.lines.append(f"s = {a} + {b}\nbb = s - {a}\nerr = ({a} - (s - bb)) + ({b} - bb)")
        e.out("s", "err")
    elif k == 1:   # Veltkamp's split
        e.lines.append(f"c = {split} * {a}\nhi = c - (c - {a})\nlo = {a} - hi")
        e.out("hi", "lo")
    else:          # Dekker's TwoProduct
        e.lines.append(
            f"p = {a} * {b}\nca = {split} * {a}\nah = ca - (ca - {a})\nal = {a} - ah\n"
            f"cb = {split} * {b}\nbh = cb - (cb - {b})\nbl = {b} - bh\n"
            f"err = ((ah * bh - p) + ah * bl + al * bh) + al * bl")
        e.out("p", "err")


_EXACT_BLOCKS = [(_cancel, 3), (_cross, 1), (_expr, 3), (_logistic, 3), (_flow, 3),
                 (_henon, 1), (_horner, 3), (_clenshaw, 1), (_eft, 2)]


def gen_exact(seed: int, feats: Features) -> Program:
    for attempt in range(20):
        e = _Exact(seed * 64 + attempt, feats)
        blocks, weights = zip(*_EXACT_BLOCKS)
        for block in e.r.choices(blocks, weights, k=e.r.choice([1, 1, 2])):
            block(e)
        e.lines = [ln for ln in e.lines if ln]
        src = e.source()
        args = [v for _, v in e.params]
        if _runs(src, args):
            return Program(seed, src, args)
    raise RuntimeError(f"no exact program for seed {seed}")


# =====================================================================================
# float_int_casts
# =====================================================================================
_SPECIAL = [np.nan, np.inf, -np.inf, 1e20, -1e20, 3e9, -3e9, 2147483647.5, 2147483648.0,
            -2147483648.0, -2147483649.0, 9.3e18, 2.0 ** 63, -(2.0 ** 63), 1e10, 0.5, -0.5,
            -1.7, 2.9, 127.5, 128.0, 255.9, 256.0, -129.0, 65535.9, 65536.5, 1e-300, -0.0,
            7.0, 1e300, 4294967296.0, -1.0]
_INTS = ["np.int64", "np.int32", "int", "np.int64", "np.int32"]
_SMALL_INTS = ["np.int16", "np.int8", "np.uint8", "np.uint16"]
# (not uint32/uint64: npxla saturates there where NumPy on x86 wraps, a documented
# difference, docs/semantics.md "Casts, rounding and signal functions")


def _cast_values(rng, r, shape, dtype):
    a = rng.normal(size=shape) * 10
    for j in range(a.size):
        if r.random() < 0.5:
            a.flat[j] = r.choice(_SPECIAL)
    with np.errstate(all="ignore"):
        return a.astype(dtype)


def gen_casts(seed: int) -> Program:
    return first_program(seed, _gen_casts, "cast")


def first_program(seed: int, attempt_fn, what: str) -> Program:
    """The first of up to 20 attempts `attempt_fn(seed, attempt)` that makes a program
    (None: a draw NumPy rejects, or one the family cannot use)."""
    for attempt in range(20):
        prog = attempt_fn(seed, attempt)
        if prog is not None:
            return prog
    raise RuntimeError(f"no {what} program for seed {seed}")


def _gen_casts(seed, attempt):
    r = random.Random(seed * 64 + attempt)
    rng = np.random.default_rng([seed, 35, 4, attempt])
    dtype = r.choice(["float32", "float64"])
    shape = r.choice([(3,), (4,), (5,), (6,), (2, 3)])
    x = _cast_values(rng, r, shape, dtype)
    args = [x]
    sig = ["x"]
    if r.random() < 0.4:
        args.append(_cast_values(rng, r, shape, r.choice(["float32", "float64"])))
        sig.append("y")
    lines, rets, imports = [], [], ["import numpy as np"]
    finite = [j for j in range(x.size) if np.isfinite(x.flat[j]) and abs(x.flat[j]) < 2 ** 62]

    def elem():
        """`x[j]`: half the time an element int() can convert."""
        j = r.choice(finite) if finite and r.random() < 0.5 else r.randrange(x.size)
        return f"x[{', '.join(str(int(i)) for i in np.unravel_index(j, shape))}]"

    def operand():
        return r.choice(["x", "x", "x * 2.0", "x + 0.5", "-x", "x * 1e10", "np.floor(x)",
                         "np.trunc(x)", "np.rint(x)", "np.ceil(x)", "x.T", "x.ravel()[::2]"]
                        + (["y", "x - y"] if "y" in sig else []))
    ints = []
    for n in range(r.randint(2, 5)):
        k = r.randrange(10)
        t = f"t{n}"
        if k <= 2:
            to = r.choice(_INTS)
            lines.append(f"{t} = ({operand()}).astype({to})")
            ints.append(t)
        elif k == 3:
            to = r.choice(_SMALL_INTS)
            lines.append(f"{t} = ({operand()}).astype({to})")
        elif k == 4:
            fn = r.choice(["int", "int", "round", "math.floor", "math.ceil", "math.trunc"])
            if fn.startswith("math"):
                imports.append("import math")
            lines.append(f"{t} = {fn}({elem()}{r.choice(['', '', ' * 2.0', ' + 0.5'])})")
            if r.random() < 0.4:
                lines.append(f"{t}b = x * {t}")
                rets.append(f"{t}b")
        elif k == 5:
            lines.append(f"{t} = {r.choice(['np.int64', 'np.int32'])}({elem()})")
        elif k == 6:   # a slice store: an unsafe cast, no error
            to = r.choice(["np.int64", "np.int32"])
            lines.append(f"{t} = np.zeros({shape}, dtype={to})\n{t}[...] = {operand()}")
            ints.append(t)
        elif k == 7:   # a scalar store: checked like int()
            to = r.choice(["np.int64", "np.int32", "np.int16"])
            lines.append(f"{t} = np.zeros({x.size}, dtype={to})\n{t}[{r.randrange(x.size)}] = "
                         f"{elem()}")
        elif k == 8 and ints:   # integer arithmetic on INT_MIN
            a = r.choice(ints)
            op = r.choice([f"{a} + 1", f"{a} - 1", f"{a} * 2", f"{a} // 3", f"np.abs({a})",
                           f"-{a}", f"{a}.astype(np.float64)", f"{a} % 7"])
            lines.append(f"{t} = {op}")
        else:          # a branch on a converted element
            lines.append(f"{t} = x.copy()\nif int({elem()}) > 0:\n    {t} = {t} * 2.0")
        rets.append(t)
    src = "\n".join(dict.fromkeys(imports)) + "\n\n__fuzz_exact__ = True\n\n\n" + \
        f"def f({', '.join(sig)}):\n" + \
        "\n".join("    " + ln for block in lines for ln in block.splitlines()) + \
        f"\n    return {', '.join(rets)}\n"
    # NumPy must run it on tame values (the real ones may raise what the family is about:
    # ValueError for NaN, OverflowError for inf and big values, converted or stored)
    tame = [np.where(np.isfinite(a) & (np.abs(a) < 1e4), a, 1.5).astype(a.dtype) for a in args]
    return Program(seed, src, args) if _runs(src, tame) else None


# =====================================================================================
# arg_layouts: views, orders and read-only arguments (used by gen.generate)
# =====================================================================================
_FORMS_1D = ["[::2]", "[::-1]", "[1:]", "[:-1]"]
_FORMS_2D = [".T", "F", "[:, ::2]", "[::2]", "[::-1]", "[:, 1:]", "[::-1, ::-1]", "[:, ::-1]",
             "[1:, ::2]"]
assert all(f in VIEW_FORMS for f in _FORMS_1D + _FORMS_2D if f != "F")


def _base_shape(shape, form):
    """The shape of the base that `form` turns into an array of `shape`."""
    if form == ".T":
        return shape[::-1]
    if len(shape) == 1:
        n = shape[0]
        return {"[::2]": (2 * n - 1,), "[1:]": (n + 1,), "[:-1]": (n + 1,)}.get(form, shape)
    a, b = shape
    return {"[:, ::2]": (a, 2 * b), "[::2]": (2 * a - 1, b), "[:, 1:]": (a, b + 1),
            "[1:, ::2]": (a + 1, 2 * b - 1)}.get(form, shape)


def layout_args(r: random.Random, rng, args, readonly=True):
    """The arguments with some arrays given another layout (the same values, seen
    through a view of a larger or transposed base, or Fortran-ordered), some made
    read-only (with `readonly`)."""
    out = []
    for a in args:
        if not isinstance(a, np.ndarray) or a.ndim == 0 or r.random() < 0.25:
            out.append(a)
            continue
        form = r.choice(_FORMS_1D if a.ndim == 1 else _FORMS_2D)
        if form == "F":
            v = np.asfortranarray(a)
        else:
            base = np.zeros(_base_shape(a.shape, form), a.dtype)
            base[...] = (rng.integers(-9, 10, size=base.shape) * 11).astype(a.dtype)
            v = eval("b" + form, {"b": base})
            assert v.shape == a.shape, (form, a.shape, v.shape)
            v[...] = a
        if r.random() < 0.35 and readonly:
            v.flags.writeable = False
        out.append(v)
    return out


class LayoutGen:
    """Mixed into `gen._Gen`: the statement kind `layout` of family `arg_layouts`."""

    def s_layout(self, env, ctx):
        arrs = self.arrays(env)
        if not arrs:
            return None
        v = self.r.choice(arrs)
        n, s = v.name, v.val.shape
        if len(s) == 1:
            forms = [f"{n}.ravel()", f"{n}.reshape(-1)", f"{n}.flatten()", f"np.ravel({n})",
                     f"{n}[::2].ravel()", f"{n}[::-1].reshape(-1)", f"{n}.T",
                     f"{n}.reshape({s[0]}, 1)", f"{n}.reshape(1, -1).T"]
        else:
            a, b = s
            forms = [f"{n}.ravel()", f"{n}.reshape(-1)", f"{n}.flatten()", f"{n}.T",
                     f"{n}.T.ravel()", f"{n}.T.reshape(-1)", f"np.ravel({n})",
                     f"{n}[:, ::2].ravel()", f"{n}.reshape({b}, {a})", f"np.transpose({n})",
                     f"{n}.T.copy()", f"{n}.reshape({a * b})",
                     f"{n}.T[::-1]",
                     f"{n}.reshape(-1)[::2]", f"{n}.swapaxes(0, 1)"]
        if self.feats.layout_contiguous:   # copies only of a non-C-contiguous array
            forms += [f"np.ascontiguousarray({n}.T)", f"np.ascontiguousarray({n})",
                      f"np.asarray({n}, order='C')"]
        src = self.r.choice(forms)
        val = self.typeof(env, src)
        if val is None or not val.is_array:
            return None
        u = self.fresh("u")
        env2 = dict(env)
        env2[u] = Var(u, val, base=n)
        size = val.shape[0]
        writes = [f"{u}[{self.r.randrange(-size, size)}] = {self.const()}",
                  f"{u} {self.r.choice(AUG)} {self.const()}",
                  f"{u}[::2] {self.r.choice(AUG)} {self.const()}",
                  f"{u}[:] = {self.const()}" if len(val.shape) == 1 else
                  f"{u}[0] = {self.const()}"]
        out = [f"{u} = {src}"]
        for stmt in self.r.sample(writes, self.r.choice([1, 1, 2])):
            if self.runs(env2, stmt) is not None:
                out.append(stmt)
        if self.chance(0.4):   # then a write into what it came from: seen through a view
            w = self.r.choice([f"{n}[0] = {self.const()}", f"{n} *= 2",
                               f"{n}[-1] {self.r.choice(AUG)} {self.const()}"])
            if self.runs(env2, w) is not None:
                out.append(w)
        env[u] = env2[u]
        if ctx.top and not ctx.loops and not ctx.dd_if and not ctx.helper:
            self.layout_results.append(u)
        return self._p("\n".join(out))


# =====================================================================================
# default_args and private_attrs (used by gen.generate)
# =====================================================================================
def between_source(r: random.Random, val: Val) -> str:
    """`__fuzz_between__`: what the caller does to `W` between the two calls."""
    s = val.shape
    forms = ["W *= 2", "W += 1", "W[0] = 3", "W.fill(-1)", "W[:] = -W",
             "W[...] = W[::-1].copy()", "W = W * 10", "pass", "W -= W"]
    if val.dtype.startswith("float"):
        forms += ["W *= 0.5", "W[:] = W * 0.25 + 1.5", "W[0] = np.nan"]
    if len(s) == 2:
        forms += ["W[:, 0] = 7", "W.T[0] += 1"]
    body = r.choice(forms)
    return f"def __fuzz_between__():\n    global W\n    {body}"


def default_val(r: random.Random, params):
    """The type of `W`: an argument's shape (so it mixes with the body), or a row."""
    arrays = [v for _, v in params if v.kind == "arr"]
    v = r.choice(arrays)
    dtype = v.dtype if r.random() < 0.7 else r.choice(["float64", "int64", "float32"])
    shape = v.shape if r.random() < 0.8 or len(v.shape) == 1 else v.shape[1:]
    return Val("arr", shape, dtype)


def array_value(rng, val: Val):
    if val.dtype.startswith("int"):
        return rng.integers(-5, 6, size=val.shape).astype(val.dtype)
    return rng.normal(size=val.shape).astype(val.dtype)


CLASS_TEMPLATE = '''class Model:
    __scale = {scale}

    def __init__(self, w, k):
        self.__w = w
        self.__k = k

    def __shift(self, v):
        return v + self.__k * self.__scale'''


class _Mangle(ast.NodeTransformer):
    """`w` -> `self.__w`, `k` -> `self.__k` (the method's private attributes)."""

    def visit_Name(self, node):
        if node.id in ("w", "k"):
            return ast.copy_location(ast.Attribute(
                value=ast.Name("self", ast.Load()), attr="__" + node.id, ctx=node.ctx), node)
        return node


def method_source(fn: ast.FunctionDef, r: random.Random, first_array: str | None) -> str:
    """`f` as the method `Model.f` reading its private attributes, maybe through the
    private method `__shift` or the private class attribute `__scale` first."""
    fn = _Mangle().visit(fn)
    fn.args.args.insert(0, ast.arg("self"))
    if first_array and r.random() < 0.5:
        pre = r.choice([f"{first_array} = self.__shift({first_array})",
                        f"{first_array} = {first_array} * self.__scale"])
        fn.body[:0] = ast.parse(pre).body
    return ast.unparse(ast.fix_missing_locations(fn))


def class_source(r: random.Random, method: str) -> str:
    head = CLASS_TEMPLATE.format(scale=r.choice([1, 2, 3]))
    return head + "\n\n" + "\n".join("    " + ln if ln else ln for ln in method.splitlines())


def object_source(w, k: int) -> str:
    return f"OBJ = Model({literal(w)}, {k})\nf = OBJ.f"


