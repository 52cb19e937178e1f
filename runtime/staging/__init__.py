"""The staging model: abstract arrays (a leaf class; NumPy behaviour is installed by the
NumPy layer), the MLIR module under construction, regions, and typing across control
flow."""
