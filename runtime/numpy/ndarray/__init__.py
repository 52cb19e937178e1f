"""The ndarray behaviour of abstract arrays (`methods`: operators, methods, properties,
NumPy protocols; `copying`: copy/deepcopy) and of bounded arrays (`bounded`: the same,
plus the routing of registered functions to their bounded-extent implementations)."""
