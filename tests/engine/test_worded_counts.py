"""A count written in words is checked like digits (issue 26, point 1): its value
standing somewhere in the evidence is not enough -- the evidence must give it about the
same thing (a noun in common, or the same topic). Durations written in other units
restate each other. In JSON and text evidence, both directions."""

from __future__ import annotations

from typing import Any

import pytest

from validation.engine.pipeline import validate
from validation.engine.types import Bundle, EngineSettings, EvidenceItem, Finding, Verdict

NUMBERS_ONLY = EngineSettings(citations="none")


def _check(body: str, evidence: EvidenceItem) -> Verdict:
    return validate(
        Bundle(query="Tell me about the marina.", body=body, evidence=[evidence]), NUMBERS_ONLY
    )


def _numeric(verdict: Verdict) -> list[Finding]:
    return [f for f in verdict.findings if f.check in ("claims_supported", "no_hallucinations")]


MARINA_RECORD: dict[str, Any] = {
    "name": "Pier Nine Marina",
    "fleet": "40 moorings, including 2 restored sailboats",
    "cafes": 4,
}
MARINA_TEXT = (
    "Pier Nine Marina has 40 moorings, including 2 restored sailboats. Its pier has 4 cafes."
)
MARINA = {
    "json": EvidenceItem(source_ref="lookup", kind="tool_output", content=MARINA_RECORD),
    "text": EvidenceItem(source_ref="lookup", kind="text", content=MARINA_TEXT),
}


@pytest.mark.parametrize("form", sorted(MARINA))
def test_a_count_in_words_whose_value_counts_something_else_is_flagged(form: str) -> None:
    verdict = _check("The marina keeps four restored sailboats among 40 moorings.", MARINA[form])

    assert [(f.text, f.kind) for f in _numeric(verdict)] == [("four", "unsupported_number_word")]
    (fix,) = verdict.fixes
    assert fix.replace.startswith("two ")


@pytest.mark.parametrize("form", sorted(MARINA))
def test_the_right_count_in_words_passes(form: str) -> None:
    verdict = _check("The marina keeps two restored sailboats among 40 moorings.", MARINA[form])

    assert _numeric(verdict) == []


def test_a_count_in_words_said_of_the_same_thing_with_another_noun_passes() -> None:
    evidence = EvidenceItem(
        source_ref="story",
        kind="text",
        content="The bakery seats 30 people and employs 14 workers on two shifts.",
    )

    assert _numeric(_check("The bakery employs fourteen people.", evidence)) == []
    flagged = _numeric(_check("The bakery employs twelve people.", evidence))
    assert [f.text for f in flagged] == ["twelve"]


def test_a_score_in_words_is_the_evidences_score_in_digits() -> None:
    evidence = EvidenceItem(
        source_ref="season",
        kind="tool_output",
        content={"wins": 88, "playoffs": "lost the final, 2 games to 3", "home_games": 40},
    )

    verdict = _check("They won 88 and lost the final three games to two.", evidence)

    assert _numeric(verdict) == []
