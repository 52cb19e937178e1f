"""StableHLO builder helpers (types, constants, broadcasting) over jaxlib.mlir."""
