"""One converter per construct, run in a fixed order (see PASSES).

Each module exposes `transform(node, ctx) -> node`. Order matters: the unsupported
check runs first; `assert` becomes an `if` that raises, before the jump converters see it;
counted `while` loops are marked (`counted_loops`) while their bodies are still as written;
`break`/`continue`/`return` become flags before anything else, so
the control-flow pass only sees `if`/`while`/`for`; item assignment (and
attribute stores, `attribute_stores`) is rewritten before calls (so the generated `ag__.*` calls are
recognised and left alone by the call converter); control flow is converted before the expression converters, which
then also reach the tests and lambdas it generated.
"""
from npxla.transpiler.converters import (append_loops, asserts, bit_count_loops, list_items, break_statements, call_trees,
                                         comprehensions, conditional_expressions, continue_statements,
                                         control_flow, counted_loops, fstrings,
                                         logical_expressions,
                                         return_statements, attribute_stores, except_handlers,
                                         global_stores, private_names,
                                         slices,
                                         unsupported)

PASSES = (unsupported, private_names, except_handlers, global_stores, asserts, bit_count_loops, list_items, counted_loops, append_loops,
          break_statements, continue_statements, return_statements, slices,
          attribute_stores, fstrings, comprehensions, call_trees, control_flow, conditional_expressions, logical_expressions)
