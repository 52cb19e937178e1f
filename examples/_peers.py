"""Peers for `--peers`: other compilers run on the example's *unmodified* NumPy source.

- numba   : `numba.njit(fn.__wrapped__)`; the first call includes Numba's compilation.
- jax.jit : `jax.jit(fn.__wrapped__)` (under x64, so float64 stays float64). The source is
            NumPy code, not jax.numpy code: NumPy functions on JAX tracers, Python `if`/
            `range` on traced values and in-place updates usually fail while tracing, and
            then the row says `fails: <error class>` (TracerBoolConversionError,
            ConcretizationTypeError, TracerArrayConversionError, TypeError, ...).

Each peer's first result is compared with NumPy's at the example's tolerance; a peer that
raises is reported as `fails: ...`, one whose result differs as `differs` (neither is
timed), and a peer whose package is missing as `not installed`.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

from _harness import Timing, _call, _repeat, compare

PEERS = ("numba", "jax.jit")


@dataclass
class PeerResult:
    name: str
    status: str                    # "ok", "differs", "fails: <Error>", "not installed"
    timing: Timing | None = None   # only when status == "ok"
    max_abs_err: float | None = None
    detail: str = ""


def _numba(fn):
    import numba
    return numba.njit(fn)


def _jax(fn):
    import jax
    enable_x64 = getattr(jax, "enable_x64", None)
    if enable_x64 is None:                           # older JAX
        from jax.experimental import enable_x64
    jitted = jax.jit(fn)

    def call(*args):
        with enable_x64(True):
            return jax.block_until_ready(jitted(*args))
    return call


_COMPILERS = {"numba": _numba, "jax.jit": _jax}


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0][:160] if text else ""


def run_peer(name, example, args, expected, budget) -> PeerResult:
    """Compile `example.fn.__wrapped__` with peer `name`, check it on `args` against
    NumPy's `expected`, and time it like the harness times NumPy and npxla."""
    try:
        call = _COMPILERS[name](example.fn.__wrapped__)
    except ImportError:
        return PeerResult(name, "not installed")
    except Exception as e:                          # the peer refused the function itself
        return PeerResult(name, f"fails: {type(e).__name__}", detail=_first_line(e))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")             # the peers' own performance notes
        try:
            got, first = _call(call, args)
        except Exception as e:
            return PeerResult(name, f"fails: {type(e).__name__}", detail=_first_line(e))
        c = compare(expected, got, example.rtol, example.atol, example.exact)
        if not c.ok:
            return PeerResult(name, "differs", max_abs_err=c.max_abs_err, detail=c.detail)
        return PeerResult(name, "ok", _repeat(call, args, first, budget), c.max_abs_err)


def run_peers(example, args, expected, budget) -> dict:
    return {name: run_peer(name, example, args, expected, budget) for name in PEERS}


def format_peer(p: PeerResult, numpy_median: float, ms) -> str:
    """One line of `format_report` for peer `p` (`ms` formats seconds)."""
    head = f"  {p.name:6s}: "
    if p.status != "ok":
        return head + p.status + (f" ({p.detail})" if p.detail else "")
    t = p.timing
    return (head + f"first call {ms(t.first)}, median {ms(t.median)} ({t.runs} runs); "
            f"max |err| {p.max_abs_err:.2e}, speed-up vs NumPy (median) "
            f"{numpy_median / t.median:.2f}x")


def table_row(p: PeerResult, numpy_median: float, ms) -> str:
    """A sub-row of `run_all`'s table, under the example's row."""
    label = f"  + {p.name}"
    if p.status != "ok":
        return f"{label:22s} {'':9s} {p.status}"
    t = p.timing
    return (f"{label:22s} {'':9s} {p.max_abs_err:10.2e} {'':12s} {ms(t.first)} "
            f"{ms(t.median)} {numpy_median / t.median:8.2f}x")
