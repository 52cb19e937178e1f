"""XLA side: devices, compilation through JAX's PJRT clients, executable cache."""
