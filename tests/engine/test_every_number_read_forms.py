"""Issue 26, more of the numbers a person reads: a number joined to its unit by a hyphen
("a 62-kilogram probe"), the parts of identifiers and dimensions (a flight "BA2207", a
phone "4155550193", a display "2560x1600"), a value with a unit word in a JSON string
("4.5 hours"), and the end of a day range ("Mar 4-9") -- through a JSON record, prose
and a markdown table, each in both directions: the right number passes, a wrong one is
flagged."""

from __future__ import annotations

from typing import Any

import pytest

from validation.engine.pipeline import validate
from validation.engine.types import Bundle, EngineSettings, EvidenceItem, Finding, Verdict

NUMBERS_ONLY = EngineSettings(citations="none")

RECORD: dict[str, Any] = {
    "probe": "a 62-kilogram probe",
    "route": "the 143-kilometre leg",
    "bonus": "a $1,750-a-week retainer",
    "flight": "BA2207",
    "phone": "4155550193",
    "screen": "13-inch 2560x1600 panel",
    "window": "4.5 hours",
}
PROSE = (
    "Crews loaded a 62-kilogram probe for the 143-kilometre leg, paid for by a "
    "$1,750-a-week retainer. The team flew on BA2207 (desk 4155550193); the laptop's "
    "13-inch 2560x1600 panel showed a window of 4.5 hours."
)
TABLE = (
    "| probe | route | bonus | flight | phone | screen | window |\n"
    "|---|---|---|---|---|---|---|\n"
    "| a 62-kilogram probe | the 143-kilometre leg | a $1,750-a-week retainer | BA2207 "
    "| 4155550193 | 13-inch 2560x1600 panel | 4.5 hours |"
)
FORMS = {
    "json": EvidenceItem(source_ref="record", kind="tool_output", content=RECORD),
    "text": EvidenceItem(source_ref="record", kind="text", content=PROSE),
    "markdown": EvidenceItem(source_ref="record", kind="text", content=TABLE),
}
ANSWER = (
    "The probe weighs 62 kilograms and the leg runs 143 km. The retainer pays $1,750 "
    "a week. The team flies on flight 2207; call (415) 555-0193. The laptop shows "
    "2560 x 1600 pixels, and the window lasts 4.5 hours."
)


def _check(body: str, evidence: EvidenceItem, query: str = "What are the details?") -> Verdict:
    return validate(Bundle(query=query, body=body, evidence=[evidence]), NUMBERS_ONLY)


def _numeric(verdict: Verdict) -> list[Finding]:
    return [f for f in verdict.findings if f.check in ("claims_supported", "no_hallucinations")]


@pytest.mark.parametrize("form", sorted(FORMS))
def test_numbers_joined_to_words_or_codes_support_their_restatement(form: str) -> None:
    verdict = _check(ANSWER, FORMS[form])

    assert [f.text for f in _numeric(verdict)] == []


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize(
    ("right", "wrong"),
    [
        ("62 kilograms", "67 kilograms"),
        ("143 km", "134 km"),
        ("$1,750", "$1,950"),
        ("flight 2207", "flight 2270"),
        ("555-0193", "555-0871"),
        ("2560 x", "2650 x"),
        ("4.5 hours", "5.5 hours"),
    ],
)
def test_a_wrong_one_of_them_is_flagged(form: str, right: str, wrong: str) -> None:
    body = ANSWER.replace(right, wrong)
    figure = next(w for w in wrong.replace("-", " ").split() if w not in right)

    flagged = [body[f.start : f.end] for f in _numeric(_check(body, FORMS[form]))]

    assert any(figure.strip("$,") in text for text in flagged)


def test_a_code_after_a_hyphen_stays_no_amount() -> None:
    evidence = EvidenceItem(source_ref="filing", kind="text", content="Revenue was $512 million.")

    verdict = _check("Its 10-K shows revenue of $512 million.", evidence)

    assert _numeric(verdict) == []


# ------------------------------------------------------------------ day ranges

DAYS = {
    "json": EvidenceItem(
        source_ref="order", kind="tool_output", content={"delivery_window": "Mar 4-9"}
    ),
    "text": EvidenceItem(
        source_ref="order", kind="text", content="Delivery is expected March 4 through 9."
    ),
    "markdown": EvidenceItem(
        source_ref="order",
        kind="text",
        content="| item | delivery window |\n|---|---|\n| kettle | Mar. 4\u20139 |",
    ),
}


@pytest.mark.parametrize("form", sorted(DAYS))
def test_the_end_of_a_day_range_dates_its_last_day(form: str) -> None:
    verdict = _check("The kettle arrives between Mar. 4 and Mar. 9.", DAYS[form])

    assert _numeric(verdict) == []


@pytest.mark.parametrize("form", sorted(DAYS))
def test_a_last_day_outside_the_range_is_flagged(form: str) -> None:
    verdict = _check("The kettle arrives between Mar. 4 and Mar. 12.", DAYS[form])

    assert [f.text for f in _numeric(verdict)] == ["Mar. 12"]


def test_a_reports_own_range_end_is_judged_too() -> None:
    evidence = EvidenceItem(
        source_ref="programme", kind="text", content="The fair runs Oct. 2 through Oct. 8."
    )

    assert _numeric(_check("The fair runs Oct. 2 to 8.", evidence)) == []
    assert [f.text for f in _numeric(_check("The fair runs Oct. 2 to 11.", evidence))] != []


# ------------------------------------------------------------------ range ends

CLUTCH = {
    "json": EvidenceItem(
        source_ref="guide", kind="tool_output", content={"clutch": "three to five eggs"}
    ),
    "text": EvidenceItem(
        source_ref="guide", kind="text", content="The hen lays three to five eggs; 7 hatch."
    ),
    "markdown": EvidenceItem(
        source_ref="guide", kind="text", content="| bird | clutch |\n|---|---|\n| wren | 3-5 eggs |"
    ),
}


@pytest.mark.parametrize("form", sorted(CLUTCH))
def test_a_range_the_evidence_gives_passes(form: str) -> None:
    assert _numeric(_check("A clutch is 3 to 5 eggs.", CLUTCH[form])) == []


@pytest.mark.parametrize("form", sorted(CLUTCH))
def test_a_wrong_end_of_a_range_is_flagged_and_fixed(form: str) -> None:
    verdict = _check("A clutch is 3 to 7 eggs.", CLUTCH[form])

    assert "7" in [f.text for f in _numeric(verdict)]
    assert [(fix.find, fix.replace) for fix in verdict.fixes] == [("7", "5")]


def test_a_range_of_something_else_is_not_judged() -> None:
    evidence = EvidenceItem(source_ref="guide", kind="text", content="Open 3 to 5 days a week.")

    assert [
        f.kind
        for f in _check("A clutch is 3 to 7 eggs.", evidence).findings
        if f.kind == "range_end_number"
    ] == []


# ------------------------------------------------------------------ multiples and parts in words

REEF = {
    "json": EvidenceItem(
        source_ref="wire",
        kind="tool_output",
        content={"quakes": "about six times the daily average", "stations": "four new stations"},
    ),
    "text": EvidenceItem(
        source_ref="wire",
        kind="text",
        content="Quakes ran about six times the daily average. The line adds four new stations.",
    ),
    "markdown": EvidenceItem(
        source_ref="wire",
        kind="text",
        content="| item | note |\n|---|---|\n| quakes | about six times the daily average |\n"
        "| line | four new stations |",
    ),
}


@pytest.mark.parametrize("form", sorted(REEF))
def test_a_multiple_and_a_part_in_words_pass_when_right(form: str) -> None:
    body = "Quakes ran six times the daily average, and the line adds four new stations."

    assert _numeric(_check(body, REEF[form])) == []


@pytest.mark.parametrize("form", sorted(REEF))
@pytest.mark.parametrize(
    ("right", "wrong"), [("six times", "nine times"), ("four new", "eight new")]
)
def test_a_wrong_multiple_or_part_in_words_is_flagged(form: str, right: str, wrong: str) -> None:
    body = "Quakes ran six times the daily average, and the line adds four new stations."

    flagged = [f.text for f in _numeric(_check(body.replace(right, wrong), REEF[form]))]

    assert wrong.split()[0] in flagged
