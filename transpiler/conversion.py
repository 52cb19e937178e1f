"""Function -> converted function (parse, run the converter passes, load)."""
from __future__ import annotations

import weakref

from .converters import PASSES
from .converters.context import Context
from .pyct import loader
from .pyct.parser import SourceUnavailable, parse_function

_CACHE: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def convert_ast(fn):
    """(converted gast FunctionDef, filename). Raises SourceUnavailable."""
    node, filename, _ = parse_function(fn)
    node.decorator_list = []
    ctx = Context(filename, fn.__name__)
    for converter in PASSES:
        node = converter.transform(node, ctx)
    return node, filename


def converted_source(fn) -> str:
    node, _ = convert_ast(fn)
    return loader.source_of(node)


def convert(fn):
    """The converted twin of `fn` (cached); `fn` itself when it has no usable source."""
    hit = _CACHE.get(fn)
    if hit is not None:
        return hit
    try:
        node, filename = convert_ast(fn)
    except SourceUnavailable:
        return fn
    from runtime import operators  # runtime imported lazily: transpiler stays JAX-free
    new = loader.load(node, fn, filename, operators)
    new.__npxla_source__ = loader.source_of(node)
    new.__npxla_source_file__ = loader.source_file(
        f"{fn.__module__}.{fn.__qualname__}".replace("<", "_").replace(">", "_"),
        new.__npxla_source__)
    _CACHE[fn] = new
    return new
