"""Differential fuzzing of npxla: random legacy-NumPy programs run under NumPy and `jit`.

`gen` writes programs as source text, `runner` runs and classifies them, `shrink`
reduces a failing one, `regress` keeps shrunk failures as replayable files, `known`
lists failure families being fixed (switched off in the default run); `gen_bounded`
is the family of arrays whose length is known only at run time (switch `bounded`);
`gen_families` holds the program families of issue 35 item 6 (bit-exact float
programs, float-to-int casts, array defaults, argument layouts, private attributes),
each about 5% of the seeds (`--family NAME` makes a campaign of one).
`python -m tests.fuzz --count N --seed S` is the command-line entry (`--isolate` runs
each program in a child process, so a native crash is reported with its program).
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
