"""Differential fuzzing of npxla: random legacy-NumPy programs run under NumPy and `jit`.

`gen` writes programs as source text, `runner` runs and classifies them, `shrink`
reduces a failing one, `regress` keeps shrunk failures as replayable files, `known`
lists failure families being fixed (switched off in the default run). `python -m
tests.fuzz --count N --seed S` is the command-line entry.
"""
import os
import sys

# `differential` (the shared comparison helper) lives in tests/, which pytest's conftest
# puts on sys.path; `python -m tests.fuzz` does not.
_TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("NPXLA_CACHE_DIR", "off")
