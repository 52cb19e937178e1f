"""Indexing: `x[...]` reads and writes (basic, fancy, boolean), take/put, index tricks,
and their bounded-extent forms (dynamic slices, strided and speculative windows, masks,
index arrays of run-time length, and the functions whose result size is data-dependent:
np.nonzero, np.unique, ...)."""
