"""The driver, on top of every other layer: `jit`, the compiled callable, staging a
function on abstract arguments, the per-call guards, and the command line."""
