"""Linear algebra: np.linalg, products and contractions (np.dot, np.einsum, ...), the host
matmul, np.roots, and their bounded-extent forms (`bounded`: contractions and norms,
`bounded_blocks`: blocked matrix-vector products)."""
