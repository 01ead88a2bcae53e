"""The shape of the code, checked: dependencies run one way and modules stay small.

Every import counts, including those inside functions. The rules (ARCHITECTURE.md):

- ``analyses`` (what was submitted) never imports ``validation`` (what happens to it); both
  may use the engine library, ``validation.engine``.
- The engine imports no Django and neither app, nor ``project``.
- The apps never import ``project`` (settings, urls, the Celery app import them).
- Within ``project``, ``analyses`` and ``validation`` no module depends on itself through
  others, except by the one named back edge: ``validation.services.jobs`` sends the
  ``validation.tasks`` task whose body calls the services.
- No module outside the engine and the migrations is over 500 lines.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("project", "analyses", "validation")
ENGINE = "validation.engine"
ALLOWED_BACK_EDGES = {("validation.services.jobs", "validation.tasks")}
MAX_LINES = 500


def _modules() -> dict[str, Path]:
    modules: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = path
    return modules


MODULES = _modules()


def _imports(path: Path) -> Iterator[str]:
    """Every first-party module `path` imports, at any depth of its code."""
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            # `from validation import services` imports the module validation.services.
            names = [
                f"{node.module}.{alias.name}"
                if f"{node.module}.{alias.name}" in MODULES
                else node.module
                for alias in node.names
            ]
        else:
            continue
        for name in names:
            if name.split(".")[0] in PACKAGES or name.split(".")[0] == "django":
                yield name


GRAPH = {name: set(_imports(path)) for name, path in MODULES.items()}


def _within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def _edges(source: str, target: str) -> list[str]:
    return [
        f"{module} imports {imported}"
        for module, imports in sorted(GRAPH.items())
        if _within(module, source)
        for imported in sorted(imports)
        if _within(imported, target)
    ]


def test_the_graph_sees_imports_inside_functions() -> None:
    assert "validation.tasks" in GRAPH["validation.services.jobs"]
    assert "validation.services" in GRAPH["validation.tasks"]


def test_analyses_never_imports_validation_beyond_the_engine() -> None:
    edges = [edge for edge in _edges("analyses", "validation") if ENGINE not in edge.split()[-1]]

    assert edges == []


@pytest.mark.parametrize("forbidden", ["django", "analyses", "project", "validation"])
def test_the_engine_imports_no_django_and_neither_app(forbidden: str) -> None:
    edges = [edge for edge in _edges(ENGINE, forbidden) if not _within(edge.split()[-1], ENGINE)]

    assert edges == []


@pytest.mark.parametrize("app", ["analyses", "validation"])
def test_the_apps_never_import_the_project_package(app: str) -> None:
    assert _edges(app, "project") == []


def _cycles() -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    graph = {
        name: sorted(
            target
            for target in imports
            if target in MODULES and (name, target) not in ALLOWED_BACK_EDGES
        )
        for name, imports in GRAPH.items()
    }
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, child = work.pop()
            if child == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            if child < len(graph[node]):
                work.append((node, child + 1))
                target = graph[node][child]
                if target not in index:
                    work.append((target, 0))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(sorted(component))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return components


def test_no_import_cycles_but_the_named_task_service_edge() -> None:
    assert _cycles() == []


def test_the_named_back_edge_is_the_only_one_needed() -> None:
    """Dropping the allowance would report the tasks <-> services cycle: it is real."""
    assert all(target in GRAPH[source] for source, target in ALLOWED_BACK_EDGES)


def test_no_module_outside_the_engine_and_migrations_is_over_500_lines() -> None:
    long = {
        name: count
        for name, path in MODULES.items()
        if not _within(name, ENGINE) and ".migrations" not in name
        if (count := len(path.read_text("utf-8").splitlines())) > MAX_LINES
    }

    assert long == {}
