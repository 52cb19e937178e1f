"""Every case of the real-code corpus: `corpus` (Kalman filters, fuzzy logic,
statistics, peaks, derivatives, finance), `corpus_pyti` (technical indicators) and
`corpus_curves` (curve comparisons)."""
from tests.realcode import corpus, corpus_curves, corpus_pyti

CASES = corpus.CASES + corpus_pyti.CASES + corpus_curves.CASES
PACKAGES = sorted({c.package for c in CASES})
