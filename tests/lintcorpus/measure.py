"""Recall and precision of the linter on the corpus (tests/lintcorpus/corpus.py).

Truth, per function: `npxla.jit(fn)` is called on the case's inputs and compared with the
plain NumPy call (`tests.realcode.runner.compare`, dtype, shape and values to 1e-12):

* "ok": it compiles and agrees;
* "refused": `@jit` raised a `TranspileError`;
* "fails": it raised anything else, or gave another answer than NumPy;
* "skip": the plain call itself failed (not measured).

The linter's verdict: `lint_source` on the source of the function's module, with the
function marked as jitted (`jitted=(name,)`); "flagged" when an error-severity `NPX1xx`
rule reports anything (in the function or in what it calls). Recall is the share of
refused/failing functions flagged, precision the share of flagged functions that are
refused or fail.
"""
from __future__ import annotations

import inspect
import os
import time
import warnings

import numpy as np

os.environ.setdefault("NPXLA_CACHE_DIR", "off")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

OK, REFUSED, FAILS, SKIP = "ok", "refused", "fails", "skip"
# compiled, and differs from NumPy only at the level of last-bit rounding (agrees to
# `ROUNDING_RTOL`): npxla's float64 elementary functions (np.arctan, np.hypot, ...) are
# within 1 ulp of NumPy's, not bit-identical, and cancellation can lift that to 1e-11
# of a result. No linter can see that in the code, so it is not in the recall's
# denominator; the report lists these cases apart.
ROUNDING = "rounding"
ROUNDING_RTOL = 1e-9


def _copy(x):
    if isinstance(x, np.ndarray):
        return x.copy()
    if isinstance(x, (list, tuple)):
        return type(x)(_copy(i) for i in x)
    return x


def _short(text, limit=240):
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def truth(fn, args):
    """(OK | REFUSED | FAILS | SKIP, detail)."""
    from npxla import jit
    from npxla.transpiler.base.errors import TranspileError
    from tests.realcode.runner import _Mismatch, compare
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            expected = fn(*_copy(args))
        except Exception as e:                  # bad inputs: not a measurement
            return SKIP, f"plain call raised {type(e).__name__}: {_short(e)}"
        try:
            actual = jit(fn)(*_copy(args))
        except TranspileError as e:
            first = (e.message or str(e)).splitlines()[0]
            loc = getattr(e, "location", None)
            where = f" [{os.path.basename(str(loc.file))}:{loc.line}]" if loc is not None \
                and getattr(loc, "file", None) else ""
            return REFUSED, f"{type(e).__name__}: {_short(first)}{where}"
        except Exception as e:
            return FAILS, f"{type(e).__name__}: {_short(e)}"
    try:
        compare(expected, actual, "result")
    except _Mismatch as e:
        if _agrees_to(expected, actual, ROUNDING_RTOL):
            return ROUNDING, f"differs from NumPy in the last bits: {_short(e)}"
        return FAILS, f"differs from NumPy: {_short(e)}"
    return OK, ""


def _agrees_to(expected, actual, rtol):
    from tests.realcode import runner
    saved = runner.RTOL, runner.ATOL
    runner.RTOL = runner.ATOL = rtol
    try:
        runner.compare(expected, actual, "result")
        return True
    except runner._Mismatch:
        return False
    finally:
        runner.RTOL, runner.ATOL = saved


def verdict(fn):
    """The error findings of the linter for `fn` jitted, as short strings."""
    from npxla.transpiler.lint import lint_source
    from npxla.transpiler.lint.rules import RULES
    path = inspect.getsourcefile(fn)
    with open(path, encoding="utf-8") as fh:
        source = fh.read()
    findings = lint_source(source, path, jitted=(fn.__name__,))
    return [f"{os.path.basename(f.path)}:{f.line}: {f.code} {_short(f.message, 160)}"
            for f in findings if f.code.startswith("NPX1")
            and RULES[f.code].severity == "error"]


def measure(cases, verbose=False):
    rows = []
    for case in cases:
        fn = case.function()
        start = time.perf_counter()
        status, detail = truth(fn, case.args)
        seconds = time.perf_counter() - start
        start = time.perf_counter()
        findings = verdict(fn)
        lint_seconds = time.perf_counter() - start
        rows.append({"function": case.id, "package": case.package, "truth": status,
                     "detail": detail, "flagged": bool(findings), "findings": findings,
                     "seconds": round(seconds, 2), "lint_seconds": round(lint_seconds, 3)})
        if verbose:
            print(f"{status:8} {'FLAG' if findings else '    '} {case.id}  {detail[:120]}")
            for f in findings[:3]:
                print(f"              {f[:150]}")
    return rows


def summary(rows):
    measured = [r for r in rows if r["truth"] not in (SKIP, ROUNDING)]
    bad = [r for r in measured if r["truth"] != OK]
    tp = [r for r in bad if r["flagged"]]
    fp = [r for r in measured if r["truth"] == OK and r["flagged"]]
    fn = [r for r in bad if not r["flagged"]]
    return {
        "functions": len(rows), "measured": len(measured),
        "rounding": sum(r["truth"] == ROUNDING for r in rows),
        "skipped": sum(r["truth"] == SKIP for r in rows),
        "ok": len(measured) - len(bad),
        "refused": sum(r["truth"] == REFUSED for r in measured),
        "fails": sum(r["truth"] == FAILS for r in measured),
        "flagged": len(tp) + len(fp), "true_positives": len(tp),
        "false_positives": len(fp), "misses": len(fn),
        "recall": len(tp) / len(bad) if bad else 1.0,
        "precision": len(tp) / (len(tp) + len(fp)) if tp or fp else 1.0,
        "missed": [r["function"] for r in fn],
        "flagged_ok": [r["function"] for r in fp],
    }


if __name__ == "__main__":
    import json
    import sys
    from tests.lintcorpus.corpus import cases
    rows = measure(cases(), verbose="-v" in sys.argv)
    if "--json" in sys.argv:
        with open(sys.argv[sys.argv.index("--json") + 1], "w") as fh:
            json.dump(rows, fh, indent=1)
    print(json.dumps(summary(rows), indent=1))
