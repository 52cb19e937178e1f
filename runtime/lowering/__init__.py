"""A small closed set of primitives: each a typing rule plus a lowering rule.

NumPy's API (runtime/numpy) is implemented on top of these, the way jax.numpy sits on
lax: argument normalisation and NumPy semantics live there, StableHLO details here.
"""
from npxla.runtime.lowering.core import Primitive, bind  # noqa: F401
