"""The import graph: no cycle (module level or inside functions), and no import upward.

Every module of the packages is parsed with `ast`; each `import` anywhere in it (a function-
level import hides a loop as well as it hides a cost) is an edge to the most specific module
it names. A cycle, or an edge across a forbidden boundary, fails with the path.
"""

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("app", "bench", "graphs", "models", "nodes", "prompts", "stores", "training")
FORBIDDEN = {
    "models": ("training", "bench", "app", "graphs", "nodes", "stores"),
    "bench": ("app", "training"),
    "graphs": ("app", "bench", "training"),
    "nodes": ("app", "bench", "training"),
    "stores": ("app", "bench", "training", "graphs", "nodes"),
}
"""For each package, the packages it must never import (runtime never imports training or
benchmark code; training is the layer above bench, which measures it; the ground floor imports
nothing above it)."""


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


MODULES = _modules()


def _resolve(name: str) -> str | None:
    """Return the most specific known module `name` refers to (None: outside the packages)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _imported(module: str, tree: ast.AST) -> Iterator[str]:
    package = module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the package, `level - 1` packages up
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                full = f"{base}.{alias.name}"
                yield full if full in MODULES else base


def import_graph() -> dict[str, set[str]]:
    """Return module -> the modules of the packages it imports (anywhere in its body)."""
    graph: dict[str, set[str]] = {}
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        targets = {_resolve(name) for name in _imported(module, tree)}
        graph[module] = {t for t in targets if t is not None and t != module}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """Return one cycle as a path (first module repeated at the end), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                return [*path[path.index(target) :], target]
            if target not in state and (cycle := visit(target)):
                return cycle
        state[node] = 2
        path.pop()
        return None

    for start in sorted(graph):
        if start not in state and (cycle := visit(start)):
            return cycle
    return None


def test_the_cycle_finder_finds_a_cycle_and_accepts_a_tree():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_function_level_and_relative_imports_are_edges(tmp_path):
    source = "def f():\n    from graphs.context import Context\n    import models.text\n"
    edges = {_resolve(n) for n in _imported("nodes.retrieve", ast.parse(source))}
    assert edges == {"graphs.context", "models.text"}


def test_no_import_cycle():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_no_import_upward(package):
    upward = sorted(
        f"{module} -> {target}"
        for module, targets in import_graph().items()
        if module.split(".")[0] == package
        for target in targets
        if target.split(".")[0] in FORBIDDEN[package]
    )
    assert upward == []


BENCH_LAYERS = {
    "bench.harness.evaluate": ("bench.reports", "bench.suites"),
    "bench.reports": ("bench.suites",),
}
"""Inside bench: the harness runs benchmarks, reports read their results, suites use both."""


@pytest.mark.parametrize("layer", sorted(BENCH_LAYERS))
def test_bench_layers_import_downward_only(layer):
    def inside(module: str, prefix: str) -> bool:
        return module == prefix or module.startswith(prefix + ".")

    upward = sorted(
        f"{module} -> {target}"
        for module, targets in import_graph().items()
        if inside(module, layer)
        for target in targets
        if any(inside(target, above) for above in BENCH_LAYERS[layer])
    )
    assert upward == []
