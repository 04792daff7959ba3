"""No import circles between polymask's modules (or the benchmarks').

A circle makes the import order matter and hides which module owns what.
Every import counts, top-level or inside a function: an import deferred to
dodge a circle is still a circle.  Imports of a module's own enclosing
packages (their ``__init__``) are left out, since importing the module runs
them anyway; ``from polymask import _core`` counts as an edge to
``polymask._core``.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests._support import ABOVE_THE_LIBRARY

ROOT = Path(__file__).resolve().parent.parent
TREES = {"polymask": ROOT / "src" / "polymask", "benchmarks": ROOT / "benchmarks"}


def _modules(package: str, folder: Path) -> dict[str, Path]:
    found = {}
    for path in folder.rglob("*.py"):
        parts = path.relative_to(folder).with_suffix("").parts
        name = ".".join((package, *parts))
        found[name.removesuffix(".__init__")] = path
    return found


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    edges = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            # `from pkg import sub` imports the submodule; `from pkg import name`, pkg itself.
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            # A module's own packages run before it whatever it imports: no edge.
            if target and target != name and not name.startswith(target + "."):
                edges.add(target)
    return edges


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on_stack, found, counter = {}, {}, [], set(), [], [0]

    def visit(node):
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for target in graph[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


@pytest.mark.parametrize("tree", sorted(TREES))
def test_no_import_circles(tree):
    modules = {}
    for package, folder in TREES.items():
        modules.update(_modules(package, folder))
    graph = {name: _imports(name, path, set(modules)) for name, path in modules.items()}
    circles = [circle for circle in _cycles(graph) if circle[0].split(".")[0] == tree]
    assert circles == []


def test_the_check_finds_a_circle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


# ---- the layers ----------------------------------------------------------------


def _is_above(module: str) -> bool:
    return any(module == top or module.startswith(top + ".") for top in ABOVE_THE_LIBRARY)


def _graph() -> dict[str, set[str]]:
    modules = _modules("polymask", TREES["polymask"])
    return {name: _imports(name, path, set(modules)) for name, path in modules.items()}


def _layer_violations(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    """(library module, module above it) for every import that points upward."""
    return sorted((name, target) for name, targets in graph.items() if not _is_above(name)
                  for target in targets if _is_above(target))


def test_the_library_never_imports_the_course_the_runner_or_the_cli():
    graph = _graph()
    assert {"polymask._api", "polymask.course.stages", "polymask.bench", "polymask.cli"} <= set(graph)
    assert _layer_violations(graph) == []


def test_the_layering_check_finds_an_upward_import():
    graph = {"polymask._api": {"polymask.course.stages"}, "polymask.course.stages": {"polymask._api"},
             "polymask.cli": {"polymask.course.checker"}}
    assert _layer_violations(graph) == [("polymask._api", "polymask.course.stages")]

