"""Ufuncs: the ufunc machinery (`ufunc_core`), arithmetic, math, comparisons and logic,
with their bounded-extent forms (`bounded`: elementwise on arrays of run-time length)."""
