"""The NumPy layer's core: the registry (NumPy callables -> implementations), coercion
of arguments to abstract arrays, casts and values, run-time error flags, Python ints and
signed zeros, the text refusal, and the arithmetic of dynamic extents (`extents`) that
every bounded-extent implementation builds on.

Importing this package loads none of its modules: each family imports what it needs."""
