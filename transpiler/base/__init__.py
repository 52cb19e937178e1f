"""The base layer, imported by every other: the error hierarchy and refusal catalogue,
source locations, and NumPy's dtype rules. It imports neither JAX nor any other layer."""
