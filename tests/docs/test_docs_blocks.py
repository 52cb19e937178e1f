"""Every fenced block of README.md and docs/*.md is run or checked (tests/docs/docblocks.py
says how each kind of block is checked and the conventions for shown results), so that a
document cannot go stale. `python tests/docs/docblocks.py [DOC...]` runs the same checks
outside pytest and prints each failure; `--list` shows how each block is classified.
"""
import importlib.util
import os
import textwrap

import pytest

import docblocks

DOCS = [d for d in docblocks.documents() if docblocks.parse(d).blocks]

# Failures in documents that other people are editing: test_document lets them pass and
# test_known_stale (xfail) checks them. Key: (document, text found in the block's
# title (`doc:line (kind) first line`) or in the failure's message).
KNOWN_STALE: dict = {
}

# A skipped block is one that nothing checks: keep them few (each is marked, with its
# reason, in the document).
MAX_SKIPPED = 6


def _known(block, message):
    return next((reason for (doc, needle), reason in KNOWN_STALE.items()
                 if doc == block.doc and (needle in block.title() or needle in message)),
                None)


@pytest.mark.parametrize("doc", DOCS)
def test_document(doc, tmp_path):
    report = docblocks.check_document(doc, tmp_path)
    print(report.summary())
    unexpected = [(b, msg) for b, msg in report.failures if _known(b, msg) is None]
    assert not unexpected, f"{len(unexpected)} stale blocks in {doc}:\n\n" + \
        docblocks._format(unexpected)


def _known_cases():
    for (doc, needle), reason in KNOWN_STALE.items():
        yield pytest.param(doc, needle, marks=pytest.mark.xfail(reason=reason),
                           id=f"{doc}:{needle[:30]}")


@pytest.mark.parametrize("doc, needle", list(_known_cases()))
def test_known_stale(doc, needle, tmp_path):
    document = docblocks.parse(doc)
    blocks = [b for b in document.blocks if needle in b.title()]
    if blocks and all(b.kind in docblocks.STATIC_KINDS for b in blocks):
        failures = [(b, p) for b in blocks for p in docblocks.check_static(b)[1]]
    else:
        failures = [(b, p) for b, p in docblocks.check_document(doc, tmp_path).failures
                    if needle in b.title() or needle in p]
    assert not failures, docblocks._format(failures)


def test_skips_are_few_and_marked():
    skipped, total = [], 0
    for doc in docblocks.documents():
        for b in docblocks.parse(doc).blocks:
            total += 1
            if b.kind == "skip":
                assert b.reason, b.title()
                skipped.append(f"{b.where}: {b.reason}")
    print(f"{len(skipped)} of {total} blocks skipped:\n" + "\n".join(skipped))
    assert len(skipped) <= MAX_SKIPPED, "\n".join(skipped)


def test_every_document_with_transcripts_is_played_by_tests_cli():
    path = os.path.join(docblocks.ROOT, "tests", "cli", "test_cli_docs.py")
    spec = importlib.util.spec_from_file_location("_cli_docs_for_docs", path)
    cli_docs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cli_docs)
    played = set(cli_docs.transcript_docs())
    with_transcripts = {d for d in docblocks.documents()
                        if any(b.kind == "transcript" for b in docblocks.parse(d).blocks)}
    assert with_transcripts <= played, with_transcripts - played


def test_lint_rules_examples_are_all_found():
    """docs/lint-rules.md (generated from the rule catalogue) has a Bad: and a Good:
    example under each rule's heading; every one of them is checked."""
    from npxla.transpiler.lint.rules import RULES
    examples = {}
    for b in docblocks.parse(docblocks.LINT_RULES_DOC).blocks:
        assert b.kind == "lint-example", b.title()
        examples.setdefault(b.heading.split()[0], []).append(b.label)
    assert examples == {code: ["Bad:", "Good:"] for code in RULES}


# --- the runner itself ------------------------------------------------------------------
def test_text_matching():
    m = docblocks.text_matches
    assert m("array([0.1, 0.8])", "array([0.1       , 0.8       ])")
    assert m("0.667", "0.6666666666666666")
    assert not m("0.667", "0.6676")
    assert not m("-0.", "0.")
    assert m("a ... z", "a b c z") and not m("a ... z", "a b c")
    assert m("example.py:3:5 x", "example.py:3:5 x") and not m("example.py:3:5", "example.py:4:5")
    assert m("took 7.3 s", "took 0.02 s") and not m("took 7.3 m", "took 0.02 m")
    assert m("long line\nwrapped", "long line wrapped")


SAMPLE = '''\
# A sample

```python
import numpy as np
from npxla import jit

def double(x):
    return 2 * x

jit(double)(np.arange(3.0))    # -> array([0., 2., 4.])
jit(double)(np.arange(3.0))    # -> array([0., 2., 5.])
jit(double)(4)                 # 8
print(jit(double)(1.5))        # -> 3.0
```

```python
def first_row(x):
    return x[7]

jit(first_row)(np.ones(3))     # raises IndexError
jit(first_row)(np.ones(3))     # raises KeyError
jit(first_row)(np.ones(9))     # raises IndexError
```
<!-- doc-test: output -->
```
IndexError: index 7 is out of bounds for axis 0 with size 3
...
```

<!-- doc-test: to_source double -->
```python
def double(x):
    return 3 * x
```

```
a diagram that names nothing
```

<!-- doc-test: output -->

A marker that marks nothing.

<!-- doc-test: skip -->
```toml
x = 1
```

```yaml
a: [1, 2
```

```bash
pip install '.[nosuchextra]'
python -m tests.benchmarks.run --no-such-option
```
'''


def test_the_runner_finds_stale_blocks(tmp_path):
    doc = tmp_path / "sample.md"
    doc.write_text(SAMPLE)
    work = tmp_path / "work"
    work.mkdir()
    report = docblocks.check_document(str(doc), work)
    found = "\n".join(msg for _, msg in report.failures)
    expected = [
        "gives array([0., 2., 4.])",                      # a wrong result
        "`# 8` shows a result without `# -> `",            # an unchecked result
        "raised IndexError",                              # the wrong exception
        "raised nothing",                                 # no exception
        "to_source(double) is today",                     # a stale listing
        "nothing checks this block",                      # an unmarked text block
        "a skip marker needs a reason",
        "is not right before a fence",
        "while parsing a flow sequence",                  # YAML that does not parse
        "no extra ['nosuchextra']",
        "has no option --no-such-option",
    ]
    for text in expected:
        assert text in found, f"{text!r} not in:\n{found}"
    assert len(report.failures) == len(expected), textwrap.indent(found, "  ")
    assert report.counts["run"] == 2 and report.counts["skipped"] == 0
