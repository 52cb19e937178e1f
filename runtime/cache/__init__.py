"""The cache layer: what a compiled program depends on (fingerprints), the disk store
and its data-only entry format, and persistence of a JittedFunction's executables."""
