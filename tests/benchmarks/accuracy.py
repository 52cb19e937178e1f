"""Measured accuracy of npxla's transcendental functions against NumPy, in ulps.

    python -m tests.benchmarks.accuracy [--n N] [--out FILE] [--only NAME ...]
                                        [--dtype float64|float32 ...]

For every function (exp ... cbrt) and dtype (float64, float32) the script draws `n`
inputs (default 2**20) over the function's domain, from several *regions* (uniform over
small ranges around 0 and around where the function is interesting, log-uniform
magnitudes over the whole finite range where the result is finite, both signs where the
domain allows, random bit patterns between two magnitudes so every binade, subnormals
included, is hit), plus a fixed set of special values (0, -0, the smallest subnormal,
the smallest normal, the largest finite value, +-inf, nan). It computes NumPy's result
and `jit(f)(x)`'s in chunks of the same shape (one compile per function and dtype,
bounded memory) and the distance in units in the last place between the two, per
element:

  * float bits are mapped onto a monotone integer scale (negative floats mirrored
    below zero, -0 and +0 both 0) and the distance is |ia - ib|: adjacent floats are
    1 apart, across zero and across binades alike;
  * both NaN, or the same infinity: 0;
  * NaN against a number is a *NaN mismatch*, an infinity against a finite number (or
    the opposite infinity) an *inf mismatch*: counted separately, left out of the ulp
    statistics.

The report is markdown (stdout, or `--out FILE`): per function and dtype the max and
mean ulp, the share of elements more than 0 and more than 1 ulp off, the NaN and inf
mismatches and the input of the largest distance, in two tables: one without the
elements whose input or NumPy result is subnormal (XLA:CPU flushes subnormals to
zero, which would drown everything else), one over all elements. For float32, both
NumPy and npxla are also compared with a correctly rounded reference (the float64
result rounded), to tell whose error a difference is. Then, for every row whose max
exceeds 1 ulp, the worst case with both results and the max ulp per input region (to
tell a systematic error from a narrow range). Results depend on XLA's flags: the test
suite's `--xla_cpu_use_fusion_emitters=false` (tests/conftest.py) lowers some
functions differently (float64 cbrt, tan); the header names XLA_FLAGS when set.

`measure(name, dtype, n)` is the core, used by tests/runtime/test_accuracy_table.py.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass

import numpy as np

FUNCTIONS = (
    "exp", "exp2", "expm1", "log", "log2", "log10", "log1p",
    "sin", "cos", "tan", "arcsin", "arccos", "arctan",
    "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh",
    "arctan2", "hypot", "power", "sqrt", "cbrt",
)
BINARY = ("arctan2", "hypot", "power")
DTYPES = ("float64", "float32")
CHUNK = 2 ** 18


# -- the functions npxla compiles: one definition each for unary and binary ufuncs, the
#    ufunc captured as a closure variable (npxla resolves free variables like globals)

def _unary(ufunc):
    def f(x):
        return ufunc(x)
    f.__name__ = f.__qualname__ = "f_" + ufunc.__name__
    return f


def _binary(ufunc):
    def f(x, y):
        return ufunc(x, y)
    f.__name__ = f.__qualname__ = "f_" + ufunc.__name__
    return f


KERNELS = {name: (_binary if name in BINARY else _unary)(getattr(np, name))
           for name in FUNCTIONS}


# -- input regions

class _Lim:
    """The limits of one float dtype, as values of that dtype."""

    def __init__(self, dtype):
        dt = np.dtype(dtype)
        fi = np.finfo(dt)
        self.dtype = dt
        self.max = dt.type(fi.max)
        self.tiny = dt.type(fi.smallest_normal)
        self.sub = dt.type(fi.smallest_subnormal)
        self.eps = dt.type(fi.eps)
        with np.errstate(all="ignore"):
            self.ln_max = float(np.log(self.max))               # exp overflows above
            self.ln_sub = float(np.log(self.sub))               # exp underflows to 0 below
            self.log2_max = float(fi.maxexp)                    # 1024 / 128
            self.log2_sub = float(np.log2(self.sub))            # -1074 / -149
            self.asinh_max = float(np.arcsinh(self.max))        # sinh/cosh overflow above
            self.one_below = np.nextafter(dt.type(1), dt.type(0))  # largest value < 1


def _bits_between(rng, lim, lo, hi, size):
    """Random bit patterns between the positive values lo and hi (inclusive): a
    log-uniform magnitude with uniform mantissa, every binade between them equally
    likely, subnormals included."""
    dt = lim.dtype
    ity = np.int64 if dt.itemsize == 8 else np.int32
    a = int(np.array(lo, dt).view(ity))
    b = int(np.array(hi, dt).view(ity))
    return rng.integers(a, b, size, endpoint=True, dtype=np.int64).astype(ity).view(dt)


def _signed(rng, v):
    return np.where(rng.random(v.shape) < 0.5, -v, v)


def U(lo, hi):
    return lambda rng, lim, k: rng.uniform(lo, hi, k).astype(lim.dtype)


def B(lo, hi, sign=1):
    """Bit patterns between |lo| and |hi|; sign 1, -1, or 0 for both signs. lo/hi may
    be callables of the limits."""
    def draw(rng, lim, k):
        a = lo(lim) if callable(lo) else lo
        b = hi(lim) if callable(hi) else hi
        v = _bits_between(rng, lim, a, b, k)
        return -v if sign < 0 else _signed(rng, v) if sign == 0 else v
    return draw


def L(lo, hi):
    """Uniform over [lo(lim), hi(lim)]: ranges that depend on the dtype's limits."""
    return lambda rng, lim, k: rng.uniform(lo(lim), hi(lim), k).astype(lim.dtype)


def near(points, width):
    """Points (a callable of the limits or a sequence) each perturbed by U(-w, w)."""
    def draw(rng, lim, k):
        p = np.asarray(points(lim) if callable(points) else points, np.float64)
        x = p[rng.integers(0, len(p), k)] + rng.uniform(-width, width, k)
        return x.astype(lim.dtype)
    return draw


def _half_pi_multiples(lim):
    k = np.arange(-2000, 2001)
    return k * (np.pi / 2)


SUB, TINY, MAX = (lambda m: m.sub), (lambda m: m.tiny), (lambda m: m.max)
SPECIALS = (0.0, -0.0, 1.0, -1.0, "sub", "-sub", "tiny", "-tiny", "max", "-max",
            np.inf, -np.inf, np.nan)

_exp_like = [
    ("U(-1,1)", 2, U(-1, 1)),
    ("U(-20,20)", 2, U(-20, 20)),
    ("|x|<1e-3 bits", 1, B(SUB, 1e-3, 0)),
    ("finite range", 3, L(lambda m: m.ln_sub, lambda m: m.ln_max)),
]
_log_like = [
    ("U(0.5,2)", 2, U(0.5, 2)),
    ("1+-1e-4", 1, U(1 - 1e-4, 1 + 1e-4)),
    ("U(0,100)", 1, U(0, 100)),
    ("(0,max] bits", 4, B(SUB, MAX)),
]
_trig = [
    ("U(-pi,pi)", 3, U(-np.pi, np.pi)),
    ("U(-100,100)", 2, U(-100, 100)),
    ("near k*pi/2, |k|<=2000", 1, near(_half_pi_multiples, 1e-3)),
    ("|x|<1e5 bits", 2, B(SUB, 1e5, 0)),
    ("1e5<|x|<=max bits", 1, B(1e5, MAX, 0)),
]

# name: [(region label, weight, sampler)] -- unary samplers return x, binary ones (x, y)
REGIONS = {
    "exp": _exp_like,
    "expm1": _exp_like + [("x<<0 bits", 1, B(1, MAX, -1))],
    "exp2": [
        ("U(-1,1)", 2, U(-1, 1)),
        ("U(-30,30)", 2, U(-30, 30)),
        ("|x|<1e-3 bits", 1, B(SUB, 1e-3, 0)),
        ("finite range", 3, L(lambda m: m.log2_sub, lambda m: m.log2_max)),
    ],
    "log": _log_like, "log2": _log_like, "log10": _log_like,
    "log1p": [
        ("U(-0.5,1)", 2, U(-0.5, 1)),
        ("|x|<1e-3 bits", 2, B(SUB, 1e-3, 0)),
        ("(-1,-0.5) bits", 1, B(0.5, lambda m: m.one_below, -1)),
        ("(0,max] bits", 3, B(SUB, MAX)),
    ],
    "sin": _trig, "cos": _trig, "tan": _trig,
    "arcsin": (_asin := [
        ("U(-1,1)", 3, U(-1, 1)),
        ("|x|<1 bits", 3, B(SUB, lambda m: m.one_below, 0)),
        ("|x| in 1-1e-3..1", 2, near([-1.0, 1.0], 1e-3)),
    ]),
    "arccos": _asin,
    "arctan": [
        ("U(-5,5)", 3, U(-5, 5)),
        ("|x|<=max bits", 3, B(SUB, MAX, 0)),
    ],
    "sinh": (_sinh := [
        ("U(-1,1)", 2, U(-1, 1)),
        ("U(-20,20)", 2, U(-20, 20)),
        ("|x|<1e-3 bits", 1, B(SUB, 1e-3, 0)),
        ("finite range", 3, L(lambda m: -m.asinh_max, lambda m: m.asinh_max)),
    ]),
    "cosh": _sinh,
    "tanh": [
        ("U(-1,1)", 2, U(-1, 1)),
        ("U(-20,20)", 2, U(-20, 20)),
        ("|x|<=max bits", 3, B(SUB, MAX, 0)),
    ],
    "arcsinh": [
        ("U(-2,2)", 3, U(-2, 2)),
        ("|x|<=max bits", 3, B(SUB, MAX, 0)),
    ],
    "arccosh": [
        ("U(1,2)", 2, U(1, 2)),
        ("U(1,1+1e-3)", 2, U(1, 1 + 1e-3)),
        ("[1,max] bits", 3, B(1, MAX)),
    ],
    "arctanh": [
        ("U(-1,1)", 3, U(-1, 1)),
        ("|x|<1 bits", 3, B(SUB, lambda m: m.one_below, 0)),
        ("|x| in 1-1e-3..1", 2, near([-1.0, 1.0], 1e-3)),
    ],
    "sqrt": [
        ("U(0,4)", 2, U(0, 4)),
        ("[0,max] bits", 3, B(SUB, MAX)),
    ],
    "cbrt": [
        ("U(-8,8)", 2, U(-8, 8)),
        ("|x|<=max bits", 3, B(SUB, MAX, 0)),
    ],
}


def _pair(fx, fy):
    return lambda rng, lim, k: (fx(rng, lim, k), fy(rng, lim, k))


def _power_loguniform(rng, lim, k):
    """x > 0 over every binade, y scaled so |y*log2(x)| stays within the exponent
    range: the result is finite and (mostly) normal."""
    x = _bits_between(rng, lim, lim.sub, lim.max, k)
    with np.errstate(all="ignore"):
        l2 = np.maximum(np.abs(np.log2(x.astype(np.float64))), 1.0)
    y = rng.uniform(-1, 1, k) * (lim.log2_max - 1) / l2
    return x, y.astype(lim.dtype)


def _power_negative_integer(rng, lim, k):
    x = -rng.uniform(0.01, 30, k)
    y = rng.integers(-30, 31, k).astype(np.float64)
    return x.astype(lim.dtype), y.astype(lim.dtype)


def _power_near_one(rng, lim, k):
    x = rng.uniform(0.99, 1.01, k)
    y = _signed(rng, _bits_between(rng, lim, lim.dtype.type(1), lim.dtype.type(5e3), k))
    return x.astype(lim.dtype), y


REGIONS.update({
    "arctan2": [
        ("y,x U(-5,5)", 3, _pair(U(-5, 5), U(-5, 5))),
        ("y,x |.|<=max bits", 3, _pair(B(SUB, MAX, 0), B(SUB, MAX, 0))),
        ("y bits, x U(-1,1)", 1, _pair(B(SUB, MAX, 0), U(-1, 1))),
    ],
    "hypot": [
        ("x,y U(-5,5)", 3, _pair(U(-5, 5), U(-5, 5))),
        ("x,y |.|<=max bits", 3, _pair(B(SUB, MAX, 0), B(SUB, MAX, 0))),
        ("x bits, y U(-1,1)", 1, _pair(B(SUB, MAX, 0), U(-1, 1))),
    ],
    "power": [
        ("x U(0,10), y U(-10,10)", 3, _pair(U(0, 10), U(-10, 10))),
        ("x>0 bits, |y log2 x|<emax", 3, _power_loguniform),
        ("x U(.99,1.01), |y|<5e3", 1, _power_near_one),
        ("x<0, integer y", 1, _power_negative_integer),
    ],
})


def _special_values(lim):
    out = []
    for s in SPECIALS:
        if isinstance(s, str):
            v = getattr(lim, s.lstrip("-"))
            out.append(-v if s.startswith("-") else v)
        else:
            out.append(lim.dtype.type(s))
    return np.array(out, lim.dtype)


def draw_inputs(name, dtype, n, seed=0):
    """(args, region index per element, region labels): args is (x,) or (x, y), each of
    length n. The special values (every pair of them for binary functions) come
    first, labelled 'specials'."""
    lim = _Lim(dtype)
    rng = np.random.default_rng([seed, FUNCTIONS.index(name), DTYPES.index(str(lim.dtype))])
    spec = _special_values(lim)
    if name in BINARY:
        sx, sy = (a.ravel() for a in np.meshgrid(spec, spec, indexing="ij"))
        specials = (sx, sy)
    else:
        specials = (spec,)
    n_spec = min(len(specials[0]), n)
    regions = REGIONS[name]
    weights = np.array([w for _, w, _ in regions], np.float64)
    counts = np.floor(weights / weights.sum() * (n - n_spec)).astype(int)
    counts[-1] += (n - n_spec) - counts.sum()
    parts = [tuple(a[:n_spec] for a in specials)]
    labels = ["specials"] + [r[0] for r in regions]
    tags = [np.zeros(n_spec, np.int16)]
    for i, ((_, _, sampler), k) in enumerate(zip(regions, counts)):
        with np.errstate(all="ignore"):
            got = sampler(rng, lim, int(k))
        got = got if isinstance(got, tuple) else (got,)
        parts.append(tuple(np.asarray(a, lim.dtype) for a in got))
        tags.append(np.full(k, i + 1, np.int16))
    args = tuple(np.concatenate([p[j] for p in parts]) for j in range(len(parts[0])))
    return args, np.concatenate(tags), labels


# -- ulp distance

def _ordered(a):
    """Float bits as uint64 on a monotone scale: -0 and +0 map to the same point,
    adjacent floats are 1 apart."""
    a = np.asarray(a)
    ity = np.int64 if a.dtype.itemsize == 8 else np.int32
    i = a.view(ity).astype(np.int64)
    m = np.where(i < 0, -(i & np.int64(np.iinfo(ity).max)), i)   # sign-magnitude -> two's
    return (m.view(np.uint64) ^ np.uint64(1 << 63))              # offset binary, exact


def ulp_distance(expected, got):
    """(ulps as uint64, nan mismatch mask, inf mismatch mask). Both NaN and equal
    infinities are 0 ulps; mismatched elements read 0 in the ulps."""
    e, g = np.asarray(expected), np.asarray(got)
    ne, ng = np.isnan(e), np.isnan(g)
    ie, ig = np.isinf(e), np.isinf(g)
    nan_mis = ne != ng
    inf_mis = ~(ne | ng) & (ie | ig) & (e != g)
    oe, og = _ordered(e), _ordered(g)
    d = np.where(oe >= og, oe - og, og - oe)
    d[nan_mis | inf_mis | (ne & ng)] = 0
    return d, nan_mis, inf_mis


# -- measurement

@dataclass
class Stats:
    """Distances over one subset of the inputs (all of them, or those without
    subnormals)."""
    labels: list
    count: int = 0
    max_ulp: int = 0
    sum_ulp: float = 0.0
    over0: int = 0
    over1: int = 0
    nan_mismatch: int = 0
    inf_mismatch: int = 0
    worst: tuple = ()                  # (args, numpy result, npxla result)
    first_nan_mismatch: tuple = ()
    first_inf_mismatch: tuple = ()
    region_max: list = None
    region_over1: list = None
    region_count: list = None

    def __post_init__(self):
        k = len(self.labels)
        self.region_max = [0] * k
        self.region_over1 = [0] * k
        self.region_count = [0] * k

    @property
    def counted(self):
        return self.count - self.nan_mismatch - self.inf_mismatch

    @property
    def mean_ulp(self):
        return self.sum_ulp / max(self.counted, 1)

    def add(self, args, expected, got, d, nan_mis, inf_mis, tags):
        """Fold in one chunk (already restricted to this subset)."""
        self.count += len(d)
        if not len(d):
            return
        self.nan_mismatch += int(nan_mis.sum())
        self.inf_mismatch += int(inf_mis.sum())
        for attr, mask in (("first_nan_mismatch", nan_mis), ("first_inf_mismatch", inf_mis)):
            if not getattr(self, attr) and mask.any():
                j = int(np.argmax(mask))
                setattr(self, attr, (tuple(a[j] for a in args), expected[j], got[j]))
        self.sum_ulp += float(d.sum(dtype=np.float64))
        self.over0 += int((d > 0).sum())
        self.over1 += int((d > 1).sum())
        j = int(np.argmax(d))
        if int(d[j]) > self.max_ulp or not self.worst:
            self.max_ulp = int(d[j])
            self.worst = (tuple(a[j] for a in args), expected[j], got[j])
        for k in np.unique(tags):
            dk = d[tags == k]
            self.region_count[k] += len(dk)
            self.region_max[k] = max(self.region_max[k], int(dk.max()))
            self.region_over1[k] += int((dk > 1).sum())


@dataclass
class Result:
    name: str
    dtype: str
    n: int
    all: Stats            # every element
    normal: Stats         # elements whose inputs and NumPy result are not subnormal
    # float32 only, over `normal` without mismatches: max ulp and elements > 1 ulp of
    # NumPy and of npxla against the float64 result rounded to float32 (correctly
    # rounded but for rare double roundings)
    ref: dict = None
    seconds: float = 0.0


def _subnormal(a):
    a = np.abs(a)
    return (a > 0) & (a < np.finfo(a.dtype).smallest_normal)


def _against_reference(r, ufunc, part, expected, got, keep):
    with np.errstate(all="ignore"):
        ref = ufunc(*(a[keep].astype(np.float64) for a in part)).astype(np.float32)
    r.ref = r.ref or {"numpy": [0, 0], "npxla": [0, 0]}
    for who, res in (("numpy", expected[keep]), ("npxla", got[keep])):
        d, nan_mis, inf_mis = ulp_distance(ref, res)
        d = d[~nan_mis & ~inf_mis]     # float32 overflow where float64 does not: no ulps
        if len(d):
            r.ref[who][0] = max(r.ref[who][0], int(d.max()))
            r.ref[who][1] += int((d > 1).sum())


def measure(name, dtype="float64", n=2 ** 20, chunk=CHUNK, seed=0):
    """npxla's `jit(np.<name>)` against NumPy on `n` drawn inputs of `dtype`."""
    from npxla import jit
    t0 = time.perf_counter()
    args, tags, labels = draw_inputs(name, dtype, n, seed)
    ufunc = getattr(np, name)
    fn = jit(KERNELS[name])
    chunk = min(chunk, n)
    r = Result(name, str(np.dtype(dtype)), n, Stats(labels), Stats(labels))
    for start in range(0, n, chunk):
        stop = min(start + chunk, n)
        part = tuple(a[start:stop] for a in args)
        if stop - start < chunk:   # the same shape every call: one compile
            part_in = tuple(np.concatenate([a, np.zeros(chunk - len(a), a.dtype)]) for a in part)
        else:
            part_in = part
        with np.errstate(all="ignore"):
            expected = ufunc(*part)
        got = np.asarray(fn(*part_in))[: stop - start]
        if got.dtype != expected.dtype:
            raise AssertionError(f"{name}({dtype}): npxla returns {got.dtype}, "
                                 f"NumPy {expected.dtype}")
        d, nan_mis, inf_mis = ulp_distance(expected, got)
        t = tags[start:stop]
        r.all.add(part, expected, got, d, nan_mis, inf_mis, t)
        sub = _subnormal(expected)
        for a in part:
            sub |= _subnormal(a)
        keep = ~sub
        r.normal.add(tuple(a[keep] for a in part), expected[keep], got[keep], d[keep],
                     nan_mis[keep], inf_mis[keep], t[keep])
        if r.dtype == "float32":
            _against_reference(r, ufunc, part, expected, got, keep & ~nan_mis & ~inf_mis)
    r.seconds = time.perf_counter() - t0
    return r


# -- report

def _fmt(v):
    v = np.asarray(v).item() if isinstance(v, np.generic) else v
    if isinstance(v, float):
        return repr(v) if np.isfinite(v) else str(v)
    return str(v)


def _fmt_args(args):
    return ", ".join(_fmt(a) for a in args)


def _share(k, total):
    if k == 0:
        return "0"
    return f"{100 * k / max(total, 1):.3g}%"


def _fmt_ulp(u):
    return f"{u:.3g}" if u >= 1e6 else str(u)


def _table(results, which):
    lines = [
        ("| function | dtype | max ulp | mean ulp | > 0 ulp | > 1 ulp | NaN mism. "
         "| inf mism. | input at max ulp |"),
        "|---|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in results:
        s = getattr(r, which)
        lines.append(
            f"| {r.name} | {r.dtype} | {_fmt_ulp(s.max_ulp)} | {s.mean_ulp:.3g} | "
            f"{_share(s.over0, s.counted)} | {_share(s.over1, s.counted)} | "
            f"{s.nan_mismatch} | {s.inf_mismatch} | "
            f"{_fmt_args(s.worst[0]) if s.max_ulp else '-'} |")
    return lines


def _details(r, s):
    lines = [f"- {r.name} {r.dtype}"]
    if s.max_ulp > 1:
        args, e, g = s.worst
        lines.append(f"  - worst: {r.name}({_fmt_args(args)}): NumPy {_fmt(e)}, "
                     f"npxla {_fmt(g)} ({_fmt_ulp(s.max_ulp)} ulp)")
    for label, attr in (("NaN", "first_nan_mismatch"), ("inf", "first_inf_mismatch")):
        m = getattr(s, attr)
        if m:
            lines.append(f"  - first {label} mismatch: {r.name}({_fmt_args(m[0])}): "
                         f"NumPy {_fmt(m[1])}, npxla {_fmt(m[2])}")
    lines.append("  - per region (max ulp, elements > 1 ulp / elements): " + "; ".join(
        f"{lab}: {_fmt_ulp(mx)}, {o1}/{c}" for lab, mx, o1, c in
        zip(s.labels, s.region_max, s.region_over1, s.region_count) if c))
    return lines


def to_markdown(results, n, elapsed=None, command="python -m tests.benchmarks.accuracy", library=False):
    import platform

    import jax
    flags = os.environ.get("XLA_FLAGS", "").strip()
    xla_flags = f" (XLA_FLAGS={flags})" if flags else ""
    lines = [
        "# npxla transcendental accuracy against NumPy",
        "",
        (f"Generated by `{command}`; rerun it after changing a lowering. XLA:CPU "
         "flushes subnormal inputs and results to zero, so the first table leaves them "
         "out."),
        "",
        ("Measured with NumPy's own loops for large arrays (`--library`): every function "
         "of `runtime/numpy/ufuncs/host_ufuncs.py` is NumPy's bits there." if library else
         "These are npxla's own kernels. On hosts where NumPy runs its AVX-512 loops, "
         "arrays of 1,024 elements or more get those loops instead, and NumPy's bits, for "
         "the functions of `runtime/numpy/ufuncs/host_ufuncs.py` (`--library` measures "
         "that)."),
        "",
        f"NumPy {np.__version__}, jax/jaxlib {jax.__version__}, {platform.machine()}, "
        f"XLA:CPU{xla_flags}; n = {n} inputs per function and dtype"
        + (f"; {elapsed:.0f} s" if elapsed is not None else "") + ". "
        "Distances are in ulps of the result dtype between NumPy's result and "
        "`npxla.jit`'s, per element (adjacent floats are 1 apart, -0 == +0, equal "
        "infinities and NaN vs NaN are 0); a NaN against a number and an infinity "
        "against a finite number are counted apart (NaN/inf mismatches) and left out "
        "of the ulp columns. Shares are of the elements without such a mismatch.",
        "",
        "## Inputs and results without subnormals",
        "",
        ("XLA:CPU runs with denormals flushed to zero (FTZ/DAZ, as in `jax.jit`): a "
         "subnormal input reads as 0 and a subnormal result comes out 0. This table "
         "leaves out every element whose input(s) or NumPy result is subnormal; the "
         "next one counts everything."),
        "",
    ]
    lines += _table(results, "normal")
    f32 = [r for r in results if r.ref]
    if f32:
        lines += [
            "", "## float32 against a correctly rounded reference", "",
            ("The first table's float32 elements against NumPy's float64 result rounded "
             "to float32 (correctly rounded but for rare double roundings): how far "
             "NumPy's own float32 loops and npxla each are from it."), "",
            "| function | NumPy max ulp | NumPy > 1 ulp | npxla max ulp | npxla > 1 ulp |",
            "|---|---:|---:|---:|---:|"]
        for r in f32:
            (nm, no), (xm, xo) = r.ref["numpy"], r.ref["npxla"]
            c = r.normal.counted
            lines.append(f"| {r.name} | {_fmt_ulp(nm)} | {_share(no, c)} | "
                         f"{_fmt_ulp(xm)} | {_share(xo, c)} |")
    lines += ["", "## All inputs", ""]
    lines += _table(results, "all")
    for which, title in (("normal", "without subnormals"), ("all", "all inputs")):
        worse = [r for r in results if getattr(r, which).max_ulp > 1
                 or getattr(r, which).nan_mismatch or getattr(r, which).inf_mismatch]
        if worse:
            lines += ["", (f"## Details: rows over 1 ulp or with a NaN/inf mismatch "
                           f"({title})"), ""]
        for r in worse:
            lines += _details(r, getattr(r, which))
    return "\n".join(lines) + "\n"


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m tests.benchmarks.accuracy",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=2 ** 20, help="inputs per function and dtype")
    p.add_argument("--out", help="write the markdown table here (default: stdout)")
    p.add_argument("--only", nargs="+", choices=FUNCTIONS, help="these functions only")
    p.add_argument("--dtype", nargs="+", choices=DTYPES, default=list(DTYPES))
    p.add_argument("--chunk", type=int, default=CHUNK, help="elements per jit call")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--library", action="store_true",
                   help="let large arrays use NumPy's own loops where npxla does")
    a = p.parse_args(argv)
    if not a.library:          # npxla's kernels (what small arrays and other hosts get)
        from npxla.runtime.numpy.ufuncs import host_ufuncs
        host_ufuncs.ENABLED = False
    t0 = time.perf_counter()
    results = []
    for name in a.only or FUNCTIONS:
        for dt in a.dtype:
            r = measure(name, dt, a.n, a.chunk, a.seed)
            s = r.normal
            print(f"{name:8s} {dt:8s} without subnormals: max {s.max_ulp} ulp, "
                  f"> 1 ulp {s.over1}, NaN/inf mismatches {s.nan_mismatch}/"
                  f"{s.inf_mismatch}; all: max {_fmt_ulp(r.all.max_ulp)} ulp "
                  f"({r.seconds:.1f} s)", file=sys.stderr)
            results.append(r)
    command = " ".join(["python -m tests.benchmarks.accuracy"] +
                       (sys.argv[1:] if argv is None else list(argv)))
    md = to_markdown(results, a.n, time.perf_counter() - t0, command, a.library)
    if a.out:
        with open(a.out, "w") as f:
            f.write(md)
    else:
        sys.stdout.write(md)


if __name__ == "__main__":
    main()
