"""Random structured programs (if/elif/else, for/while with else, try/except/finally,
break, continue, return, raise, and/or/not, chained comparisons, ternaries) behave
identically as written and converted (run against the pure-Python fake runtime)."""
import atexit
import importlib.util
import os
import random
import shutil
import tempfile

import pytest
from hypothesis import given, settings, strategies as st

import cf_fake_runtime as fake

_DIR = tempfile.mkdtemp(prefix="npxla-cf-random-")
atexit.register(shutil.rmtree, _DIR, ignore_errors=True)
VARS = ("x", "y", "z")


class _Generator:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.lines = []
        self.counter = 0

    def var(self):
        return self.rng.choice(VARS + ("a", "b"))

    def pick(self, table):
        """One of the (weight, template) entries, its fields filled in."""
        r = self.rng.random() * sum(w for w, _ in table)
        for weight, template in table:
            r -= weight
            if r <= 0:
                break
        return template.format(v=self.var(), w=self.var(), k=self.rng.randint(-1, 4),
                               c=self.cond() if "{c}" in template else "")

    def expr(self):
        return self.pick([(3, "{v} + {k}"), (2, "({v} * {k}) % 7"),
                          (1, "({v} + 0 if {c} else {w} - 0)"), (4, "{v} - {w}")])

    def cond(self):
        return self.pick([(35, "{v} > {k}"), (15, "{v} % 2 == 0 and {w} < {k}"),
                          (10, "({v} == {k} or not {w} > 1)"), (10, "{k} < {v} <= {w}"),
                          (10, "LOG.append('{v}') or {v} != {k}"), (20, "{v} < {w}")])

    def emit(self, depth, text):
        self.lines.append("    " * depth + text)

    def block(self, depth, in_loop):
        for _ in range(self.rng.randint(1, 3)):
            self.statement(depth, in_loop)

    def statement(self, depth, in_loop):
        r = self.rng.random()
        nested = depth < 4
        if nested and r < 0.2:
            self.emit(depth, f"if {self.cond()}:")
            self.block(depth + 1, in_loop)
            while self.rng.random() < 0.3:
                self.emit(depth, f"elif {self.cond()}:")
                self.block(depth + 1, in_loop)
            if self.rng.random() < 0.5:
                self.emit(depth, "else:")
                self.block(depth + 1, in_loop)
        elif nested and r < 0.3:
            self.counter += 1
            target = self.rng.choice([f"i{self.counter}", f"(i{self.counter}, j{self.counter})"])
            iterable = (f"range({self.rng.randint(0, 4)})" if "," not in target else
                        f"enumerate(range({self.rng.randint(0, 4)}))")
            self.emit(depth, f"for {target} in {iterable}:")
            self.emit(depth + 1, f"x = x + i{self.counter}")
            self.block(depth + 1, True)
            self.loop_else(depth, in_loop)
        elif nested and r < 0.38:
            self.counter += 1
            w = f"w{self.counter}"
            self.emit(depth, f"{w} = 0")
            self.emit(depth, f"while {w} < {self.rng.randint(0, 4)} and ({self.cond()}):")
            self.emit(depth + 1, f"{w} += 1")
            self.block(depth + 1, True)
            self.loop_else(depth, in_loop)
        elif nested and r < 0.42:
            self.emit(depth, "try:")
            self.block(depth + 1, in_loop)
            self.emit(depth, "except ValueError:")
            self.block(depth + 1, in_loop)
            if self.rng.random() < 0.3:
                self.emit(depth, "finally:")
                self.emit(depth + 1, "LOG.append('finally')")
        elif in_loop and r < 0.48:
            self.emit(depth, "break")
        elif in_loop and r < 0.55:
            self.emit(depth, "continue")
        elif r < 0.6:
            self.emit(depth, f"return {self.expr()}" if self.rng.random() < 0.8 else "return")
        elif r < 0.63:
            self.emit(depth, "raise ValueError('boom')")
        elif r < 0.75:
            self.emit(depth, f"LOG.append({self.expr()})")
        else:
            self.emit(depth, f"{self.rng.choice(VARS)} = {self.expr()}")

    def loop_else(self, depth, in_loop):
        if self.rng.random() < 0.3:
            self.emit(depth, "else:")
            self.block(depth + 1, in_loop)

    def program(self, name):
        self.lines = [f"def {name}(a, b):", "    x = a"]
        if self.rng.random() < 0.7:
            self.lines.append("    y = b")
        self.block(1, False)
        if self.rng.random() < 0.7:
            self.emit(1, "return x, y, z" if self.rng.random() < 0.3 else "return x")
        return "\n".join(self.lines) + "\n"


def _load(source, name):
    path = os.path.join(_DIR, name + ".py")
    with open(path, "w") as fh:
        fh.write("LOG = []\n\n\n" + source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _outcome(module, fn, *args):
    module.LOG.clear()
    try:
        value = fn(*args)
    except NameError:
        return "NameError", list(module.LOG)
    except ValueError as e:
        return ("ValueError", str(e)), list(module.LOG)
    if isinstance(value, fake.Undefined) or (
            isinstance(value, tuple) and any(isinstance(v, fake.Undefined) for v in value)):
        return "NameError", list(module.LOG)
    return value, list(module.LOG)


def _matches_python(seed):
    name = f"prog_{seed}"
    source = _Generator(seed).program(name)
    module = _load(source, name)
    original = getattr(module, name)
    converted = fake.convert(original)
    for args in [(0, 0), (1, 3), (3, 1), (2, 2), (-1, 4), (5, -2)]:
        assert _outcome(module, converted, *args) == _outcome(module, original, *args), (
            args, source)


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2 ** 32 - 1))
def test_random_program_matches_python(seed):
    _matches_python(seed)


@pytest.mark.slow     # the long run of the same property (tests/matrix.py)
@settings(max_examples=400, deadline=None)
@given(st.integers(0, 2 ** 32 - 1))
def test_random_program_matches_python_long(seed):
    _matches_python(seed)
