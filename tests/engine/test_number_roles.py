"""A number is supported by evidence about the same thing (issue 26, point 2): a value
the evidence gives only for something else, while the claim's own noun counts another
value, is flagged as ``number_elsewhere`` with where it does appear; a fix only when the
noun points to exactly one other value. In JSON, prose and markdown, both directions."""

from __future__ import annotations

import pytest

from validation.engine.checks.roles import check_roles, evidence_values
from validation.engine.pipeline import validate
from validation.engine.types import Bundle, EngineSettings, EvidenceItem, Verdict

NUMBERS_ONLY = EngineSettings(citations="none")

GAME = (
    "Priya Raman scored 27 points and grabbed 9 rebounds as the Owls beat Dover 74-58. "
    "The Owls pulled away with a 12-point third quarter."
)
GAME_RECORD = {
    "player": "Priya Raman",
    "points": 27,
    "third_quarter_points": 12,
    "rebounds": 9,
    "final_score": "74-58",
}


def _check(body: str, evidence: EvidenceItem) -> Verdict:
    return validate(
        Bundle(query="How did Raman play?", body=body, evidence=[evidence]), NUMBERS_ONLY
    )


def _elsewhere(verdict: Verdict) -> list[str]:
    return [f.text for f in verdict.findings if f.kind == "number_elsewhere"]


FORMS = {
    "text": EvidenceItem(source_ref="recap", kind="text", content=GAME),
    "json": EvidenceItem(source_ref="box", kind="tool_output", content=GAME_RECORD),
}


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_number_said_of_the_same_thing_passes(form: str) -> None:
    verdict = _check("Raman had 27 points and 9 rebounds in the win.", FORMS[form])

    assert _elsewhere(verdict) == []


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_value_moved_from_another_role_is_flagged_with_where_it_appears(form: str) -> None:
    verdict = _check("Raman had 27 points and 12 rebounds in the win.", FORMS[form])

    found = [f for f in verdict.findings if f.kind == "number_elsewhere"]
    assert [f.text for f in found] == ["12"]
    assert found[0].evidence and "12" in found[0].evidence[0].excerpt
    assert verdict.decision != "APPROVE"


@pytest.mark.parametrize("form", sorted(FORMS))
def test_the_fix_is_the_one_value_the_claims_noun_points_to(form: str) -> None:
    verdict = _check("Raman had 27 points and 12 rebounds in the win.", FORMS[form])

    assert [(fix.find, fix.replace) for fix in verdict.fixes] == [("12", "9")]


def test_no_fix_when_the_noun_points_to_more_than_one_value() -> None:
    evidence = EvidenceItem(
        source_ref="recap",
        kind="text",
        content="Raman scored 27 points and grabbed 9 rebounds. The Owls won the third "
        "quarter by 12 points. Lee added 14 points and 11 rebounds.",
    )

    verdict = _check("Raman had 27 points and 12 rebounds.", evidence)

    assert _elsewhere(verdict) == ["12"]
    assert verdict.fixes == []  # rebounds: 9 and 11


def test_a_claim_with_other_words_for_the_same_topic_passes() -> None:
    evidence = EvidenceItem(
        source_ref="record",
        kind="tool_output",
        content={"venue": "Millbrook Arena", "capacity": "about 6,100", "opened": 1998},
    )

    assert _elsewhere(_check("Millbrook Arena holds about 6,100 fans.", evidence)) == []


def test_a_rounded_count_of_the_same_noun_agrees() -> None:
    evidence = EvidenceItem(
        source_ref="article",
        kind="text",
        content="More than 8,000 volunteers signed up early. Final figures show 8,412 "
        "participants.",
    )

    assert _elsewhere(_check("A record 8,412 volunteers took part.", evidence)) == []


def test_a_markdown_table_is_left_to_the_numeric_labels() -> None:
    table = EvidenceItem(
        source_ref="box",
        kind="text",
        content="| player | points | rebounds |\n|---|---|---|\n| Raman | 27 | 9 |\n"
        "| Lee | 12 | 4 |",
    )

    assert _elsewhere(_check("Raman had 27 points and 12 rebounds.", table)) == []


def test_a_wall_of_numbers_is_not_compared() -> None:
    wall = EvidenceItem(source_ref="w", kind="text", content="7 apples " * 30_000)

    assert evidence_values([wall]) == []
    assert check_roles("7 apples", [wall], []) == ([], [])
