"""Every case of the real-code corpus: `corpus` (Kalman filters, fuzzy logic,
statistics, peaks, derivatives, finance) and `corpus_pyti` (technical indicators)."""
from tests.realcode import corpus, corpus_pyti

CASES = corpus.CASES + corpus_pyti.CASES
PACKAGES = sorted({c.package for c in CASES})
