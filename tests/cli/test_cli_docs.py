"""The shell transcripts of every document (README.md, docs/*.md) and the `npxla` command
lines of README.md, run: a doc that no longer matches what the commands print fails here.
(The other blocks of the documents are checked by tests/docs.)

A transcript is a fenced block whose first line starts with `$ `. In it, `$ cat FILE`
followed by text creates FILE (in one scratch directory per document, which is shown as
/tmp/demo), `$ npxla ...` runs the command line in-process (`| head -N` is honoured)
and its output (standard output, then standard error) must be the lines that follow, a
line `...` standing for any number of lines; `$ echo $?` checks the previous command's
exit status. A command with environment assignments (`$ NPXLA_DEVICE=cpu:1 npxla
devices`) runs in a process of its own with them (and `JAX_PLATFORMS=cpu` unless it sets
that, so that its output does not depend on the machine). Other commands whose output
depends on the machine (`--version`, `devices`) are run and must succeed; other
programs (`pre-commit`) are not run.

`python tests/cli/test_cli_docs.py docs/cli.md` prints what each command prints today.
"""
import contextlib
import glob
import io
import os
import re
import shlex
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHOWN_DIR = "/tmp/demo"
MACHINE_DEPENDENT = (("--version",), ("devices",))
_ENV_ASSIGN = re.compile(r"^[A-Z_][A-Z0-9_]*=")


def transcripts(text):
    """[[(command, [expected lines])]] of every `$ ` block of a markdown text."""
    blocks, lines, inside = [], [], False
    for line in text.splitlines():
        if line.startswith("```"):
            if inside and lines and lines[0].startswith("$ "):
                block = []
                for ln in lines:
                    if ln.startswith("$ "):
                        block.append((ln[2:], []))
                    else:
                        block[-1][1].append(ln)
                blocks.append(block)
            inside, lines = not inside, []
        elif inside:
            lines.append(line)
    return blocks


def transcript_docs():
    """The documents (README.md, docs/*.md) that hold a transcript."""
    docs = ["README.md"] + sorted(os.path.relpath(p, ROOT)
                                  for p in glob.glob(os.path.join(ROOT, "docs", "*.md")))
    found = []
    for doc in docs:
        with open(os.path.join(ROOT, doc), encoding="utf-8") as fh:
            if transcripts(fh.read()):
                found.append(doc)
    return found


def run_npxla_process(argv, cwd, env):
    """(exit status, output lines) of `npxla ARGV` in a process of its own, with `env`
    added to the environment."""
    full = {**os.environ, "JAX_PLATFORMS": "cpu", **env}
    out = subprocess.run([sys.executable, "-m", "npxla", *argv], capture_output=True,
                         text=True, cwd=str(cwd), env=full, timeout=300)
    lines = out.stdout.splitlines() + out.stderr.splitlines()
    return out.returncode, [ln.replace(str(cwd), SHOWN_DIR).rstrip() for ln in lines]


def run_npxla(argv, cwd):
    """(exit status, output lines) of `npxla ARGV` run in-process in `cwd`."""
    from npxla.runtime.driver.cli import main
    head = None
    if "|" in argv:
        k = argv.index("|")
        assert argv[k + 1:k + 2] == ["head"], argv
        head = int(argv[k + 2].lstrip("-n")) if len(argv) > k + 2 else 10
        argv = argv[:k]
    out, err = io.StringIO(), io.StringIO()
    old = os.getcwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
    finally:
        os.chdir(old)
    lines = out.getvalue().splitlines()
    if head is not None:
        lines = lines[:head]
    lines += err.getvalue().splitlines()
    return code, [ln.replace(str(cwd), SHOWN_DIR).rstrip() for ln in lines]


def matches(expected, actual):
    """Whether `actual` is `expected` with each `...` line standing for any lines."""
    parts, part = [], []
    for line in expected:
        if line.strip() == "...":
            parts.append(part)
            part = []
        else:
            part.append(line.rstrip())
    parts.append(part)
    if len(parts) == 1:
        return parts[0] == actual
    if actual[:len(parts[0])] != parts[0]:
        return False
    pos = len(parts[0])
    for middle in parts[1:-1]:
        for start in range(pos, len(actual) - len(middle) + 1):
            if actual[start:start + len(middle)] == middle:
                pos = start + len(middle)
                break
        else:
            return False
    last = parts[-1]
    return len(actual) - pos >= len(last) and (not last or actual[-len(last):] == last)


def play(doc, cwd, report=None):
    """Run every transcript of `doc` in `cwd`; the list of mismatches (or, with `report`,
    print what each command gives)."""
    with open(os.path.join(ROOT, doc), encoding="utf-8") as fh:
        blocks = transcripts(fh.read())
    failures, last_code, ran = [], None, 0
    for block in blocks:
        for command, expected in block:
            words = shlex.split(command)
            env = {}
            while words and _ENV_ASSIGN.match(words[0]):
                name, _, value = words.pop(0).partition("=")
                env[name] = value
            if words[:1] == ["cat"]:
                with open(os.path.join(cwd, words[1]), "w", encoding="utf-8") as fh:
                    fh.write("\n".join(expected) + "\n")
                continue
            if words == ["echo", "$?"]:
                if [str(last_code)] != expected:
                    failures.append(f"{doc}: exit status {last_code}, shown {expected}")
                continue
            if words[:1] != ["npxla"]:
                continue
            ran += 1
            if env:
                last_code, actual = run_npxla_process(words[1:], cwd, env)
            else:
                last_code, actual = run_npxla(words[1:], cwd)
            if report is not None:
                report(f"$ {command}\n" + "\n".join(actual) + f"\n(exit {last_code})")
            if not env and any(tuple(words[1:1 + len(m)]) == m for m in MACHINE_DEPENDENT):
                if last_code != 0:
                    failures.append(f"{doc}: `{command}` exited {last_code}")
                continue
            if not matches(expected, actual):
                failures.append(f"{doc}: `{command}` printed:\n" + "\n".join(actual)
                                + "\n--- the doc shows:\n" + "\n".join(expected))
    return failures, ran


def test_every_document_with_transcripts_is_played():
    docs = transcript_docs()
    assert {"docs/cli.md", "docs/devices.md"} <= set(docs), docs


@pytest.mark.parametrize("doc", transcript_docs())
def test_transcripts_are_what_the_commands_print(tmp_path, doc):
    failures, ran = play(doc, tmp_path)
    assert ran >= (15 if doc == "docs/cli.md" else 1)
    assert not failures, "\n\n".join(failures)


def _readme_blocks(lang, doc="README.md"):
    with open(os.path.join(ROOT, doc), encoding="utf-8") as fh:
        text = fh.read()
    return re.findall(rf"```{lang}\n(.*?)```", text, re.S)


def test_readme_command_lines_run(tmp_path):
    """The README's `npxla ...` lines, in the directory of docs/cli.md's files (its
    model.py) and with the exit status each comment promises (0 unless it says 1)."""
    play("docs/cli.md", tmp_path)          # creates model.py, staged.py, ...
    commands = [ln.split("#")[0].strip() for block in _readme_blocks("bash")
                for ln in block.splitlines() if ln.startswith("npxla ")]
    assert len(commands) >= 4
    for command in commands:
        code, actual = run_npxla(shlex.split(command)[1:], tmp_path)
        assert code == 0, f"`{command}` exited {code}:\n" + "\n".join(actual)


if __name__ == "__main__":
    import tempfile
    for doc in sys.argv[1:] or ["docs/cli.md"]:
        with tempfile.TemporaryDirectory() as scratch:
            problems, _ = play(doc, scratch, report=print)
            print(f"== {doc}: {len(problems)} mismatches")
