"""Every case of the real-code corpus: `corpus` (Kalman filters, fuzzy logic,
statistics, peaks, derivatives, finance), `corpus_pyti` (technical indicators),
`corpus_curves` (curve comparisons) and `corpus_geometry` (rotations, rays, forecast
scores)."""
from tests.realcode import corpus, corpus_curves, corpus_geometry, corpus_pyti

CASES = corpus.CASES + corpus_pyti.CASES + corpus_curves.CASES + corpus_geometry.CASES
PACKAGES = sorted({c.package for c in CASES})
