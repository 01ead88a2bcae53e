"""The error tree: one root per side, every kind drawn in the one docstring, no exception
class name used twice anywhere in the code, statuses mapped in one place."""

from __future__ import annotations

import ast
import builtins
from collections import Counter
from pathlib import Path

import redline_errors
from redline_errors import HTTP_STATUS, RedlineError, http_status

ROOT = Path(__file__).resolve().parents[1]
SOURCES = [
    path
    for package in ("project", "analyses", "validation")
    for path in sorted((ROOT / package).rglob("*.py"))
    if "migrations" not in path.parts
] + [ROOT / "redline_errors.py"]


def _classes() -> list[tuple[str, list[str], Path]]:
    found = []
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.ClassDef):
                bases = [
                    base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", "")
                    for base in node.bases
                ]
                found.append((node.name, bases, path))
    return found


def _exception_classes() -> list[tuple[str, list[str], Path]]:
    """Classes deriving from an exception, by name, followed through the code (a fixpoint)."""
    classes = _classes()
    names = {
        name
        for name in dir(builtins)
        if isinstance(getattr(builtins, name), type)
        and issubclass(getattr(builtins, name), BaseException)
    }
    names |= {"HttpError", "ValidationError"}  # third-party roots our classes derive from
    changed = True
    while changed:
        changed = False
        for name, bases, _ in classes:
            if name not in names and any(base in names for base in bases):
                names.add(name)
                changed = True
    return [entry for entry in classes if entry[0] in names and entry[1]]


def _tree() -> list[type[RedlineError]]:
    return [
        value
        for value in vars(redline_errors).values()
        if isinstance(value, type) and issubclass(value, RedlineError)
    ]


def test_no_exception_class_name_is_used_twice() -> None:
    counts = Counter(name for name, _, _ in _exception_classes())

    assert [name for name, count in counts.items() if count > 1] == []


def test_every_redline_error_is_defined_in_the_tree_module() -> None:
    tree = {kind.__name__ for kind in _tree()}
    elsewhere = [
        f"{name} in {path.relative_to(ROOT)}"
        for name, bases, path in _exception_classes()
        if path.name != "redline_errors.py" and any(base in tree for base in bases)
    ]

    assert elsewhere == []


def test_the_docstring_draws_every_kind_of_the_tree() -> None:
    doc = redline_errors.__doc__ or ""
    missing = [kind.__name__ for kind in _tree() if f" {kind.__name__} " not in doc]

    assert missing == []
    assert set(redline_errors.__all__) >= {kind.__name__ for kind in _tree()}


def test_every_status_is_mapped_in_one_place() -> None:
    for kind, status in HTTP_STATUS.items():
        assert f"-> {status}" in (redline_errors.__doc__ or "")
        assert http_status(kind("x")) == status
    assert http_status(redline_errors.FixesUndecided("x")) == 409
    assert http_status(RedlineError("x")) == 400
