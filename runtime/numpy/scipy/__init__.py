"""The SciPy subset (registered lazily by name: SciPy is imported by the user's code only):
linalg and LAPACK, ndimage, signal, spatial, special, stats."""
