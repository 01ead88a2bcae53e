"""`manage.py import_bundles`: .json, .jsonl and a pipeline's context.md + response.md pair
(docs/spec.md §2.2)."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command

from analyses.models import Analysis
from tests.support.bundles import row_counts

pytestmark = pytest.mark.django_db

PAIR = Path(__file__).resolve().parents[3] / "analyses" / "demo" / "pair"


def _import(*args: str) -> tuple[str, CommandError | None]:
    out = StringIO()
    try:
        call_command("import_bundles", *args, stdout=out)
    except CommandError as exc:
        return out.getvalue(), exc
    return out.getvalue(), None


def _write(path: Path, bundle: dict[str, Any]) -> Path:
    path.write_text(json.dumps(bundle), "utf-8")
    return path


def test_a_json_file_is_imported(tmp_path: Path, bundle: Any) -> None:
    path = _write(tmp_path / "nvo.json", bundle)

    out, error = _import(str(path))

    analysis = Analysis.objects.get()
    assert error is None
    assert out.splitlines() == [
        f'{path}: created analysis {analysis.pk} "Novo Nordisk (NVO) quick screen"',
        "1 of 1 bundles imported",
    ]


def test_importing_again_reports_already_present_and_writes_nothing(
    tmp_path: Path, bundle: Any
) -> None:
    path = _write(tmp_path / "nvo.json", bundle)
    _import(str(path))
    before = row_counts()

    out, error = _import(str(path))

    assert error is None
    assert f"{path}: already present as analysis {Analysis.objects.get().pk}" in out
    assert row_counts() == before


def test_a_jsonl_file_imports_every_good_line_and_reports_bad_lines_by_number(
    tmp_path: Path, bundle: Any
) -> None:
    second = {**bundle, "external_id": "second"}
    lines = [
        json.dumps(bundle),
        "",  # blank lines are skipped, but still counted
        '{"query": "q", "body": ',  # malformed JSON
        json.dumps({**bundle, "external_id": "no-query", "query": None}),
        json.dumps(second),
    ]
    path = tmp_path / "batch.jsonl"
    path.write_text("\n".join(lines) + "\n", "utf-8")

    out, error = _import(str(path))

    assert Analysis.objects.count() == 2
    assert out.splitlines()[:4] == [
        f"{path}:1: created analysis {Analysis.objects.get(external_id='nvo-2024-q4').pk} "
        '"Novo Nordisk (NVO) quick screen"',
        f"{path}:3: error: malformed JSON at line 1 column 24: Expecting value",
        f"{path}:4: error: query: input should be a valid string",
        f"{path}:5: created analysis {Analysis.objects.get(external_id='second').pk} "
        '"Novo Nordisk (NVO) quick screen"',
    ]
    assert str(error) == "2 of 4 bundles imported; 2 failed"


def test_non_utf8_in_a_jsonl_line_is_reported_for_that_line(tmp_path: Path, bundle: Any) -> None:
    path = tmp_path / "batch.jsonl"
    bad = json.dumps(bundle).encode().replace(b"quick screen", b"quick \xe9 screen", 1)
    path.write_bytes(bad + b"\n")

    out, error = _import(str(path))

    assert f"{path}:1: error: title is not valid UTF-8 (byte 0xe9)" in out
    assert error is not None
    assert Analysis.objects.count() == 0


def test_the_context_pair_is_imported_through_read_seed(reviewer: User) -> None:
    out, error = _import(
        "--context",
        str(PAIR / "context.md"),
        "--response",
        str(PAIR / "response.md"),
        "--submitter",
        "dana",
        "--external-id",
        "pair-monitors",
    )

    assert error is None, out
    analysis = Analysis.objects.get()
    assert analysis.title == "Cheapest 27-inch 4K USB-C monitor under $300"
    assert analysis.query.startswith("What is the cheapest 27-inch 4K monitor under $300")
    assert analysis.goals == [
        "Cheapest 27-inch 4K monitor with USB-C under $300",
        "A link to buy it",
    ]
    assert analysis.submitter == reviewer
    assert analysis.external_id == "pair-monitors"
    assert [(e.source_ref, e.kind) for e in analysis.evidence.order_by("id")] == [
        ("memory-monitors: prior research", "context"),
        ("§4.1 retailer_search", "workflow_result"),
        ("§4.2 spec_check", "workflow_result"),
    ]
    assert analysis.revisions.get().body.startswith("# Cheapest 27-inch 4K USB-C monitor")
    assert "created analysis" in out

    again, error = _import(
        "--context",
        str(PAIR / "context.md"),
        "--response",
        str(PAIR / "response.md"),
        "--submitter",
        "dana",
        "--external-id",
        "pair-monitors",
    )
    assert error is None
    assert "already present" in again
    assert Analysis.objects.count() == 1


def test_a_context_pair_without_a_query_is_an_error(tmp_path: Path) -> None:
    context = tmp_path / "context.md"
    context.write_text("# Context\n\n## 4. Execution Progress\n\nNothing.\n", "utf-8")
    response = tmp_path / "response.md"
    response.write_text("# Answer\n\nText.\n", "utf-8")

    out, error = _import("--context", str(context), "--response", str(response))

    assert "error: cannot read the context pair: context.md has no §0 user query section" in out
    assert error is not None
    assert Analysis.objects.count() == 0


def test_a_pair_file_that_is_not_utf8_is_an_error(tmp_path: Path) -> None:
    context = tmp_path / "context.md"
    context.write_bytes(b"## 0. User Query\n\nQuery: caf\xe9?\n")
    response = tmp_path / "response.md"
    response.write_text("Answer.\n", "utf-8")

    out, error = _import("--context", str(context), "--response", str(response))

    assert f"{context} is not valid UTF-8 (byte 0xe9 at offset 28)" in out
    assert error is not None


def test_an_unknown_submitter_stops_before_importing(tmp_path: Path, bundle: Any) -> None:
    path = _write(tmp_path / "nvo.json", bundle)

    with pytest.raises(CommandError, match="--submitter: no user named 'nobody'"):
        call_command("import_bundles", str(path), "--submitter", "nobody", stdout=StringIO())

    assert Analysis.objects.count() == 0


def test_missing_files_and_other_extensions_are_errors_but_the_rest_still_imports(
    tmp_path: Path, bundle: Any
) -> None:
    good = _write(tmp_path / "nvo.json", bundle)
    notes = tmp_path / "notes.txt"
    notes.write_text("hello", "utf-8")

    out, error = _import(str(tmp_path / "missing.json"), str(notes), str(good))

    assert (
        f"{tmp_path / 'missing.json'}: error: cannot read the file: No such file or directory"
        in out
    )
    assert f"{notes}: error: not a .json or .jsonl file" in out
    assert Analysis.objects.count() == 1
    assert str(error) == "1 of 3 bundles imported; 2 failed"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "nothing to import"),
        (["--context", "c.md"], "--context and --response go together"),
        (["x.json", "--external-id", "e"], "--external-id applies to a --context/--response"),
    ],
)
def test_wrong_arguments_are_explained(args: Any, message: Any) -> None:
    with pytest.raises(CommandError, match=message):
        call_command("import_bundles", *args, stdout=StringIO())
