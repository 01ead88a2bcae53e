"""One reading of the report: the body is parsed once per validation and every check
shares what was read."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from validation.engine.checks import check_format, check_query, check_sources
from validation.engine.checks import reading as reading_module
from validation.engine.checks.reading import ReportReading
from validation.engine.checks.sources import reference_spans
from validation.engine.pipeline import validate
from validation.engine.types import Bundle, EngineSettings, EvidenceItem

EVIDENCE = [
    EvidenceItem(
        source_ref="filing-2023",
        kind="document",
        content="Revenue was $1,240 million in 2023 and $1,100 million in 2022.",
    )
]
BODY = (
    "## Revenue\n\n"
    "Revenue reached $1,240 million in 2023 [filing-2023], up from $1,100 million "
    "([source](https://example.com/filing)). The `code 99` is not read.\n\n"
    "| year | revenue |\n|---|---|\n| 2023 | 1,240 |\n\n"
    "That is a rise of about 12.7%.[^1]\n\n[^1]: see the filing.\n"
)


def _counting(monkeypatch: pytest.MonkeyPatch, name: str) -> list[int]:
    """Count the calls of the reading module's ``name`` (the real function still runs)."""
    calls: list[int] = []
    real: Callable[..., Any] = getattr(reading_module, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(reading_module, name, counted)
    return calls


@pytest.mark.parametrize(
    "name", ["mask_code", "blocks", "read_citations", "extract_judged", "find_links", "terms"]
)
def test_validate_reads_each_part_of_the_body_once(
    monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    calls = _counting(monkeypatch, name)

    validate(Bundle(query="How did revenue change?", body=BODY, evidence=EVIDENCE))

    assert len(calls) == 1


def test_a_part_no_check_asks_for_is_never_read(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _counting(monkeypatch, "extract_judged")
    reading = ReportReading(BODY, EVIDENCE)

    check_format(BODY, reading=reading)

    assert calls == []
    assert reading.blocks  # read now, and kept
    assert reading.blocks is reading.blocks


def test_checks_judge_the_same_with_a_shared_reading_or_their_own() -> None:
    reading = ReportReading(BODY, EVIDENCE)
    settings = EngineSettings()

    assert check_format(BODY, reading=reading) == check_format(BODY)
    assert check_sources(BODY, EVIDENCE, [(31, 45)], reading=reading) == check_sources(
        BODY, EVIDENCE, [(31, 45)]
    )
    assert reference_spans(BODY, EVIDENCE, reading=reading) == reference_spans(BODY, EVIDENCE)
    shared = check_query(BODY, "How did revenue change?", [], settings, EVIDENCE, reading=reading)
    alone = check_query(BODY, "How did revenue change?", [], settings, EVIDENCE)
    assert shared == alone


def test_the_reading_names_the_report_structure() -> None:
    reading = ReportReading(BODY, EVIDENCE)

    kinds = [block.kind for block in reading.blocks]
    assert kinds == ["heading", "paragraph", "table", "paragraph", "paragraph"]
    assert "code 99" not in reading.masked and len(reading.masked) == len(BODY)
    cited = {citation.text for citation in reading.citations.citations}
    assert "[filing-2023]" in cited and "[^1]" in cited
    assert [BODY[s:e] for s, e in reading.references][:1] == ["[filing-2023]"]
    assert "$1,240 million" in [mention.text for mention in reading.mentions]
    assert all(BODY[position] == "\n" for position in reading.newlines)
    assert reading.line_start(BODY.index("Revenue reached") + 3) == BODY.index("Revenue reached")
    sentence_texts = [BODY[s.start : s.end] for s in reading.sentences]
    assert "That is a rise of about 12.7%.[^1]" in sentence_texts
