"""Array building and reshaping: shapes and views, arrange (flip, roll, tile, ...),
creation, padding, diagonals, grids, helpers built on them (`extras`), and their
bounded-extent forms (`bounded`: joining, flipping, rolling, ... arrays of run-time length)."""
