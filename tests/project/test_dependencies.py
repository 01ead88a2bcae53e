"""The shape of the code, checked: dependencies run one way and modules stay small.

Every import counts, including those inside functions. The rules (ARCHITECTURE.md):

- ``analyses`` (what was submitted) never imports ``validation`` (what happens to it); both
  may use the engine library, ``validation.engine``.
- The engine imports no Django and neither app, nor ``project``.
- The apps never import ``project`` (settings, urls, the Celery app import them).
- Within ``project``, ``analyses`` and ``validation`` no module depends on itself through
  others, except by the named back edges: ``validation.services.jobs`` and
  ``validation.services.webhooks`` send the ``validation.tasks`` tasks whose bodies call them.
- ``validation.web`` (pages) and ``validation.api`` (the REST API) are the two front doors:
  nothing imports them but the URL root, the template tags (web) and the export command (api),
  and neither imports the other.
- No package depends on itself through other packages: an app's subpackages
  (``validation.services``, ``validation.web`` …) and the modules directly in an app are the
  nodes, with the named back edges allowed (the engine's own packages are left to the
  engine's rules).
- No module outside the engine and the migrations is over 500 lines.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("project", "analyses", "validation")
TOP_MODULES = ("redline_errors",)  # the Django side's error tree, shared by both apps
ENGINE = "validation.engine"
ALLOWED_BACK_EDGES = {
    ("validation.services.jobs", "validation.tasks"),
    ("validation.services.webhooks", "validation.tasks"),
}
MAX_LINES = 500


def _modules() -> dict[str, Path]:
    modules: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = path
    for name in TOP_MODULES:
        modules[name] = ROOT / f"{name}.py"
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
            if name.split(".")[0] in (*PACKAGES, *TOP_MODULES, "django"):
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


def test_the_error_tree_imports_nothing_of_ours() -> None:
    assert GRAPH["redline_errors"] == set()


def test_the_graph_sees_imports_inside_functions() -> None:
    assert "validation.tasks" in GRAPH["validation.services.jobs"]
    assert "validation.services" in GRAPH["validation.tasks"]


def test_analyses_never_imports_validation_beyond_the_engine() -> None:
    edges = [edge for edge in _edges("analyses", "validation") if ENGINE not in edge.split()[-1]]

    assert edges == []


@pytest.mark.parametrize("forbidden", ["django", "analyses", "project", "validation", *TOP_MODULES])
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


FRONT_DOORS = {
    "validation.web": ("project.urls", "validation.templatetags"),
    "validation.api": ("project.urls", "validation.management.commands.export_approved"),
}


@pytest.mark.parametrize("door", sorted(FRONT_DOORS))
def test_only_the_url_root_and_named_modules_import_web_and_api(door: str) -> None:
    edges = [
        f"{module} imports {imported}"
        for module, imports in sorted(GRAPH.items())
        for imported in sorted(imports)
        if _within(imported, door)
        and not _within(module, door)
        and not any(_within(module, allowed) for allowed in FRONT_DOORS[door])
    ]

    assert edges == []


def _node_of(module: str) -> str:
    """Where a module sits for the package rule: its app's subpackage (``validation.services``
    for ``validation.services.review``), or itself when it sits directly in an app."""
    return ".".join(module.split(".")[:2])


def _package_cycles() -> list[tuple[str, str]]:
    """Pairs of subpackages (or app-level modules) that reach each other, outside the engine."""
    edges: dict[str, set[str]] = {}
    for module, imports in GRAPH.items():
        if _within(module, ENGINE):
            continue
        for target in imports:
            if target not in MODULES or _within(target, ENGINE):
                continue
            if (module, target) in ALLOWED_BACK_EDGES:
                continue
            source, dest = _node_of(module), _node_of(target)
            if source != dest:
                edges.setdefault(source, set()).add(dest)

    def reach(start: str) -> set[str]:
        seen: set[str] = set()
        todo = [start]
        while todo:
            for nxt in edges.get(todo.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    reachable = {node: reach(node) for node in edges}
    return sorted(
        (a, b) for a in reachable for b in reachable[a] if a < b and a in reachable.get(b, ())
    )


def test_no_cycles_between_packages() -> None:
    assert _package_cycles() == []


def test_no_module_outside_the_engine_and_migrations_is_over_500_lines() -> None:
    long = {
        name: count
        for name, path in MODULES.items()
        if not _within(name, ENGINE) and ".migrations" not in name
        if (count := len(path.read_text("utf-8").splitlines())) > MAX_LINES
    }

    assert long == {}
