"""Results JSON -> Markdown tables and a matplotlib PNG.

    python -m tests.benchmarks.report RESULTS.json [--doc docs/benchmarks.md]
                                                   [--png docs/benchmarks.png]

The Markdown is written between the `<!-- BEGIN GENERATED -->` / `<!-- END GENERATED -->`
markers of the document (the prose around them is kept), or printed.
"""
from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

from .harness import PEERS, geomean
from .kernels import FAMILIES as CORE_FAMILIES
from .real_kernels import FAMILIES as REAL_FAMILIES

FAMILIES = CORE_FAMILIES + REAL_FAMILIES
COMPILED = ("npxla", "jax", "numba", "torch")

BEGIN, END = "<!-- BEGIN GENERATED -->", "<!-- END GENERATED -->"

TARGETS = {"steady_geomean": 1.05, "steady_max": 1.5, "warm_over_cold": 0.25,
           "real_slowdown": 1.2, "real_first_call_s": 2.0}


# --- numbers -----------------------------------------------------------------------------

def steady(rec, peer):
    v = rec.get("steady", {}).get(peer)
    return v["median_s"] if v else None


def ratio(a, b):
    return a / b if a and b else None


def kernel_rows(results):
    rows = []
    for rec in results["kernels"]:
        t = {p: steady(rec, p) for p in PEERS}
        fc = rec.get("first_call", {})
        rows.append({
            "name": rec["name"], "family": rec["family"], "source": rec.get("source", ""),
            "n": rec.get("n"), "size": _size(rec), "status": rec.get("status", {}), "t": t,
            "first": fc,
            "npxla/jax": ratio(t["npxla"], t["jax"]),
            "npxla/jax best": ratio(*(rec.get("steady", {}).get(p, {}).get("min_s")
                                      for p in ("npxla", "jax"))),
            "npxla/numba": ratio(t["npxla"], t["numba"]),
            "npxla/torch": ratio(t["npxla"], t["torch"]),
            "speedup": {p: ratio(t["numpy"], t[p]) for p in COMPILED},
            "first npxla/jax": ratio(fc.get("npxla"), fc.get("jax")),
        })
    return rows


def _size(rec):
    """The largest array argument, e.g. `f64[1000, 1000]` (the kernel's scale)."""
    arrays = [a for a in rec.get("inputs", []) if "[" in a and not a.startswith(("(", "'"))]
    if not arrays:
        return f"n={rec.get('n')}"

    def elements(a):
        dims = [int(d) for d in a[a.index("[") + 1:-1].split(",") if d.strip()]
        return math.prod(dims)
    big = max(arrays, key=elements)
    return big.replace("float64", "f64").replace("int8", "i8") + (
        " …" if len(rec.get("inputs", [])) > 1 else "")


def family_rows(rows):
    out = []
    for fam in FAMILIES + ("all",):
        sel = [r for r in rows if fam == "all" or r["family"] == fam]
        if not sel:
            continue
        out.append({
            "family": fam, "kernels": len(sel),
            "npxla/jax": geomean([r["npxla/jax"] for r in sel]),
            "speedup": {p: geomean([r["speedup"][p] for r in sel]) for p in COMPILED},
            "npxla/numba": geomean([r["npxla/numba"] for r in sel]),
            "npxla/torch": geomean([r["npxla/torch"] for r in sel]),
            "first npxla/jax": geomean([r["first npxla/jax"] for r in sel]),
            "numba_count": sum(1 for r in sel if r["t"]["numba"]),
            "torch_count": sum(1 for r in sel if r["t"]["torch"]),
        })
    return out


def targets(results, rows):
    """[(target, measured, met)]"""
    out = []
    ratios = [r["npxla/jax"] for r in rows if r["npxla/jax"]]
    failing = [r["name"] for r in rows if r["status"].get("npxla", "ok") != "ok"]
    g = geomean(ratios)
    out.append(("steady state: geomean npxla/jax.jit <= 1.05",
                f"{g:.2f} over {len(ratios)} kernels"
                + (f" ({len(failing)} failing under npxla: {', '.join(failing)})"
                   if failing else ""), g <= TARGETS["steady_geomean"] and not failing))
    worst = sorted((r for r in rows if r["npxla/jax"]), key=lambda r: -r["npxla/jax"])
    above = [f"{r['name']} {r['npxla/jax']:.2f}" for r in worst
             if r["npxla/jax"] > TARGETS["steady_max"]]
    out.append(("steady state: no kernel above 1.5 x jax.jit",
                f"max {worst[0]['npxla/jax']:.2f} ({worst[0]['name']}); "
                f"{len(above)} above 1.5" + (f": {', '.join(above)}" if above else "")
                if worst else "n/a", bool(worst) and not above))
    d = [(row["name"], row["us"].get("npxla"), row["us"].get("jax"))
         for row in results.get("dispatch", [])]
    d = [x for x in d if x[1] and x[2]]
    if d:
        worse = [f"{n} {a:.1f} vs {b:.1f} us" for n, a, b in d if a > b]
        out.append(("dispatch on 4-element arrays: npxla <= jax.jit (both returning NumPy)",
                    "; ".join(f"{n}: {a:.1f} vs {b:.1f} us" for n, a, b in d),
                    not worse))
    f = geomean([r["first npxla/jax"] for r in rows])
    if not math.isnan(f):
        out.append(("first call: geomean npxla/jax.jit <= 1", f"{f:.2f}", f <= 1.0))
    real = [r for r in rows if r["family"] in REAL_FAMILIES]
    if real:
        out.extend(real_targets(real))
    cs = [c for c in results.get("coldstart", []) if c.get("peer") == "npxla" and "cold" in c]
    if cs:
        fr = [c["warm_first_call_s"] / c["cold_first_call_s"] for c in cs]
        over = [c["warm_overhead_s"] / c["cold_overhead_s"] for c in cs
                if c.get("cold_overhead_s")]
        out.append(("fresh process, warm disk cache: first call <= 25% of cold",
                    ", ".join(f"{c['kernel']} {x:.0%}" for c, x in zip(cs, fr))
                    + f" (geomean {geomean(fr):.0%}"
                    + (f"; without the run itself: {geomean(over):.0%})" if over else ")"),
                    all(x <= TARGETS["warm_over_cold"] for x in fr)))
    return out


def real_targets(rows):
    """Issue 13's targets over the real-kernel classes."""
    out = []
    ok = [r for r in rows if r["t"]["npxla"]]
    failing = [r["name"] for r in rows if not r["t"]["npxla"]]
    for peer in ("numba", "torch"):
        both = [r for r in ok if r["t"][peer]]
        mine = geomean([r["speedup"]["npxla"] for r in both])
        theirs = geomean([r["speedup"][peer] for r in both])
        out.append((f"real kernels: steady geomean speed-up vs NumPy, npxla > {peer}",
                    f"{mine:.3g}x vs {theirs:.3g}x over the {len(both)} kernels both run"
                    + (f"; npxla fails on {len(failing)}: {', '.join(failing)}"
                       if failing else ""), mine > theirs and not failing))
    slow = [f"{r['name']} {1 / r['speedup']['npxla']:.2f}x slower" for r in ok
            if r["speedup"]["npxla"] and 1 / r["speedup"]["npxla"] > TARGETS["real_slowdown"]]
    out.append(("real kernels: none slower than NumPy by more than 1.2x",
                f"{len(slow)} slower" + (f": {', '.join(slow)}" if slow else ""),
                not slow and not failing))
    long_ = [f"{r['name']} {fmt_t(r['first'].get('npxla'))}" for r in ok
             if (r["first"].get("npxla") or 0) > TARGETS["real_first_call_s"]]
    out.append(("real kernels: npxla first call < 2 s",
                f"{len(long_)} over" + (f": {', '.join(long_)}" if long_ else ""),
                not long_ and not failing))
    return out


# --- formatting --------------------------------------------------------------------------

def fmt_t(seconds):
    if seconds is None:
        return "—"
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds * 1e6:.3g} µs"


def fmt_x(x, digits=2):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    return f"{x:.{digits}f}"


def fmt_speedup(x):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    return f"{x:.3g}×"


def table(header, rows, text_columns=1):
    """Markdown table; the first `text_columns` columns left-aligned, numbers right."""
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join("---" if i < text_columns else "---:"
                            for i in range(len(header))) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def markdown(results, png_name="benchmarks.png"):
    rows = kernel_rows(results)
    meta = results.get("meta", {})
    out = []
    out.append(f"Generated {meta.get('date', '?')} by `{meta.get('command', '?')}` "
               f"(mode `{meta.get('mode', '?')}`, {meta.get('wall_s', 0) / 60:.1f} min).")
    out.append("")
    out.append("### Machine")
    out.append("")
    for key in ("cpu", "cores", "memory", "platform", "python", "versions", "xla_device",
                "load"):
        if key in meta:
            out.append(f"- **{key}**: {meta[key]}")
    out.append("")
    out.append("### Targets")
    out.append("")
    out.append(table(["target", "measured", "met"],
                     [(t, m, "yes" if ok else "**no**") for t, m, ok in targets(results, rows)],
                     text_columns=3))
    out.append("")
    out.append("### Steady state (median time per call; ratios < 1 favour npxla)")
    out.append("")
    out.append(table(
        ["kernel", "family", "size", "NumPy", "npxla", "jax.jit", "Numba", "torch.compile",
         "npxla / jax", "(best runs)", "npxla / Numba", "npxla / torch", "npxla vs NumPy",
         "jax vs NumPy", "Numba vs NumPy", "torch vs NumPy"],
        [(f"`{r['name']}`" + (" †" if r["source"] != "suite" else ""), r["family"], r["size"],
          fmt_t(r["t"]["numpy"]), fmt_t(r["t"]["npxla"]), fmt_t(r["t"]["jax"]),
          fmt_t(r["t"]["numba"]), fmt_t(r["t"]["torch"]), fmt_x(r["npxla/jax"]),
          fmt_x(r["npxla/jax best"]), fmt_x(r["npxla/numba"]), fmt_x(r["npxla/torch"]),
          *(fmt_speedup(r["speedup"][p]) for p in COMPILED)) for r in rows]))
    out.append("")
    out.append("† from `examples/` (the program's `@jit` function, unmodified). "
               "*(best runs)*: the same ratio from each peer's fastest sample, a check on "
               "noise (medians are the reported figure). "
               "“vs NumPy” columns are speed-ups (NumPy time / peer time). "
               "— : the peer could not run the kernel (see *Failures and n/a*).")
    out.append("")
    out.append("### Geometric means per family")
    out.append("")
    out.append(table(
        ["family", "kernels", "npxla / jax", "npxla vs NumPy", "jax vs NumPy",
         "Numba vs NumPy", "torch vs NumPy", "npxla / Numba", "npxla / torch",
         "first call npxla / jax"],
        [(f"**{f['family']}**" if f["family"] == "all" else f["family"], f["kernels"],
          fmt_x(f["npxla/jax"]), fmt_speedup(f["speedup"]["npxla"]),
          fmt_speedup(f["speedup"]["jax"]),
          fmt_speedup(f["speedup"]["numba"]) + f" ({f['numba_count']})",
          fmt_speedup(f["speedup"]["torch"]) + f" ({f['torch_count']})",
          fmt_x(f["npxla/numba"]), fmt_x(f["npxla/torch"]), fmt_x(f["first npxla/jax"]))
         for f in family_rows(rows)]))
    out.append("")
    out.append("Numba and torch columns are over the kernels each accepts (count in "
               "brackets).")
    out.append("")
    out.append(f"![speed-up vs NumPy and scaling sweep]({png_name})")
    out.append("")
    out.append("### First call (empty caches: conversion + staging + compile + one run)")
    out.append("")
    out.append(table(
        ["kernel", "NumPy", "npxla", "jax.jit", "Numba", "torch.compile", "npxla / jax",
         "npxla first − steady"],
        [(f"`{r['name']}`", fmt_t(r["first"].get("numpy")), fmt_t(r["first"].get("npxla")),
          fmt_t(r["first"].get("jax")), fmt_t(r["first"].get("numba")),
          fmt_t(r["first"].get("torch")), fmt_x(r["first npxla/jax"]),
          fmt_t(r["first"]["npxla"] - r["t"]["npxla"])
          if r["first"].get("npxla") and r["t"]["npxla"] else "—") for r in rows]))
    out.append("")
    if results.get("dispatch"):
        out.append("### Dispatch overhead (4-element float64 arrays, µs per call)")
        out.append("")
        out.append(table(
            ["probe", "NumPy", "npxla", "jax.jit → np.asarray", "jax.jit raw", "Numba",
             "npxla / jax (NumPy out)", "npxla / jax raw", "(best runs)"],
            [(f"`{d['name']}`: {d['doc']}",
              *(fmt_x(d["us"].get(p), 1) for p in ("numpy", "npxla", "jax", "jax_raw", "numba")),
              fmt_x(ratio(d["us"].get("npxla"), d["us"].get("jax"))),
              fmt_x(ratio(d["us"].get("npxla"), d["us"].get("jax_raw"))),
              fmt_x(ratio(d.get("us_min", {}).get("npxla"), d.get("us_min", {}).get("jax"))))
             for d in results["dispatch"]]))
        out.append("")
        out.append("Every peer gets the same NumPy arguments. *jax.jit raw* returns the "
                   "`jax.Array` (after `block_until_ready`); the other column converts it "
                   "with `np.asarray`, the contract npxla has.")
        out.append("")
    if results.get("coldstart"):
        out.append("### Fresh process: cold vs warm persistent cache")
        out.append("")
        rows_cs = []
        for c in results["coldstart"]:
            if "error" in c:
                rows_cs.append((f"`{c['kernel']}`", c["peer"], "error", c["error"],
                                *[""] * 6))
                continue
            over = (f"{fmt_t(c['cold_overhead_s'])} → {fmt_t(c['warm_overhead_s'])} "
                    f"({c['warm_overhead_s'] / c['cold_overhead_s']:.0%})"
                    if c.get("cold_overhead_s") else "—")
            rows_cs.append((f"`{c['kernel']}`", c["peer"], fmt_t(c["cold_first_call_s"]),
                            fmt_t(c["warm_first_call_s"]),
                            f"{c['warm_first_call_s'] / c['cold_first_call_s']:.0%}",
                            fmt_t(c.get("warm_second_call_s")), over,
                            fmt_t(c["warm_import_s"]), fmt_t(c["cold_total_s"]),
                            fmt_t(c["warm_total_s"])))
        out.append(table(["kernel", "peer", "first call, cold", "first call, warm",
                          "warm / cold", "the run alone", "first call − run: cold → warm",
                          "imports", "to first result, cold", "to first result, warm"],
                         rows_cs, text_columns=2))
        out.append("")
        out.append("Each row: medians over fresh cache directories, each used by one cold "
                   "process (empty cache) then one warm process. *The run alone*: the "
                   "second call in the warm process; *first call − run*: what compiling "
                   "(cold) or loading from the cache (warm) adds. *imports*: `import jax` "
                   "and the compiler's modules (npxla would otherwise import JAX inside its "
                   "first call). *To first result*: from interpreter start, inputs "
                   "included. JAX uses its persistent compilation cache with every entry "
                   "kept.")
        out.append("")
    if results.get("sweep"):
        out.append("### Scaling sweep (median time per call)")
        out.append("")
        srows = []
        for s in results["sweep"]:
            t = s["steady"]
            srows.append((f"`{s['name']}`", f"{s['n']:,}", *(fmt_t(t.get(p)) for p in PEERS),
                          fmt_x(ratio(t.get("npxla"), t.get("jax"))),
                          fmt_speedup(ratio(t.get("numpy"), t.get("npxla")))))
        out.append(table(["kernel", "n", "NumPy", "npxla", "jax.jit", "Numba",
                          "torch.compile", "npxla / jax", "npxla vs NumPy"], srows))
        out.append("")
    bad = [(r["name"], p, s) for r in rows for p, s in r["status"].items() if s != "ok"]
    bad += [(f"dispatch {d['name']}", p, s) for d in results.get("dispatch", [])
            for p, s in d["status"].items() if s != "ok"]
    if bad:
        out.append("### Failures and n/a")
        out.append("")
        out.append(table(["kernel", "peer", "reason"],
                         [(f"`{k}`", p, s.replace("|", "\\|").replace("\n", " "))
                          for k, p, s in bad], text_columns=3))
        out.append("")
    return "\n".join(out)


def write_doc(path, generated):
    path = Path(path)
    text = path.read_text() if path.exists() else f"# Benchmarks\n\n{BEGIN}\n{END}\n"
    if BEGIN not in text or END not in text:
        text = text.rstrip() + f"\n\n{BEGIN}\n{END}\n"
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    path.write_text(f"{head}{BEGIN}\n{generated}\n{END}{tail}")


# --- the plot ----------------------------------------------------------------------------

COLOURS = {"numpy": "#888888", "npxla": "#1f77b4", "jax": "#d62728", "numba": "#2ca02c",
           "torch": "#ff7f0e"}


def plot(results, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = kernel_rows(results)
    sweep = results.get("sweep", [])
    names = list(dict.fromkeys(s["name"] for s in sweep))
    fig = plt.figure(figsize=(15, 10 if names else 6), constrained_layout=True)
    grid = fig.add_gridspec(2 if names else 1, max(len(names), 1),
                            height_ratios=[1.4, 1] if names else [1])
    ax = fig.add_subplot(grid[0, :])
    width = 0.2
    xs = range(len(rows))
    for i, peer in enumerate(COMPILED):
        vals = [r["speedup"][peer] or 0 for r in rows]
        ax.bar([x + (i - 1.5) * width for x in xs], vals, width,
               label={"jax": "jax.jit (hand port)", "torch": "torch.compile"}.get(peer, peer),
               color=COLOURS[peer])
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log")
    ax.set_ylabel("speed-up vs NumPy (log)")
    ax.set_xticks(list(xs))
    ax.set_xticklabels([f"{r['name']}\n({r['family']})" for r in rows], rotation=60,
                       ha="right", fontsize=8)
    ax.set_xlim(-0.6, len(rows) - 0.4)
    ax.legend(loc="upper left")
    meta = results.get("meta", {})
    ax.set_title(f"Steady-state speed-up vs NumPy (median per call; missing bar = peer "
                 f"cannot run it) — {meta.get('cpu', '')}, {meta.get('cores', '')}")
    for j, name in enumerate(names):
        sx = fig.add_subplot(grid[1, j])
        pts = [s for s in sweep if s["name"] == name]
        for peer in PEERS:
            ns = [s["n"] for s in pts if s["steady"].get(peer)]
            ts = [s["steady"][peer] for s in pts if s["steady"].get(peer)]
            if ns:
                sx.plot(ns, ts, "o-", label=peer, color=COLOURS[peer])
        sx.set_xscale("log")
        sx.set_yscale("log")
        sx.set_xlabel("n (elements)")
        sx.set_ylabel("time per call (s)")
        sx.set_title(f"scaling: {name}")
        sx.grid(True, which="both", alpha=0.3)
        if j == 0:
            sx.legend()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results")
    parser.add_argument("--doc", help="Markdown file to update (default: print)")
    parser.add_argument("--png", help="write the plot here")
    ns = parser.parse_args(argv)
    results = json.loads(Path(ns.results).read_text())
    md = markdown(results, Path(ns.png).name if ns.png else "benchmarks.png")
    if ns.doc:
        write_doc(ns.doc, md)
    else:
        print(md)
    if ns.png:
        plot(results, ns.png)


if __name__ == "__main__":
    main()
