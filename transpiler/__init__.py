"""The front end: parse (pyct) -> analyse -> convert, and the linter on the same analyses.
It imports no JAX; the public API is the package root, `npxla`."""
