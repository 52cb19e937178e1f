"""The count of documentation blocks run, checked and skipped, printed at the end of a run
that included tests/docs (counted from the documents: a block counted as run or checked
passed if test_document passed for its document)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    ran_docs = any(getattr(r, "nodeid", "").startswith("tests/docs/")
                   for reports in terminalreporter.stats.values() for r in reports
                   if hasattr(r, "nodeid"))
    if not ran_docs:
        return
    import docblocks
    terminalreporter.section("documentation blocks")
    total = {}
    for doc in docblocks.documents():
        counts = docblocks.static_counts(docblocks.parse(doc))
        if not counts["blocks"]:
            continue
        for k, v in counts.items():
            total[k] = total.get(k, 0) + v
        terminalreporter.write_line(docblocks.Report(doc, counts, []).summary())
    terminalreporter.write_line(docblocks.Report("all documents", total, []).summary())
