"""Function -> converted function (parse, run the converter passes, load).

npxla compiles control flow from *source*. A function whose source cannot be read (typed
into the interactive interpreter, built with exec/eval) is refused with
`SourceUnavailableError`: run unconverted, its data-dependent `if` would fail later with
a misleading message, and its `print` and type checks would silently differ. Lambdas
are converted like functions (their ternaries, `and`/`or` and the calls they make: a
helper they call is converted, a NumPy or SciPy call lowered); only a lambda without
readable source runs as it is, since its body has no statements that could differ. A
bound method converts its function and stays bound to its object.
"""
from __future__ import annotations

import functools
from inspect import CO_GENERATOR
import types
import weakref

from npxla.transpiler import type_queries
from npxla.transpiler.converters import PASSES
from npxla.transpiler.converters.context import Context
from npxla.transpiler.converters.private_names import innermost_class
from npxla.transpiler.base.catalogue import GENERATOR
from npxla.transpiler.base.errors import ConcretizationError, SourceUnavailableError
from npxla.transpiler.converters import unsupported
from npxla.transpiler.pyct import loader
from npxla.transpiler.base.origin import locate, register_code
from npxla.transpiler.pyct.parser import SourceUnavailable, parse_function

_CACHE: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def convert_ast(fn):
    """(converted gast FunctionDef, filename). Raises SourceUnavailable."""
    node, filename, _ = parse_function(fn)
    node.decorator_list = []
    ctx = Context(filename, fn.__name__,
                  innermost_class(getattr(fn, "__qualname__", fn.__name__)))
    for converter in PASSES:
        node = converter.transform(node, ctx)
    node = type_queries.transform(node, ctx)
    return node, filename


def refuse_generator(fn):
    """The refusal of a jitted function that is itself a generator (see
    `unsupported.generator_error`), at its first `yield`."""
    try:
        node, filename, _ = parse_function(fn)
    except SourceUnavailable:
        return GENERATOR.error_for(what="yield")
    return unsupported.generator_error(node, filename) or GENERATOR.error_for(what="yield")


def converted_source(fn) -> str:
    """The converted source of `fn` as the jitted function (`to_source`)."""
    if getattr(fn, "__code__", None) is not None and fn.__code__.co_flags & CO_GENERATOR:
        raise refuse_generator(fn)
    try:
        node, _ = convert_ast(fn)
    except SourceUnavailable as e:
        raise _no_source(fn, e) from None
    return loader.source_of(node)


def convert(fn, operators):
    """The converted twin of `fn` (cached), calling `operators` (the runtime's `ag__`
    namespace, which the caller passes so that this layer imports no runtime). Callables
    that are not Python functions, and lambdas without readable source, are returned as
    they are; a function without readable source raises SourceUnavailableError."""
    if isinstance(fn, types.MethodType) and isinstance(fn.__func__, types.FunctionType):
        return types.MethodType(convert(fn.__func__, operators), fn.__self__)
    if not isinstance(fn, types.FunctionType):
        return fn
    hit = _CACHE.get(fn)
    if hit is not None:
        return hit
    try:
        node, filename = convert_ast(fn)
    except SourceUnavailable as e:
        if fn.__name__ != "<lambda>":
            raise _no_source(fn, e) from None
        new = _CACHE[fn] = _as_is(fn)
        return new
    new = _load(node, fn, filename, operators)
    new.__npxla_source__ = loader.source_of(node)
    new.__npxla_source_file__ = loader.source_file(
        f"{fn.__module__}.{fn.__qualname__}".replace("<", "_").replace(">", "_"),
        new.__npxla_source__)
    _CACHE[fn] = new
    return new


def _as_is(fn):
    """A lambda without readable source, run unconverted: a condition on traced values
    inside it (a ternary, `and`/`or`) cannot become XLA control flow, and the error says
    so."""
    @functools.wraps(fn)
    def run(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except ConcretizationError as e:
            if locate(e.__traceback__) is None:     # not from converted code it called
                e.hint = ("this lambda has no source file (eval, the interactive "
                          "interpreter), so it runs unconverted and a condition on array "
                          "data inside it (a ternary, and/or) cannot be compiled: define "
                          "the function in a .py file, or use np.where")
            raise
    return run


def _load(node, fn, filename, operators):
    """`loader.load` under a private name: inside the loader's factory the function's own
    name would be a closure variable holding the converted twin, so a recursive call
    would bypass `converted_call` (and its recursion check) and the guards' substituted
    globals. The code keeps the user's name for tracebacks."""
    name = node.name
    node.name = f"{name}__npxla_converted"
    try:
        new = loader.load(node, fn, filename, operators)
    finally:
        node.name = name
    names = {"co_name": fn.__code__.co_name}     # `<lambda>` for a lambda
    if hasattr(fn.__code__, "co_qualname"):        # Python 3.11+
        names["co_qualname"] = fn.__code__.co_qualname
    new.__code__ = new.__code__.replace(**names)
    register_code(new.__code__)
    return new


def _no_source(fn, reason):
    """The refusal for `fn`, whose source `parse_function` could not use."""
    name = getattr(fn, "__qualname__", getattr(fn, "__name__", repr(fn)))
    code = getattr(fn, "__code__", None)
    where = f" (defined in {code.co_filename})" if code is not None else ""
    text = str(reason)
    if text == "lambda":
        return SourceUnavailableError(
            f"{name}{where} is a lambda that cannot be told from another lambda on its "
            "line", hint="define it with def, or put it on a line of its own")
    if text.startswith("cannot parse source"):
        why = f"the source of function {name!r}{where} cannot be parsed ({text})"
    elif text.startswith("source is not"):
        why = (f"the source of function {name!r}{where} is not its own function "
               "definition (was it renamed, or created by another function's source?)")
    else:
        why = (f"the source of function {name!r}{where} cannot be read: it was defined "
               "in the interactive interpreter or with exec/eval")
    return SourceUnavailableError(
        f"{why}; jit needs a function defined in a .py file, because it compiles "
        "control flow from the source")


def to_source(fun) -> str:
    """The converted Python source of `fun` (what `@jit` stages)."""
    fun = getattr(fun, "__wrapped__", fun)
    return converted_source(fun)
