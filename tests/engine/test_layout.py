"""The engine's layout holds: small modules, imports that run one way, no Django.

- No engine module is over 500 lines.
- No import cycle between engine modules, nor between the children (modules and
  subpackages) of any engine package: ``checks`` may use ``types``, never the reverse
  through others. Imports inside functions and under ``if TYPE_CHECKING:`` count.
- The engine imports no Django (nor a Django library) and neither app: not
  ``analyses``, not ``validation`` outside the engine, not ``project``.
- Every exception the engine defines derives from ``EngineError``, and no other class
  in the repository has the name of one of them.
- What ``validation.engine`` exports resolves; the numeric check's modules are private
  (a leading underscore) behind its package, and a private module is imported only
  inside its own package.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest

import validation.engine
from validation.engine.errors import EngineError

ROOT = Path(__file__).resolve().parents[2]
ENGINE = "validation.engine"
ENGINE_DIR = ROOT / "validation" / "engine"
MAX_LINES = 500
FORBIDDEN_ROOTS = {"django", "ninja", "celery", "rest_framework", "analyses", "project"}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES: dict[str, Path] = {_module_name(path): path for path in sorted(ENGINE_DIR.rglob("*.py"))}
PACKAGES = {name for name, path in MODULES.items() if path.name == "__init__.py"}


def _imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement, at any depth (in functions, under ``TYPE_CHECKING``)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node


def _absolute(module: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".")
    if module not in PACKAGES:
        base.pop()
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def _imported(module: str) -> set[str]:
    """Every module name ``module`` imports (``from pkg import submodule`` names the
    submodule; ``from pkg import name`` names the package)."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in _imports(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
            continue
        source = _absolute(module, node)
        for alias in node.names:
            child = f"{source}.{alias.name}"
            found.add(child if child in MODULES else source)
    return found


IMPORTS = {module: _imported(module) for module in MODULES}


def _engine_edges(module: str) -> set[str]:
    return {name for name in IMPORTS[module] if name in MODULES and name != module}


def _cycle(graph: dict[str, set[str]]) -> list[str]:
    """One cycle of ``graph`` (as a path), or []."""
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        path.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                return [*path[path.index(target) :], target]
            if target not in state:
                found = visit(target)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return []

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return []


def test_the_graph_sees_the_engine() -> None:
    assert f"{ENGINE}.pipeline" in MODULES
    assert f"{ENGINE}.checks.numeric._check" in MODULES
    assert f"{ENGINE}.types" in _engine_edges(f"{ENGINE}.pipeline")


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_engine_module_is_over_500_lines(module: str) -> None:
    lines = len(MODULES[module].read_text(encoding="utf-8").splitlines())

    assert lines <= MAX_LINES, f"{MODULES[module].relative_to(ROOT)} has {lines} lines"


def test_no_import_cycle_between_engine_modules() -> None:
    graph = {module: _engine_edges(module) for module in MODULES}

    assert _cycle(graph) == []


@pytest.mark.parametrize("package", sorted(PACKAGES))
def test_no_import_cycle_between_the_parts_of_a_package(package: str) -> None:
    """Within ``package``, a child (module or subpackage) depends on another when any
    module inside it imports any module inside the other; ``__init__`` is a child too."""

    def child(module: str) -> str | None:
        if module == package:
            return "__init__"
        if not module.startswith(package + "."):
            return None
        return module[len(package) + 1 :].split(".")[0]

    graph: dict[str, set[str]] = defaultdict(set)
    for module in MODULES:
        source = child(module)
        if source is None:
            continue
        graph[source]
        for target_module in _engine_edges(module):
            target = child(target_module)
            if target is not None and target != source:
                graph[source].add(target)

    assert _cycle(graph) == []


@pytest.mark.parametrize("module", sorted(MODULES))
def test_the_engine_imports_no_django_and_neither_app(module: str) -> None:
    bad = sorted(
        name
        for name in IMPORTS[module]
        if name.split(".")[0] in FORBIDDEN_ROOTS
        or (
            name.split(".")[0] == "validation"
            and not name.startswith(ENGINE)
            and name != "validation"
        )
    )

    assert bad == []


def _engine_exceptions() -> dict[str, type[BaseException]]:
    found: dict[str, type[BaseException]] = {}
    for module in MODULES:
        if module.endswith("__main__"):
            continue
        loaded = importlib.import_module(module)
        for name, value in vars(loaded).items():
            if (
                inspect.isclass(value)
                and issubclass(value, BaseException)
                and value.__module__ == module
            ):
                found[name] = value
    return found


def test_every_engine_exception_derives_from_engine_error() -> None:
    exceptions = _engine_exceptions()

    assert "EngineError" in exceptions and len(exceptions) > 5
    assert [name for name, error in exceptions.items() if not issubclass(error, EngineError)] == []


def test_no_other_class_in_the_repository_has_an_engine_exception_name() -> None:
    names = set(_engine_exceptions())
    clashes = []
    for folder in ("project", "analyses", "validation", "tests", "bench"):
        for path in (ROOT / folder).rglob("*.py"):
            if ENGINE_DIR in path.parents:
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            clashes += [
                f"{path.relative_to(ROOT)}: {node.name}"
                for node in ast.walk(tree)
                if isinstance(node, ast.ClassDef) and node.name in names
            ]

    assert clashes == []


def test_the_public_names_resolve() -> None:
    assert validation.engine.__all__
    for name in validation.engine.__all__:
        assert getattr(validation.engine, name) is not None, name
    assert validation.engine.validate.__module__ == f"{ENGINE}.pipeline"


def test_the_numeric_checks_modules_are_private() -> None:
    package = f"{ENGINE}.checks.numeric"
    public = [
        module
        for module in MODULES
        if module.startswith(package + ".") and not module.rsplit(".", 1)[1].startswith("_")
    ]

    assert public == []


@pytest.mark.parametrize("module", sorted(MODULES))
def test_a_private_module_is_imported_only_inside_its_package(module: str) -> None:
    """``checks.numeric._extract`` is for ``checks.numeric``; the pipeline uses what the
    package exports."""
    outside = sorted(
        target
        for target in _engine_edges(module)
        if target.rsplit(".", 1)[1].startswith("_")
        and target not in PACKAGES
        and not (module + ".").startswith(target.rsplit(".", 1)[0] + ".")
    )

    assert outside == []
