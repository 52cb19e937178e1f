"""Logistic regression trained with Adam, recording its loss history in the caller's list.

Legacy training code reports progress through containers the caller owns: the jitted
`fit(X, y, w, history, summary)` appends the loss of every iteration to `history`
(`history.append(loss)`), writes summary values into the dict `summary`
(`summary["best_loss"] = min(history)`, ...) and updates the weights `w` in place
(`w -= step`). npxla records those mutations while staging and replays them after each
run with the run's values, so the caller's list, dict and array end up exactly as NumPy
leaves them; `main()` checks all three against a plain-NumPy run.

Performance, honestly: a mutation of an outside container may not sit inside staged
control flow, so the training loop (a fixed number of iterations) runs as Python while
staging, i.e. it is unrolled: the first call compiles a program that grows with
`n_iter` (2-3 s for 20 iterations on a CPU; cached on disk for the next run). A later
call with a fresh list and dict has the same signature and is served from the cache
(except that for a large X that is not 64-byte aligned npxla compiles a second,
copy-free variant on the second call, `runtime/xla/superset.py`: a one-off second
compile of the unrolled loop). A call that passes the same, now longer, list and the
filled dict (continuing training) has a new signature (a list's length and a dict's
keys are part of it) and compiles again. A data-dependent stop (`if loss < tol: break`)
around `history.append` is refused with a located error: the append would run once
while staging, not once per iteration.

Run: python examples/loss_history.py [--size small|medium|large]
"""
import argparse
import copy
import time

import numpy as np

from _harness import SIZES, Example, compare
from npxla import jit


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


@jit
def fit(X, y, w, history, summary, lr=0.05, n_iter=20, beta1=0.9, beta2=0.999, eps=1e-8):
    n = X.shape[0]
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    for t in range(1, n_iter + 1):
        p = sigmoid(X @ w)
        loss = -np.mean(y * np.log(p) + (1.0 - y) * np.log1p(-p))
        history.append(loss)
        g = X.T @ (p - y) / n
        m = beta1 * m + (1.0 - beta1) * g
        v = beta2 * v + (1.0 - beta2) * g * g
        w -= lr * (m / (1.0 - beta1 ** t)) / (np.sqrt(v / (1.0 - beta2 ** t)) + eps)
    summary["final_loss"] = history[-1]
    summary["best_loss"] = min(history)
    summary["accuracy"] = np.mean((X @ w > 0) == (y > 0.5))
    summary["iterations"] = len(history)
    return w


def make_inputs(n, rng):
    d = 8
    X = np.hstack([rng.normal(size=(n, d - 1)), np.ones((n, 1))])     # with a bias column
    true_w = rng.normal(size=d)
    y = (rng.random(n) < sigmoid(X @ true_w)).astype(np.float64)
    return X, y, np.zeros(d), [], {}


EXAMPLE = Example(fit, make_inputs, sizes={"small": 200, "medium": 20_000, "large": 500_000},
                  rtol=1e-9, atol=1e-12,
                  description="Adam, 20 iterations, loss history in the caller's list")


def _same_containers(want, got, rtol=1e-9, atol=1e-12):
    """compare() for the history list and summary dict, with the Python types of their
    entries (NumPy's float64 scalars stay float64, len() stays an int)."""
    if type(want) is dict:
        if list(want) != list(got):
            return False, f"keys {list(got)}, expected {list(want)}"
        want, got = list(want.values()), list(got.values())
    if len(want) != len(got):
        return False, f"{len(got)} entries, expected {len(want)}"
    for i, (a, b) in enumerate(zip(want, got)):
        if type(a) is not type(b):
            return False, f"entry {i}: {type(b).__name__}, expected {type(a).__name__}"
    c = compare(tuple(want), tuple(got), rtol, atol)
    return c.ok, c.detail


def train(X, y, w0, calls=("fresh", "fresh", "fresh", "continue")):
    """NumPy and npxla on twin (w, history, summary) objects, one training call per entry
    of `calls`: "fresh" starts from `w0` with a new list and dict, "continue" goes on
    from the previous call's weights with the same list and dict (the losses are
    appended after the earlier ones). Returns {"numpy": [state per call], "npxla":
    [state per call], "times": [npxla seconds per call]}; a state is (w, history,
    summary) after that call."""
    out = {"numpy": [], "npxla": [], "times": []}
    for label, fn in (("numpy", fit.__wrapped__), ("npxla", fit)):
        for how in calls:
            if how == "fresh":
                w, history, summary = w0.copy(), [], {}
            t0 = time.perf_counter()
            got = fn(X, y, w, history, summary)
            if label == "npxla":
                out["times"].append(time.perf_counter() - t0)
            if got is not w:
                raise AssertionError(f"{label}: fit returned a new array, not w")
            out[label].append((w.copy(), list(history), dict(summary)))
    return out


def check_states(want, got):
    """Raise unless npxla's (w, history, summary) equals NumPy's."""
    c = compare(want[0], got[0], rtol=1e-9, atol=1e-12)
    if not c.ok:
        raise AssertionError(f"weights differ: {c.detail}")
    for name, a, b in (("history", want[1], got[1]), ("summary", want[2], got[2])):
        ok, detail = _same_containers(a, b)
        if not ok:
            raise AssertionError(f"{name} differs: {detail}")
    hist = np.array(got[1]) - np.array(want[1])
    return max(float(np.max(np.abs(got[0] - want[0]))), float(np.max(np.abs(hist))))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", choices=SIZES, default="small")
    ns = parser.parse_args(argv)
    n = EXAMPLE.sizes[ns.size]
    X, y, w0, _, _ = make_inputs(n, np.random.default_rng(0))
    print(f"loss_history ({ns.size}, n={n}): {EXAMPLE.description}")
    r = train(X, y, w0)
    err = max(check_states(a, b) for a, b in zip(r["numpy"], r["npxla"]))
    w, history, summary = r["npxla"][-1]
    n_iter = len(r["npxla"][0][1])
    print(f"  check : after each of {len(r['times'])} calls, w, history and summary match "
          f"NumPy (max |err| {err:.2e})")
    print(f"  loss  : {history[0]:.4f} -> {history[n_iter - 1]:.4f} (first {n_iter} "
          f"iterations) -> {history[-1]:.4f} (continued)")
    print("  summary:", {k: (round(float(v), 4) if k != "iterations" else v)
                         for k, v in summary.items()})
    t = [f"{s * 1e3:9.2f} ms" for s in r["times"]]
    print(f"  npxla : first call {t[0]} (stages the unrolled loop and compiles, or loads "
          f"from the disk cache)")
    print(f"          again, new list and dict {t[1]}, {t[2]} (the same signature; for a large "
          f"unaligned X npxla compiles a second, copy-free variant on the second call)")
    print(f"          continued, same list and dict {t[3]} (a longer list: a new "
          f"signature, compiled)")
    t_np = []
    for _ in range(3):
        args = copy.deepcopy((X, y, w0, [], {}))
        t0 = time.perf_counter()
        fit.__wrapped__(*args)
        t_np.append(time.perf_counter() - t0)
    print(f"  NumPy : {min(t_np) * 1e3:9.2f} ms per call (best of 3)")
    return {"runs": r, "numpy_seconds": min(t_np)}


if __name__ == "__main__":
    main()
