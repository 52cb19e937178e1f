"""The import structure of docs/architecture.md, checked on the source.

Every module belongs to one layer (the longest folder prefix in LAYERS decides); an import
may point to its own layer or a lower one, never up. Module-level imports form no cycle
(importing a module also runs its packages' `__init__`, so those count as edges). An
import inside a function is allowed only where a module waits for a heavy dependency on
purpose, and each such place is listed here with the reason.
"""
import ast
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# lowest first; a module's layer is the one whose prefix matches it longest
LAYERS = [
    ("base", ("transpiler.base",)),
    ("transpiler", ("transpiler",)),
    ("staging", ("runtime.staging",)),
    ("lowering", ("runtime.lowering",)),
    ("numpy", ("runtime.numpy",)),
    ("operators", ("runtime.operators",)),
    ("xla and cache", ("runtime.xla", "runtime.cache")),
    ("driver", ("runtime.driver", "runtime", "")),
]

# module -> why it imports project modules inside functions (all else: module level)
LAZY = {
    "": "`import npxla` stays light: `jit` (the driver, JAX) loads on first use",
    "runtime.driver.commands.emit": "the runtime imports JAX; `npxla lint` must not",
    "runtime.driver.commands.devices": "the XLA backends import JAX; `npxla lint` must not",
    "runtime.driver.commands.lint": "a missing or broken linter must not break the CLI",
    "runtime.driver.commands.convert": "a missing or broken linter must not break convert",
}


def _modules():
    found = {"": os.path.join(ROOT, "__init__.py"), "__main__": os.path.join(ROOT, "__main__.py")}
    for top in ("transpiler", "runtime"):
        for dirpath, _, files in os.walk(os.path.join(ROOT, top)):
            for f in files:
                if f.endswith(".py"):
                    rel = os.path.relpath(os.path.join(dirpath, f), ROOT)[:-3]
                    name = rel.replace(os.sep, ".")
                    found[name[:-len(".__init__")] if name.endswith(".__init__") else name] = \
                        os.path.join(dirpath, f)
    return found


MODULES = _modules()


def _layer(module):
    best = None
    for rank, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            if module == p or module.startswith(p + ".") or p == "":
                if best is None or len(p) > best[1]:
                    best = (rank, len(p))
    return best[0]


def _target(name):
    """The project module an absolute `npxla....` name refers to, or None."""
    if name == "npxla":
        return ""
    if not name.startswith("npxla."):
        return None
    name = name[len("npxla."):]
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or ""


def _resolve(module, path, node):
    """Absolute project module names one import statement loads."""
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        base = node.module or ""
        if node.level:        # relative (the root package's own files use them)
            package = module.split(".") if path.endswith("__init__.py") else \
                module.split(".")[:-1]
            package = package[:len(package) - node.level + 1]
            base = ".".join(["npxla"] + [p for p in package if p] + ([base] if base else []))
        names = [base] + [f"{base}.{a.name}" for a in node.names]
    out = set()
    for n in names:
        t = _target(n)
        if t is not None and t != module:
            out.add(t)
    return out


def _imports():
    """{module: (module-level targets, in-function targets)}."""
    result = {}
    for module, path in MODULES.items():
        tree = ast.parse(open(path).read())
        top, inner = set(), set()

        def visit(node, in_function):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.Import, ast.ImportFrom)):
                    (inner if in_function else top).update(_resolve(module, path, child))
                visit(child, in_function or isinstance(
                    child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))
        visit(tree, False)
        result[module] = (top, inner)
    return result


IMPORTS = _imports()


def _ancestor(package, module):
    return package == "" or module.startswith(package + ".")


def _with_packages(module, targets):
    """The modules an import runs: the target and its packages' `__init__`, except the
    packages `module` is in (they are being imported already)."""
    out = set()
    for t in targets:
        if not _ancestor(t, module):
            out.add(t)
        parent = t.rpartition(".")[0] if t else None
        while parent:
            if not _ancestor(parent, module):
                out.add(parent)
            parent = parent.rpartition(".")[0]
    out.discard(module)
    return out


def test_no_import_points_up_a_layer():
    upward = []
    for module, (top, inner) in IMPORTS.items():
        for t in top | inner:
            if _layer(t) > _layer(module) and module not in LAZY:
                upward.append(f"{module} ({LAYERS[_layer(module)][0]}) -> "
                              f"{t} ({LAYERS[_layer(t)][0]})")
    assert upward == []


def test_module_level_imports_have_no_cycle():
    graph = {m: _with_packages(m, top) for m, (top, _) in IMPORTS.items()}
    state, stack, cycles = {}, [], []

    def walk(m):
        state[m] = "open"
        stack.append(m)
        for t in sorted(graph.get(m, ())):
            if state.get(t) == "open":
                cycles.append(stack[stack.index(t):] + [t])
            elif t not in state:
                walk(t)
        stack.pop()
        state[m] = "done"
    for m in sorted(graph):
        if m not in state:
            walk(m)
    assert cycles == []


def test_imports_inside_functions_are_only_the_listed_lazy_ones():
    found = sorted(m for m, (_, inner) in IMPORTS.items() if inner)
    assert found == sorted(m for m in LAZY if IMPORTS.get(m, (0, ()))[1])
    stale = [m for m in LAZY if m not in MODULES or not IMPORTS[m][1]]
    assert stale == [], "listed as lazy but no longer imports inside a function"


@pytest.mark.parametrize("package", ["transpiler"])
def test_the_front_end_imports_no_jax_and_no_runtime(package):
    bad = []
    for module, path in MODULES.items():
        if module != package and not module.startswith(package + "."):
            continue
        for node in ast.walk(ast.parse(open(path).read())):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            else:
                continue
            bad += [f"{module}: {n}" for n in names
                    if n.split(".")[0] in ("jax", "jaxlib") or n.startswith("npxla.runtime")]
    assert bad == []
