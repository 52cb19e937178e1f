"""`jit(f, shard=..., mesh=...)`: what the user says about splitting arrays, checked.

Two spellings, one meaning:

    shard={"x": 0}                      axis 0 of x over every device (a 1-D mesh)
    shard={"x": ("data", None)},        axis 0 of x over mesh axis "data", axis 1 whole;
        mesh={"data": 4, "model": 2}    a named 4x2 mesh of the first 8 devices

An entry is an int (that axis of the argument over the whole mesh), None (the argument
whole on every device) or a tuple with one item per leading axis of the argument: a
mesh axis name, a tuple of names (the axis over their product), or None. Arguments not
named are whole on every device. The spec is checked when `jit` is called; what depends
on the arguments (an array, its rank) on each new signature; what depends on the
devices (the mesh's size) when the mesh is first built, so that decorating at import
time never starts an XLA backend (`jax.distributed.initialize` must come first).
"""
from __future__ import annotations

import inspect

import numpy as np

DEFAULT_AXIS = "devices"     # the mesh axis of the int spelling without mesh=

_EXAMPLE = "shard={'x': 0} or shard={'x': ('data', None)} with mesh={'data': 4}"


def _error(kind, message, hint):
    return kind(f"{message}\nhint: {hint}")


class ShardSpec:
    """The checked `shard=`/`mesh=` of one jitted function."""

    def __init__(self, shard, mesh, signature, static_names, fn_name):
        self.fn_name = fn_name
        self.mesh_axes = _check_mesh(mesh)
        self.entries = _check_shard(shard, self.mesh_axes, signature, static_names, fn_name)

    def frozen(self):
        """A hashable form (part of `jit`'s identity key)."""
        return freeze(self.entries), freeze(self.mesh_axes)

    # --- the mesh ------------------------------------------------------------------
    def mesh_sizes(self, n_devices, platform):
        """{axis: size}: the given mesh, or one axis over all `n_devices`."""
        if self.mesh_axes is None:
            return {DEFAULT_AXIS: n_devices}
        need = int(np.prod(list(self.mesh_axes.values())))
        if need > n_devices:
            raise _error(ValueError,
                         f"mesh={self.mesh_axes} needs {need} devices, but there are "
                         f"{n_devices} {platform} device(s)",
                         "use a smaller mesh (see `npxla devices`); on the CPU, "
                         "XLA_FLAGS=--xla_force_host_platform_device_count=N set before "
                         "JAX starts simulates N devices")
        return dict(self.mesh_axes)

    # --- one argument --------------------------------------------------------------
    def layout(self, name, value):
        """The per-axis layout (a tuple, one entry per axis of `value`) of argument
        `name` given `value`, or a clear error when it cannot be split."""
        entry = self.entries[name]
        if entry is None:
            return ()
        where = f"shard={{{name!r}: {entry!r}}} of {self.fn_name}"
        if not _is_array(value):
            kind = "a Python scalar" if type(value) in (bool, int, float, complex) else \
                f"a {type(value).__name__}"
            raise _error(TypeError, f"{where}: argument {name!r} is {kind}, and only "
                         "arrays can be split over devices",
                         f"pass a NumPy array (np.asarray({name})), or leave {name!r} "
                         "out of shard= to give every device the whole value")
        ndim = len(value.shape)
        if ndim == 0:
            raise _error(ValueError, f"{where}: argument {name!r} is 0-dimensional",
                         f"leave {name!r} out of shard= (every device gets it whole)")
        if isinstance(entry, int):
            if not -ndim <= entry < ndim:
                raise _error(ValueError, f"{where}: argument {name!r} has {ndim} axes, "
                             f"so it has no axis {entry}",
                             f"use an axis from 0 to {ndim - 1}")
            axes = tuple(self.mesh_axes) if self.mesh_axes else (DEFAULT_AXIS,)
            layout = [None] * ndim
            layout[entry % ndim] = axes[0] if len(axes) == 1 else axes
            return tuple(layout)
        if len(entry) > ndim:
            raise _error(ValueError, f"{where}: {len(entry)} entries for an argument "
                         f"with {ndim} axes", f"give at most {ndim} entries (one per axis)")
        return tuple(entry) + (None,) * (ndim - len(entry))


def _is_array(value):
    if type(value) is np.ndarray:
        return True
    mod = type(value).__module__
    return mod.startswith("jax") and hasattr(value, "shape") and hasattr(value, "dtype")


def _check_mesh(mesh):
    if mesh is None:
        return None
    if not isinstance(mesh, dict) or not mesh:
        raise _error(TypeError, f"mesh= must be a dict of axis name -> size, got "
                     f"{mesh!r}", "e.g. mesh={'data': 4, 'model': 2}")
    for name, size in mesh.items():
        if not isinstance(name, str) or not name:
            raise _error(TypeError, f"mesh axis names are strings, got {name!r}",
                         "e.g. mesh={'data': 4}")
        if type(size) is not int or size < 1:
            raise _error(ValueError, f"mesh axis {name!r} has size {size!r}; sizes are "
                         "positive ints", "e.g. mesh={'data': 4}")
    return dict(mesh)


def _check_shard(shard, mesh_axes, signature, static_names, fn_name):
    if not isinstance(shard, dict):
        raise _error(TypeError, f"shard= must be a dict of argument name -> layout, got "
                     f"{type(shard).__name__}", _EXAMPLE)
    params = signature.parameters if signature is not None else {}
    open_kwargs = any(p.kind is p.VAR_KEYWORD for p in params.values())
    entries = {}
    for name, entry in shard.items():
        if not isinstance(name, str):
            raise _error(TypeError, f"shard= keys are argument names, got {name!r}",
                         _EXAMPLE)
        if params and name not in params and not open_kwargs:
            raise _error(ValueError, f"shard= names {name!r}, which is not a parameter of "
                         f"{fn_name}", f"parameters: {', '.join(params) or 'none'}")
        if name in params and params[name].kind in (
                inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            raise _error(ValueError, f"shard= names *{name} or **{name}, which collect "
                         "several values", "split named array parameters only")
        if name in static_names:
            raise _error(ValueError, f"shard= names {name!r}, a static argument",
                         "static arguments are Python values baked into the program; "
                         "only traced arrays can be split")
        entries[name] = _check_entry(name, entry, mesh_axes)
    return entries


def _check_entry(name, entry, mesh_axes):
    """One argument's layout, checked when `jit` is called rather than at the first
    call: a typo in a mesh axis name or an axis split twice is the user's mistake and
    must name the argument, not surface later as an XLA partitioning error."""
    if entry is None or (type(entry) is int):
        return entry
    if not isinstance(entry, (tuple, list)):
        raise _error(TypeError, f"shard={{{name!r}: {entry!r}}}: a layout is an axis "
                     "(int), None, or a tuple of mesh axis names / None per axis",
                     _EXAMPLE)
    used = []
    out = []
    for item in entry:
        names = (item,) if isinstance(item, str) else item
        if names is None:
            out.append(None)
            continue
        if not isinstance(names, (tuple, list)) or not all(isinstance(n, str) for n in names):
            raise _error(TypeError, f"shard={{{name!r}: {entry!r}}}: {item!r} is not a "
                         "mesh axis name, a tuple of names or None", _EXAMPLE)
        for n in names:
            if mesh_axes is None:
                raise _error(ValueError, f"shard={{{name!r}: {entry!r}}} names mesh axis "
                             f"{n!r} but no mesh= is given",
                             f"add mesh={{{n!r}: SIZE}}, or write shard={{{name!r}: 0}} "
                             "to split axis 0 over every device")
            if n not in mesh_axes:
                raise _error(ValueError, f"shard={{{name!r}: {entry!r}}}: {n!r} is not "
                             f"an axis of mesh={mesh_axes}",
                             f"mesh axes: {', '.join(mesh_axes)}")
            if n in used:
                raise _error(ValueError, f"shard={{{name!r}: {entry!r}}} uses mesh axis "
                             f"{n!r} twice", "each mesh axis splits at most one axis")
            used.append(n)
        out.append(item if isinstance(item, str) else tuple(names))
    return tuple(out)


def freeze(value):
    """A hashable copy of nested dicts, lists and tuples."""
    if isinstance(value, dict):
        return tuple((k, freeze(v)) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return tuple(freeze(v) for v in value)
    try:
        hash(value)
    except TypeError:       # not a valid spec: ShardSpec says why
        return ("unhashable", id(value))
    return value
