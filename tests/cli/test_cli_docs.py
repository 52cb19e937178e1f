"""The shell transcripts of docs/cli.md and the examples of README.md, run: a doc that no
longer matches what the commands print fails here.

A transcript is a fenced block whose first line starts with `$ `. In it, `$ cat FILE`
followed by text creates FILE (in one scratch directory per document, which is shown as
/tmp/demo), `$ npxla ...` runs the command line in-process (`| head -N` is honoured)
and its output (standard output, then standard error) must be the lines that follow, a
line `...` standing for any number of lines; `$ echo $?` checks the previous command's
exit status. Commands whose output depends on the machine (`--version`, `devices`) are
run and must succeed; other programs (`pre-commit`) are not run.

`python tests/cli/test_cli_docs.py docs/cli.md` prints what each command prints today.
"""
import contextlib
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
            last_code, actual = run_npxla(words[1:], cwd)
            if report is not None:
                report(f"$ {command}\n" + "\n".join(actual) + f"\n(exit {last_code})")
            if any(tuple(words[1:1 + len(m)]) == m for m in MACHINE_DEPENDENT):
                if last_code != 0:
                    failures.append(f"{doc}: `{command}` exited {last_code}")
                continue
            if not matches(expected, actual):
                failures.append(f"{doc}: `{command}` printed:\n" + "\n".join(actual)
                                + "\n--- the doc shows:\n" + "\n".join(expected))
    return failures, ran


def test_cli_md_transcripts_are_what_the_commands_print(tmp_path):
    failures, ran = play("docs/cli.md", tmp_path)
    assert ran >= 15
    assert not failures, "\n\n".join(failures)


def _readme_blocks(lang, doc="README.md"):
    with open(os.path.join(ROOT, doc), encoding="utf-8") as fh:
        text = fh.read()
    return re.findall(rf"```{lang}\n(.*?)```", text, re.S)


@pytest.mark.parametrize("doc", ["README.md", "docs/api.md"])
def test_python_examples_run(tmp_path, doc):
    """The Python blocks of a doc, run in order as one script (jit needs a file)."""
    script = tmp_path / "doc_example.py"
    body = "\n".join(_readme_blocks("python", doc))
    script.write_text(body + "\nprint('readme example done')\n")
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         cwd=str(tmp_path), env={**os.environ, "NPXLA_CACHE_DIR": "off"},
                         timeout=600)
    assert out.returncode == 0, out.stderr
    assert out.stdout.rstrip().endswith("readme example done")
    assert "Traceback" not in out.stderr, out.stderr


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
