"""A test whose xdist worker dies (a signal, not a failure) runs once more on a fresh
worker, and the worker's fault trace is printed at the end of the run.

Why: in three of four CI-like runs with XLA's default (fusion) code generators, a
worker died of a segmentation fault inside XLA's compiler, each time in a different
test, and none of those tests crashed when run again. Once, the worker that lived on
then failed three compiles in a row with XLA's "Failed to materialize symbols" (its JIT
linker's state broken, not the programs: they compile in a fresh process). Such a
worker ends itself (`end_broken_worker`), so its test reruns on a fresh one too. A
crash that repeats still fails the run. Each worker writes Python's fault trace
(`faulthandler`) to its own file, so the native crash shows where it happened instead
of "worker crashed".
"""
from __future__ import annotations

import faulthandler
import glob
import os
import tempfile

_DIR_VARIABLE = "NPXLA_TEST_FAULT_DIR"
_RERUNS_ALLOWED = 1
_reruns: dict = {}
_crashes: list = []
_fault_file = None


def configure(config):
    """In the controller: a folder for the workers' fault files (they inherit it)."""
    if os.environ.get("PYTEST_XDIST_WORKER") is None and \
            config.pluginmanager.hasplugin("xdist") and _DIR_VARIABLE not in os.environ:
        os.environ[_DIR_VARIABLE] = tempfile.mkdtemp(prefix="npxla-faults-")


def session_start():
    """In a worker: its fault file (after pytest's own faulthandler set stderr)."""
    global _fault_file
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker is None:
        return
    folder = os.environ.get(_DIR_VARIABLE)
    if folder and os.path.isdir(folder):
        _fault_file = open(os.path.join(folder, f"{worker}-{os.getpid()}.txt"), "w")
        faulthandler.enable(file=_fault_file, all_threads=True)


def handle_crash(crashitem, report, sched):
    worker = getattr(getattr(report, "node", None), "gateway", None)
    trace = _fault_trace(getattr(worker, "id", None))
    _crashes.append((crashitem, trace))
    if _reruns.get(crashitem, 0) < _RERUNS_ALLOWED:
        _reruns[crashitem] = _reruns.get(crashitem, 0) + 1
        sched.mark_test_pending(crashitem)
        report.outcome = "rerun"
        return True
    return None


def _fault_trace(worker_id):
    folder = os.environ.get(_DIR_VARIABLE)
    if not folder or worker_id is None:
        return ""
    files = sorted(glob.glob(os.path.join(folder, f"{worker_id}-*.txt")),
                   key=os.path.getmtime)
    for path in reversed(files):
        with open(path) as f:
            text = f.read()
        if text.strip():
            return text
    return ""


# XLA errors after which a worker's compiler is broken for the rest of its life
_BROKEN_XLA = ("Failed to materialize symbols",)


def end_broken_worker(call):
    """In a worker: a test that failed with one of `_BROKEN_XLA` ends the worker (as a
    crash does), its reason written to the fault file for the summary."""
    if _fault_file is None or call.excinfo is None:
        return
    text = str(call.excinfo.value)
    if any(marker in text for marker in _BROKEN_XLA):
        _fault_file.write(f"XLA's compiler broken in this worker: {text.splitlines()[0]}\n")
        _fault_file.flush()
        os._exit(70)


def report_status(report):
    if getattr(report, "outcome", None) == "rerun":
        return "rerun", "R", ("RERUN", {"yellow": True})
    return None


def summary(terminalreporter):
    if not _crashes:
        return
    terminalreporter.section("worker crashes")
    for nodeid, trace in _crashes:
        rerun = "rerun on a fresh worker" if _reruns.get(nodeid) else "not rerun"
        terminalreporter.write_line(f"{nodeid}: the worker died ({rerun})")
        for line in trace.strip().splitlines()[:30]:     # innermost frames first
            terminalreporter.write_line("    " + line)
