"""Every fenced block of README.md and docs/*.md, found, classified and checked.

A block is one of (`kind`, decided by its language and an optional marker, an HTML
comment `<!-- doc-test: ... -->` on the line right before its fence):

python       run. The python blocks of one document are written, at their own line
             numbers, into one file in a scratch directory (`jit` reads the source of
             the functions it compiles) and run statement by statement, in order, in
             one namespace, in a process of their own (`run_python`). Shown results are
             checked:
               `expr  # -> REPR`        repr(expr) must be REPR; for `print(...)` what it
                                        printed. Whitespace is not compared, a shown
                                        number matches what rounds to it (`0.667`), and
                                        `...` stands for anything. After REPR, `  # ...`
                                        is a comment again.
               `stmt  # raises NAME`    the statement must raise an exception of class
                                        NAME (or a subclass); `# raises NAME: TEXT` also
                                        wants TEXT in its message.
             Any other statement must not raise. A trailing comment that looks like a
             result (`f(x)  # 30`, `# array([...])`) without `->` is an error, so a
             result is never shown unchecked.
output       `<!-- doc-test: output -->`: what the python block right before it printed
             (stdout and stderr, warnings and log records included), then the text of
             the exception its `# raises` statement raised (`str(e)`, prefixed with
             the class name unless the message starts with a location). Compared as
             above; a location in the document's code reads `example.py:LINE:COL`, LINE
             counted from the first line of the block that holds it (`file.py` stands
             for any file), and
             a duration (`0.051 s`, `26 ms`) matches any duration.
to_source    `<!-- doc-test: to_source NAME -->`: `npxla.to_source(NAME)` of a function
             of the namespace. `<!-- doc-test: to_source side-by-side -->`: a python
             block in two columns, the source on the left (run like a python block) and
             its conversion on the right. `...` elides code; whitespace is not compared.
lint-example the `Bad:` / `Good:` examples of docs/lint-rules.md (generated from the
             rule catalogue by transpiler/lint/docs.py: a `### NPXnnn` heading, then
             `Bad:` and `Good:` each followed by a python block): `lint_source` must flag
             the bad one with its heading's code and report nothing for the good one.
shell        bash/sh blocks and unlabeled blocks of command lines: each command is
             checked without running it (`npxla ...` parses with npxla's own argument
             parser, `python -m M` / `python FILE` exist and know every `--option`
             given, `pip install` names extras that setup.cfg declares, `NPXLA_*`
             variables exist in the code).
usage        an unlabeled `npxla COMMAND [...]` synopsis: every option it shows exists.
yaml/toml/json  parsed.
text         any other unlabeled block (a diagram): every repository path it names
             (`runtime/driver/`, `api.py`) exists. One that names none is unchecked and
             must be marked.
transcript   a block whose first line starts with `$ `: run by tests/cli/test_cli_docs.py.
skip         `<!-- doc-test: skip (REASON) -->`: not checked, and counted; the reason is
             required.

A marker `<!-- doc-test: env NAME=VALUE ... -->` anywhere in a document sets environment
variables for running its python blocks (`XLA_FLAGS` is added to). Any other marker must
be right before a fence (blank lines between are allowed).

`python tests/docs/docblocks.py [DOC...]` checks documents and prints every failure and
the counts; `--list` prints each block's kind.
"""
from __future__ import annotations

import ast
import configparser
import dataclasses
import glob
import io
import json
import math
import os
import re
import shlex
import subprocess
import sys
import textwrap
import tokenize
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LINT_RULES_DOC = "docs/lint-rules.md"

_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})\s*(?P<lang>[\w+.-]*)\s*$")
_MARKER = re.compile(r"<!--\s*doc-test:\s*(?P<body>.*?)\s*-->", re.S)
_HEADING = re.compile(r"^#{1,6}\s+(.*)$")


def documents():
    """README.md and docs/*.md, relative to the repository root."""
    docs = sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "*.md")))
    return ["README.md"] + docs


@dataclasses.dataclass
class Block:
    doc: str
    index: int              # 0-based among the document's blocks
    line: int               # 1-based line of the opening fence
    lang: str
    lines: list             # the content, dedented by the fence's indentation
    marker: str | None      # the body of the `<!-- doc-test: ... -->` before the fence
    heading: str            # the nearest heading above
    label: str              # the paragraph line right before the fence ("Bad:", ...)
    kind: str = ""
    reason: str = ""        # skip: why; failure of the classification: what is wrong

    @property
    def where(self):
        return f"{self.doc}:{self.line}"

    @property
    def text(self):
        return "\n".join(self.lines)

    def title(self):
        first = next((ln.strip() for ln in self.lines if ln.strip()), "")
        return f"{self.where} ({self.kind}) {first[:60]}"


@dataclasses.dataclass
class Document:
    path: str
    blocks: list
    env: dict
    problems: list = dataclasses.field(default_factory=list)   # (line, message)


def parse(doc, text=None):
    """The Document of `doc` (a path relative to the repository root)."""
    if text is None:
        with open(os.path.join(ROOT, doc), encoding="utf-8") as fh:
            text = fh.read()
    lines = text.splitlines()
    blocks, env = [], {}
    for m in _MARKER.finditer(text):
        body = m.group("body")
        if body.startswith("env "):
            for item in shlex.split(body[4:]):
                name, _, value = item.partition("=")
                env[name] = value
    heading, i = "", 0
    while i < len(lines):
        line = lines[i]
        h = _HEADING.match(line)
        if h:
            heading = h.group(1).strip()
        m = _FENCE.match(line)
        if not m:
            i += 1
            continue
        indent, fence = m.group("indent"), m.group("fence")
        j = i + 1
        while j < len(lines) and not (lines[j].strip().startswith(fence[0] * len(fence))
                                      and lines[j].strip().strip(fence[0]) == ""):
            j += 1
        body = [ln[len(indent):] if ln.startswith(indent) else ln.lstrip()
                for ln in lines[i + 1:j]]
        k = i - 1
        while k >= 0 and not lines[k].strip():
            k -= 1
        marker = None
        if k >= 0:
            mm = _MARKER.search(lines[k])
            if mm and lines[k].strip().endswith("-->") and not mm.group("body").startswith("env "):
                marker = mm.group("body")
        label = lines[k].strip() if k >= 0 else ""
        blocks.append(Block(doc, len(blocks), i + 1, m.group("lang").lower(), body, marker,
                            heading, label))
        i = j + 1
    for b in blocks:
        classify(b)
    used = {b.line for b in blocks if b.marker is not None}
    problems = []
    for k, line in enumerate(lines):
        mm = _MARKER.search(line)
        if not mm or mm.group("body").startswith("env "):
            continue
        j = k + 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        if j + 1 not in used:
            problems.append((k + 1, f"the marker `{mm.group()}` is not right before a fence, "
                                    "so it marks nothing"))
    return Document(doc, blocks, env, problems)


# --- classification ---------------------------------------------------------------------
_SHELL_PROGRAMS = {"pip", "python", "python3", "npxla", "pytest", "flake8", "pre-commit",
                   "cd", "export", "git"}
_ENV_ASSIGN = re.compile(r"^[A-Z_][A-Z0-9_]*=\S*$")


def _command_words(line):
    """The words of a shell line with leading `NAME=value` assignments dropped."""
    try:
        words = shlex.split(line, comments=True)
    except ValueError:
        return None
    while words and _ENV_ASSIGN.match(words[0]):
        words = words[1:]
    return words


def _is_shell(lines):
    commands = [ln for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]
    if not commands:
        return False
    for ln in commands:
        words = _command_words(ln)
        if not words or words[0] not in _SHELL_PROGRAMS:
            return False
    return True


def _is_usage(lines):
    first = lines[0] if lines else ""
    return first.startswith("npxla ") and ("[" in first or "|" in first)


def classify(block):
    m, lang = block.marker, block.lang
    first = next((ln for ln in block.lines if ln.strip()), "")
    if m is not None and m.startswith("skip"):
        reason = m[4:].strip().strip(":").strip()
        if reason.startswith("(") and reason.endswith(")"):
            reason = reason[1:-1].strip()
        block.kind, block.reason = ("skip", reason) if reason else \
            ("invalid", "a skip marker needs a reason: <!-- doc-test: skip (why) -->")
    elif first.startswith("$ "):
        block.kind = "transcript"
        if m is not None:
            block.kind, block.reason = "invalid", f"a transcript takes no marker ({m!r})"
    elif m == "output":
        block.kind = "output"
    elif m is not None and m.startswith("to_source"):
        block.kind = "to_source"
        if lang not in ("python", "py"):
            block.kind, block.reason = "invalid", "a to_source listing is a python block"
    elif m is not None:
        block.kind, block.reason = "invalid", f"unknown marker <!-- doc-test: {m} -->"
    elif lang in ("python", "py"):
        if block.doc == LINT_RULES_DOC and block.label in ("Bad:", "Good:"):
            block.kind = "lint-example"
        else:
            block.kind = "python"
    elif lang in ("bash", "sh", "shell", "console", "zsh"):
        block.kind = "shell"
    elif lang in ("yaml", "yml", "toml", "json", "ini", "cfg"):
        block.kind = {"yml": "yaml", "cfg": "ini"}.get(lang, lang)
    elif lang in ("", "text", "txt"):
        if _is_usage(block.lines):
            block.kind = "usage"
        elif _is_shell(block.lines):
            block.kind = "shell"
        else:
            block.kind = "text"
    else:
        block.kind, block.reason = "invalid", f"no check for ```{lang} blocks: mark it skip"
    return block


# --- comparing shown and actual text ----------------------------------------------------
_TOKEN = re.compile(r"""
    (?P<loc>[\w./<>-]*\.py:\d+(?::\d+)?)
  | (?P<ellipsis>\.\.\.)
  | (?P<word>[^\W\d]\w*)
  | (?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
  | (?P<sym>\S)
""", re.X)
_DURATION_UNITS = {"s", "ms", "us", "µs", "ns"}


def tokens(text):
    out = []
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup
        value = m.group()
        if kind == "loc":
            value = value.split(".py:", 1)[1]       # LINE[:COL]: any file
        out.append((kind, value))
    return out


def _number_matches(shown, actual):
    a, b = float(shown), float(actual)
    if math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-12):
        return True
    if "." in shown and "e" not in shown.lower():
        decimals = len(shown.split(".")[1])
        if decimals:
            return abs(a - b) <= 0.5 * 10 ** -decimals * (1 + 1e-9)
    return False


def _tokens_match(shown, actual):
    if len(shown) != len(actual):
        return False
    for k, ((skind, sval), (akind, aval)) in enumerate(zip(shown, actual)):
        if skind != akind:
            return False
        if skind == "loc":
            if sval != aval:
                return False
        elif skind == "num":
            duration = k + 1 < len(shown) and shown[k + 1][1] in _DURATION_UNITS
            if not duration and not _number_matches(sval, aval):
                return False
        elif sval != aval:
            return False
    return True


def _find(segment, actual, start):
    for pos in range(start, len(actual) - len(segment) + 1):
        if _tokens_match(segment, actual[pos:pos + len(segment)]):
            return pos
    return -1


def text_matches(shown, actual):
    """Whether `actual` is what `shown` shows: whitespace is not compared, `...` stands
    for anything, numbers match what rounds to them, `file.py:LINE:COL` is a location in
    any file."""
    st, at = tokens(shown), tokens(actual)
    segments, seg = [], []
    for t in st:
        if t[0] == "ellipsis":
            segments.append(seg)
            seg = []
        else:
            seg.append(t)
    segments.append(seg)
    if len(segments) == 1:
        return _tokens_match(segments[0], at)
    head, *middle, tail = segments
    if not _tokens_match(head, at[:len(head)]):
        return False
    pos = len(head)
    for segment in middle:
        found = _find(segment, at, pos)
        if found < 0:
            return False
        pos = found + len(segment)
    return len(at) - pos >= len(tail) and _tokens_match(tail, at[len(at) - len(tail):])


# --- python blocks (run in a child process) ---------------------------------------------
_RESULT = re.compile(r"^#\s*->\s?(?P<shown>.*)$")
_RAISES = re.compile(r"^#\s*raises\s+(?P<name>[\w.]+)\s*(?::\s*(?P<text>.*))?$")
_LOOKS_LIKE_RESULT = re.compile(
    r"^#\s*(array\(|np\.[a-z0-9_]+\(|[A-Z]\w*\(\w+=|-?\d|\[|\{|True\b|False\b|None\b|['\"]"
    r"|\(\s*-?[\d\[(])")


def split_columns(lines):
    """(left, right) columns of a side-by-side listing: the right column starts where the
    first line's second `def` does; a line whose text crosses that column is all left."""
    m = re.match(r"^\S.*?\s{2,}(?=\S)", lines[0] if lines else "")
    if not m:
        raise ValueError("the first line of a side-by-side listing has both columns")
    col = m.end()
    left, right = [], []
    for ln in lines:
        if len(ln) <= col or ln[col - 2:col] == "  ":
            left.append(ln[:col].rstrip())
            right.append(ln[col:] if len(ln) > col else "")
        else:
            left.append(ln.rstrip())
            right.append("")
    return left, right


def _comments(source):
    """{line: comment text} of a block's source (positions in the scratch file)."""
    out = {}
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.COMMENT:
                out[tok.start[0]] = tok.string
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return out


class _Capture(io.StringIO):
    """One stream for stdout and stderr, in the order things were written."""


def _exception_text(e):
    name = type(e).__name__
    msg = str(e)
    text = msg if re.match(r"^\S+\.py:\d+", msg) or msg.startswith(f"{name}:") \
        else f"{name}: {msg}"
    for note in getattr(e, "__notes__", ()):
        text += "\n" + str(note)
    return text


def _short_traceback(e, filename):
    frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == filename]
    where = f" (at line {frames[-1].lineno}: {frames[-1].line})" if frames else ""
    return f"{_exception_text(e)}{where}"


def _shown_part(comment_body):
    """`REPR  # comment` -> REPR."""
    return re.split(r"\s+#\s", comment_body, maxsplit=1)[0].strip()


def run_python(doc, workdir):
    """Run the python, to_source and output blocks of `doc` in this process, in `workdir`;
    {block index: {"checks": n, "failures": [...]}}."""
    import types
    document = parse(doc)
    stem = re.sub(r"\W", "_", os.path.splitext(os.path.basename(doc))[0])
    filename = os.path.join(workdir, f"doc_{stem}.py")
    with open(os.path.join(ROOT, doc), encoding="utf-8") as fh:
        n_lines = len(fh.read().splitlines())
    file_lines = [""] * (n_lines + 2)
    results = {}
    code = {}                    # block index -> (code lines, right column or None)
    for b in document.blocks:
        if b.kind == "python" or (b.kind == "to_source"
                                  and b.marker.split()[1:2] == ["side-by-side"]):
            body, right = b.lines, None
            if b.kind == "to_source":
                try:
                    body, right = split_columns(b.lines)
                except ValueError as e:
                    results[b.index] = {"checks": 0, "failures": [str(e)]}
                    continue
            code[b.index] = (body, right)
            for k, ln in enumerate(body):       # at its line of the markdown file
                file_lines[b.line + 1 + k] = ln
    with open(filename, "w", encoding="utf-8") as fh:
        fh.write("\n".join(file_lines[1:]) + "\n")

    module = types.ModuleType(f"doc_{stem}")
    module.__file__ = filename
    sys.modules[module.__name__] = module
    ns = module.__dict__
    stream = _Capture()
    real = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = stream
    os.chdir(workdir)
    last_output = None           # (block index, output text) of the last python block
    try:
        for b in document.blocks:
            res = results.setdefault(b.index, {"checks": 0, "failures": []})
            if res["failures"]:
                continue
            if b.index in code:
                start = len(stream.getvalue())
                _run_block(b, code[b.index], filename, file_lines, ns, stream, res)
                fences = [document.blocks[k].line for k in code]
                last_output = (b.index, _relative_locations(stream.getvalue()[start:],
                                                            filename, fences))
                if b.kind == "to_source":
                    _check_side_by_side(b, code[b.index], ns, res)
            elif b.kind == "to_source":
                _check_to_source(b, ns, res)
            elif b.kind == "output":
                if last_output is None or last_output[0] != b.index - 1:
                    res["failures"].append("an output block must follow a python block")
                elif not text_matches(b.text, last_output[1]):
                    res["failures"].append("the block above printed:\n" + last_output[1].rstrip()
                                           + "\n--- the doc shows:\n" + b.text)
                else:
                    res["checks"] += 1
    finally:
        sys.stdout, sys.stderr = real
    return {k: v for k, v in results.items()
            if document.blocks[k].kind in ("python", "to_source", "output")}


def _relative_locations(text, filename, fences):
    """`<scratch file>:LINE` -> `example.py:N`, N counted from the first line of the
    block that holds LINE (`fences`: the fence lines of the blocks written there)."""
    def sub(m):
        line = int(m.group(1))
        fence = max((f for f in fences if f < line), default=0)
        return f"example.py:{line - fence}"
    text = re.sub(re.escape(filename) + r":(\d+)", sub, text)
    return re.sub(re.escape(os.path.basename(filename)) + r":(\d+)", sub, text)


def _run_block(b, code_and_right, filename, file_lines, ns, stream, res):
    body = code_and_right[0]
    first = b.line + 1
    source = "\n" * (first - 1) + "\n".join(body) + "\n"
    try:
        tree = ast.parse(source, filename)
    except SyntaxError as e:
        res["failures"].append(f"{b.doc}:{e.lineno}: SyntaxError: {e.msg}")
        return
    comments = _comments(source)
    wanted = {ln: c for ln, c in comments.items()
              if _RESULT.match(c) or _RAISES.match(c)}
    used = set()
    for stmt in tree.body:
        comment = comments.get(stmt.end_lineno, "") if not isinstance(
            stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.If, ast.For,
                   ast.While, ast.With, ast.Try)) else ""
        result, raises = _RESULT.match(comment), _RAISES.match(comment)
        if result or raises:
            used.add(stmt.end_lineno)
        elif isinstance(stmt, ast.Expr) and _LOOKS_LIKE_RESULT.match(comment):
            res["failures"].append(f"{b.doc}:{stmt.end_lineno}: `{comment}` shows a result "
                                   "without `# -> `: write `# -> REPR` so that it is checked")
        where = f"{b.doc}:{stmt.lineno} ({file_lines[stmt.lineno].strip()})"
        try:
            if result and isinstance(stmt, ast.Expr):
                before = len(stream.getvalue())
                value = eval(compile(ast.Expression(stmt.value), filename, "eval"), ns)
                printed = stream.getvalue()[before:]
                is_print = (isinstance(stmt.value, ast.Call)
                            and isinstance(stmt.value.func, ast.Name)
                            and stmt.value.func.id == "print")
                actual = printed.rstrip("\n") if is_print else repr(value)
                shown = _shown_part(result.group("shown"))
                res["checks"] += 1
                if not text_matches(shown, actual):
                    res["failures"].append(f"{where}: gives {actual}\n--- the doc shows: {shown}")
            elif result:
                res["failures"].append(f"{where}: `# ->` on a statement that is not an "
                                       "expression")
                exec(compile(ast.Module([stmt], []), filename, "exec"), ns)
            else:
                exec(compile(ast.Module([stmt], []), filename, "exec"), ns)
                if raises:
                    res["failures"].append(f"{where}: raised nothing; the doc says it raises "
                                           f"{raises.group('name')}")
        except Exception as e:          # noqa: BLE001 - a doc's failure is reported
            if raises:
                name = raises.group("name").split(".")[-1]
                names = [c.__name__ for c in type(e).__mro__]
                res["checks"] += 1
                if name not in names:
                    res["failures"].append(f"{where}: raised {_short_traceback(e, filename)}"
                                           f"\n--- the doc says it raises {name}")
                elif raises.group("text") and not text_matches(
                        "... " + _shown_part(raises.group("text")) + " ...", str(e)):
                    res["failures"].append(f"{where}: raised {_exception_text(e)}\n--- the doc "
                                           f"shows: {raises.group('text')}")
                stream.write(_exception_text(e) + "\n")
            else:
                res["failures"].append(f"{where}: raised {_short_traceback(e, filename)}")
                return
    for ln in sorted(set(wanted) - used):
        res["failures"].append(f"{b.doc}:{ln}: `{wanted[ln]}` is not "
                               "on a statement of the block's top level, so it is not checked")


def _converted(name, ns):
    from npxla import to_source
    fn = ns.get(name)
    if fn is None:
        raise LookupError(f"no function {name!r} defined by the blocks above")
    return to_source(fn)


def _check_to_source(b, ns, res):
    name = b.marker.split()[1] if len(b.marker.split()) > 1 else ""
    try:
        actual = _converted(name, ns)
    except Exception as e:              # noqa: BLE001
        res["failures"].append(f"to_source({name}): {_exception_text(e)}")
        return
    res["checks"] += 1
    if not text_matches(b.text, actual):
        res["failures"].append(f"to_source({name}) is today:\n{actual.strip()}\n"
                               f"--- the doc shows:\n{b.text}")


def _check_side_by_side(b, code_and_right, ns, res):
    left, right = code_and_right
    names = re.findall(r"^def (\w+)", "\n".join(left), re.M)
    if not names:
        res["failures"].append("the left column defines no function")
        return
    try:
        actual = _converted(names[0], ns)
    except Exception as e:              # noqa: BLE001
        res["failures"].append(f"to_source({names[0]}): {_exception_text(e)}")
        return
    shown = "\n".join(right)
    res["checks"] += 1
    if not text_matches(shown, actual):
        res["failures"].append(f"to_source({names[0]}) is today:\n{actual.strip()}\n"
                               f"--- the right column shows:\n{shown}")


def run_python_in_child(doc, workdir, env=None, timeout=600):
    """`run_python(doc)` in a fresh process, on the CPU, with the document's env markers."""
    # the documents show runs on the CPU, whatever devices this machine has
    child_env = {**os.environ, "NPXLA_CACHE_DIR": "off", "NPXLA_DEVICE": "cpu",
                 "JAX_PLATFORMS": "cpu"}
    for name, value in (env or {}).items():
        if name == "XLA_FLAGS" and child_env.get("XLA_FLAGS"):
            # first: XLA stops reading at a malformed flag (tests/conftest.py adds
            # `intra_op_parallelism_threads=1`, without dashes)
            child_env[name] = f"{value} {child_env[name]}"
        else:
            child_env[name] = value
    out = os.path.join(str(workdir), "results.json")
    proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", doc,
                           str(workdir), out], capture_output=True, text=True,
                          cwd=str(workdir), env=child_env, timeout=timeout)
    if proc.returncode != 0 or not os.path.exists(out):
        raise RuntimeError(f"running the python blocks of {doc} failed (exit "
                           f"{proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}")
    with open(out, encoding="utf-8") as fh:
        return {int(k): v for k, v in json.load(fh).items()}


# --- blocks checked without running -----------------------------------------------------
def _extras():
    parser = configparser.ConfigParser()
    parser.read(os.path.join(ROOT, "setup.cfg"))
    return set(parser["options.extras_require"]) if parser.has_section(
        "options.extras_require") else set()


def _npxla_env_names():
    names = set()
    for path in glob.glob(os.path.join(ROOT, "**", "*.py"), recursive=True):
        if "/.git/" in path or "/build/" in path:
            continue
        with open(path, encoding="utf-8", errors="replace") as fh:
            names.update(re.findall(r"NPXLA_[A-Z0-9_]+", fh.read()))
    return names


_ENV_CACHE = {}


def _module_file(module):
    import importlib.util
    if ROOT not in sys.path:
        sys.path.insert(0, ROOT)
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        spec = None
    if spec is None:
        candidate = os.path.join(ROOT, *module.split(".")) + ".py"
        return candidate if os.path.exists(candidate) else None
    return spec.origin or ""


def _check_options(words, source_file, what):
    if not source_file or not os.path.exists(source_file):
        return []
    with open(source_file, encoding="utf-8") as fh:
        text = fh.read()
    return [f"`{what}` has no option {w}" for w in words
            if w.startswith("--") and f'"{w.split("=")[0]}"' not in text
            and f"'{w.split('=')[0]}'" not in text]


def check_command(line):
    """Problems with one shell command line, checked without running it."""
    try:
        lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        lexer.commenters = "#"
        words = list(lexer)
    except ValueError as e:
        return [f"`{line}`: {e}"]
    problems, commands, current = [], [], []
    for w in words:
        if w in ("&&", "||", ";", "&", "|"):
            commands.append(current)
            current = []
        else:
            current.append(w)
    commands.append(current)
    for cmd in commands:
        while cmd and _ENV_ASSIGN.match(cmd[0]):
            name = cmd[0].split("=")[0]
            if name.startswith("NPXLA_"):
                if "names" not in _ENV_CACHE:
                    _ENV_CACHE["names"] = _npxla_env_names()
                if name not in _ENV_CACHE["names"]:
                    problems.append(f"`{line}`: no code reads {name}")
            cmd = cmd[1:]
        if not cmd:
            continue
        prog, args = cmd[0], cmd[1:]
        if prog == "head" or prog in ("cd", "export", "git", "pre-commit", "flake8"):
            continue
        if prog == "pip":
            for a in args:
                m = re.match(r"^(?:\.|npxla)\[([\w,-]+)\]$", a)
                if m:
                    missing = set(m.group(1).split(",")) - _extras()
                    if missing:
                        problems.append(f"`{line}`: setup.cfg has no extra {sorted(missing)}")
            continue
        if prog in ("python", "python3"):
            if args[:1] == ["-m"] and len(args) > 1:
                origin = _module_file(args[1])
                if origin is None:
                    problems.append(f"`{line}`: no module {args[1]}")
                elif args[1] not in ("pytest", "pip"):
                    problems += _check_options(args[2:], origin, f"python -m {args[1]}")
            elif args and args[0].endswith(".py"):
                path = os.path.join(ROOT, args[0])
                if not os.path.exists(path):
                    problems.append(f"`{line}`: no file {args[0]}")
                else:
                    problems += _check_options(args[1:], path, f"python {args[0]}")
            for a in args:
                if "/" in a and not a.startswith(("/", "$", "-")) and a.endswith(".json") \
                        and not os.path.exists(os.path.join(ROOT, a)):
                    problems.append(f"`{line}`: no file {a}")
            continue
        if prog == "pytest":
            continue
        if prog == "npxla":
            problems += _check_npxla_args(args, line)
            continue
        problems.append(f"`{line}`: no check for `{prog}`: mark the block skip")
    return problems


def _check_npxla_args(args, line):
    import contextlib
    from npxla.runtime.driver.cli import build_parser
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            build_parser().parse_args(args)
    except SystemExit as e:
        if e.code:
            return [f"`{line}`: {err.getvalue().strip()}"]
    return []


def check_shell(block):
    problems, checked = [], 0
    pending = ""
    for ln in block.lines:
        stripped = ln.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.endswith("\\"):
            pending += stripped[:-1] + " "
            continue
        problems += check_command(pending + stripped)
        pending = ""
        checked += 1
    return checked, problems


def check_usage(block):
    from npxla.runtime.driver.cli import build_parser
    parser = build_parser()
    text = block.text
    command = text.split()[1]
    sub = next((a for a in parser._actions if hasattr(a, "choices") and isinstance(
        a.choices, dict) and command in a.choices), None)
    if sub is None:
        return 0, [f"npxla has no command {command!r}"]
    known = {o for a in sub.choices[command]._actions for o in a.option_strings}
    shown = set(re.findall(r"(?<![\w-])(--?[a-zA-Z][\w-]*)", text))
    missing = sorted(shown - known)
    return len(shown), [f"`npxla {command}` has no option {o}" for o in missing]


_EXT = r"\.(?:py|md|toml|cfg|yaml|json|txt|png)"
_PATH = re.compile(rf"(?<![\w./-])((?:[\w.-]+/)+(?:[\w-]+{_EXT})?|[\w-]+{_EXT})(?![\w/-])")


def check_text_paths(block):
    """(paths named, problems): each repository path the text names must exist."""
    names, problems = 0, []
    for m in _PATH.finditer(block.text):
        p = m.group(1).rstrip(".,")
        if p.startswith(("http", "www.")) or "://" in p:
            continue
        names += 1
        if "/" in p:
            if not os.path.exists(os.path.join(ROOT, p)):
                problems.append(f"no {p} in the repository")
        elif not glob.glob(os.path.join(ROOT, "**", p), recursive=True):
            problems.append(f"no file named {p} in the repository")
    return names, problems


def check_lint_example(block):
    """(checks, problems) of one Bad:/Good: example of docs/lint-rules.md."""
    from npxla.transpiler.lint import lint_source
    code = block.heading.split()[0] if block.heading else ""
    if not re.fullmatch(r"NPX\d{3}", code):
        return 0, [f"a lint example under the heading {block.heading!r}, not a rule's"]
    found = lint_source(block.text + "\n", f"{code}_{block.label[:-1].lower()}.py")
    codes = sorted({f.code for f in found})
    if block.label == "Bad:" and code not in codes:
        return 1, [f"{code}'s bad example is not flagged with {code} (the linter reports "
                   f"{codes or 'nothing'})"]
    if block.label == "Good:" and found:
        return 1, [f"{code}'s good example is flagged: "
                   + "; ".join(f"{f.line}:{f.col} {f.code} {f.message}" for f in found)]
    return 1, []


def check_static(block):
    """(checks, problems) of a block checked without running Python."""
    kind = block.kind
    try:
        if kind == "shell":
            return check_shell(block)
        if kind == "usage":
            return check_usage(block)
        if kind == "yaml":
            import yaml
            yaml.safe_load(block.text)
            return 1, []
        if kind == "toml":
            import tomllib
            tomllib.loads(block.text)
            return 1, []
        if kind == "json":
            json.loads(block.text)
            return 1, []
        if kind == "ini":
            configparser.ConfigParser().read_string(block.text)
            return 1, []
        if kind == "text":
            names, problems = check_text_paths(block)
            if not names:
                return 0, ["nothing checks this block: mark it <!-- doc-test: output --> "
                           "after the python block that prints it, or "
                           "<!-- doc-test: skip (why) -->"]
            return names, problems
        if kind == "lint-example":
            return check_lint_example(block)
    except Exception as e:              # noqa: BLE001
        return 0, [f"{type(e).__name__}: {e}"]
    return 0, []


# --- one document -----------------------------------------------------------------------
RUN_KINDS = ("python", "to_source", "output")
STATIC_KINDS = ("shell", "usage", "yaml", "toml", "json", "ini", "text", "lint-example")


@dataclasses.dataclass
class Report:
    doc: str
    counts: dict                 # run, checked, results, transcripts, skipped
    failures: list               # (block, message)

    def summary(self):
        c = self.counts
        return (f"{self.doc}: {c['blocks']} blocks: {c['run']} run ({c['results']} shown "
                f"results checked), {c['checked']} checked, {c['transcripts']} transcripts "
                f"(tests/cli), {c['skipped']} skipped"
                + (f", {c['unchecked']} UNCHECKED" if c.get("unchecked") else ""))


def static_counts(document):
    kinds = [b.kind for b in document.blocks]
    results = 0
    for b in document.blocks:
        if b.kind == "python" or b.kind == "to_source":
            results += sum(1 for c in _comments(b.text).values()
                           if _RESULT.match(c) or _RAISES.match(c))
        if b.kind in ("output", "to_source"):
            results += 1
    unchecked = sum(1 for b in document.blocks if b.kind == "invalid" or (
        b.kind == "text" and not check_text_paths(b)[0]))
    return {"blocks": len(kinds),
            "run": sum(k == "python" or (k == "to_source" and "side-by-side" in (
                b.marker or "")) for k, b in zip(kinds, document.blocks)),
            "checked": sum(k in STATIC_KINDS or k in ("to_source", "output")
                           for k in kinds) - unchecked + kinds.count("invalid"),
            "results": results,
            "transcripts": kinds.count("transcript"),
            "skipped": kinds.count("skip"),
            "unchecked": unchecked}


def check_document(doc, workdir):
    """Check every block of `doc`; a Report."""
    document = parse(doc)
    failures = [(Block(doc, -1, line, "", [], None, "", "", "marker"), msg)
                for line, msg in document.problems]
    for b in document.blocks:
        if b.kind == "invalid":
            failures.append((b, b.reason))
        elif b.kind in STATIC_KINDS:
            _, problems = check_static(b)
            failures += [(b, p) for p in problems]
    if any(b.kind in RUN_KINDS for b in document.blocks):
        results = run_python_in_child(doc, workdir, document.env)
        for index, res in sorted(results.items()):
            failures += [(document.blocks[index], p) for p in res["failures"]]
    return Report(doc, static_counts(document), failures)


def _format(failures):
    return "\n\n".join(f"{b.title()}:\n{textwrap.indent(msg, '    ')}" for b, msg in failures)


def main(argv):
    if argv[:1] == ["--child"]:
        doc, workdir, out = argv[1:4]
        results = run_python(doc, workdir)
        with open(out, "w", encoding="utf-8") as fh:
            json.dump(results, fh)
        return 0
    if argv[:1] == ["--list"]:
        for doc in argv[1:] or documents():
            for b in parse(doc).blocks:
                print(b.title() + (f" [{b.reason}]" if b.reason else ""))
        return 0
    import tempfile
    bad = 0
    reports = []
    for doc in argv or documents():
        with tempfile.TemporaryDirectory() as scratch:
            report = check_document(doc, scratch)
        reports.append(report)
        if report.failures:
            bad += len(report.failures)
            print(_format(report.failures) + "\n")
    for report in reports:
        print(report.summary() + f", {len(report.failures)} failures")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
