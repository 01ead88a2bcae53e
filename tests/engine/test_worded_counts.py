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


# ------------------------------------------------------------------ durations in other units

RACE_TEXT = (
    "Ana Ruiz won the 10 km in 31:05, cutting almost a minute and a half from the old "
    "record. The club has timed the race for two decades. Her teammate ran 20 laps."
)
RACE = {
    "text": EvidenceItem(source_ref="recap", kind="text", content=RACE_TEXT),
    "json": EvidenceItem(
        source_ref="recap",
        kind="tool_output",
        content={"winner": "Ana Ruiz", "result": RACE_TEXT},
    ),
}


@pytest.mark.parametrize("form", sorted(RACE))
def test_a_duration_restated_in_another_unit_passes(form: str) -> None:
    body = (
        "Ana Ruiz won in 31:05, nearly 90 seconds under the record, in a race timed for 20 years."
    )

    assert _numeric(_check(body, RACE[form])) == []


@pytest.mark.parametrize("form", sorted(RACE))
def test_a_duration_that_converts_to_another_amount_is_flagged(form: str) -> None:
    body = "Ana Ruiz won in 31:05, nearly 75 seconds under the record."

    assert [f.text for f in _numeric(_check(body, RACE[form]))] == ["75"]


DEPOT_TEXT = (
    "The tram line gains five new stops beyond the river. "
    "Planners expect it to carry 7,000 riders a day."
)


@pytest.mark.parametrize(("count", "flagged"), [("seven", True), ("five", False)])
def test_the_first_digits_of_a_thousands_figure_are_no_count(count: str, flagged: bool) -> None:
    """The 7 of "7,000" is no value the evidence gives: "seven new stops" is checked
    against the evidence's count of new stops."""
    evidence = EvidenceItem(source_ref="plan", kind="text", content=DEPOT_TEXT)
    verdict = _check(f"The line adds {count} new stops past the river.", evidence)

    assert [f.text for f in _numeric(verdict)] == ([count] if flagged else [])


CLUB_TEXT = (
    "The chess club has now won 9 matches in a row. Seats for the final cost $11, and "
    "three matches were played on the road."
)


@pytest.mark.parametrize(("count", "flagged"), [("eleven", True), ("nine", False)])
def test_an_amount_of_money_is_no_count_of_things(count: str, flagged: bool) -> None:
    """ "$11" beside the word "matches" does not support "eleven matches in a row"."""
    evidence = EvidenceItem(source_ref="club", kind="text", content=CLUB_TEXT)
    verdict = _check(f"The club has won {count} matches in a row before the final.", evidence)

    assert [f.text for f in _numeric(verdict)] == ([count] if flagged else [])


NESTING_TEXT = (
    "The chicks hatch after 16 days and leave the nest after roughly a fortnight, but "
    "both parents keep feeding them for 4 more weeks. Heavy rain fell on three straight "
    "days in May."
)


@pytest.mark.parametrize(
    ("body", "flagged"),
    [
        ("Both parents keep feeding the chicks for another four weeks.", None),
        ("Both parents keep feeding the chicks for another five weeks.", "five"),
        # two stated lengths added: two weeks in the nest, then four more
        ("Both parents feed the chicks, who leave the nest after six weeks in all.", None),
        ("Heavy rain fell in May on three consecutive days.", None),
        ("Heavy rain fell in May on six consecutive days.", "six"),
        # a span, not a length; and a length of something the evidence never times
        ("Over the past two years the colony grew.", None),
        ("The survey team worked for seven days on the coast.", None),
    ],
)
def test_a_length_of_time_in_words_is_compared_as_a_length(body: str, flagged: str | None) -> None:
    evidence = EvidenceItem(source_ref="notes", kind="text", content=NESTING_TEXT)

    found = [f.text for f in _numeric(_check(body, evidence)) if f.text is not None]

    assert found == ([flagged] if flagged else [])


DINER_RECORD: dict[str, Any] = {
    "name": "Old Mill Diner",
    "seating": "about 60 seats, 12 at the counter",
    "parking": "free lot",
}


@pytest.mark.parametrize(
    ("body", "flagged"),
    [
        ("It has about 60 seats, including twelve at the counter.", None),
        ("It has about 60 seats, including fifteen at the counter.", "fifteen"),
        # no value of the same thing to compare with: nothing to say
        ("The owners have run it since they were seventeen, and parking is free.", None),
        # a reference back and an operand are no counts
        ("Its 60 seats and 12 at the counter make 72 seats, the sum of the two.", None),
        ("Its 60 seats, divided by three, make the counter's share at 20 seats.", None),
    ],
)
def test_a_count_in_words_without_a_noun_is_checked_by_its_clause(
    body: str, flagged: str | None
) -> None:
    evidence = EvidenceItem(source_ref="lookup", kind="tool_output", content=DINER_RECORD)

    found = [
        f.text for f in _numeric(_check(body, evidence)) if f.kind == "unsupported_number_word"
    ]

    assert found == ([flagged] if flagged else [])
