"""Whose a number is (issue 26, point 2): a report number equal to an evidence value is
flagged ``number_elsewhere`` when its own words say it is of someone or something the
evidence gives another value for -- the claim's noun is another value's own noun though
both stand in one sentence, or the claim names a person the value is not said of. Both
directions, through text, markdown and JSON evidence."""

from __future__ import annotations

import pytest

from validation.engine.pipeline import validate
from validation.engine.types import Bundle, EngineSettings, EvidenceItem, Verdict

NUMBERS_ONLY = EngineSettings(citations="none")

WALK = (
    "The charity walk drew its biggest field yet. Organisers said 8,412 walkers finished "
    "the coastal route, a record, out of about 9,000 who set off in the rain. A further "
    "1,250 joined the short family loop."
)
WALK_MARKDOWN = (
    "## Charity walk\n\n- Organisers said 8,412 walkers finished the coastal route, a "
    "record, out of about 9,000 who set off in the rain.\n- A further 1,250 joined the "
    "short family loop.\n"
)
WALK_RECORD = {"event": "Charity walk", "walkers_finished": 8412, "walkers_started": 9000}


def _check(body: str, evidence: EvidenceItem, query: str = "How did it go?") -> Verdict:
    return validate(Bundle(query=query, body=body, evidence=[evidence]), NUMBERS_ONLY)


def _elsewhere(verdict: Verdict) -> list[str]:
    return [f.text for f in verdict.findings if f.kind == "number_elsewhere"]


WALK_FORMS = {
    "text": EvidenceItem(source_ref="news", kind="text", content=WALK),
    "markdown": EvidenceItem(source_ref="news", kind="text", content=WALK_MARKDOWN),
    "json": EvidenceItem(source_ref="tally", kind="tool_output", content=WALK_RECORD),
}


@pytest.mark.parametrize("form", sorted(WALK_FORMS))
def test_the_count_of_those_who_finished_passes(form: str) -> None:
    verdict = _check("A record 8,412 walkers finished the route.", WALK_FORMS[form])

    assert _elsewhere(verdict) == []


@pytest.mark.parametrize("form", sorted(WALK_FORMS))
def test_the_count_of_starters_given_as_finishers_is_flagged(form: str) -> None:
    verdict = _check("A record 9,000 walkers finished the route.", WALK_FORMS[form])

    assert _elsewhere(verdict) == ["9,000"]
    assert verdict.decision != "APPROVE"


@pytest.mark.parametrize("form", ["text", "markdown"])
def test_a_part_with_its_own_noun_is_judged_by_that_noun(form: str) -> None:
    evidence = (
        "Some 2,300 miners dug the tunnel over six years. At least 52 of them died in "
        "rockfalls and floods. Today about 30 freight wagons pass through it each day."
    )
    if form == "markdown":
        evidence = "### The tunnel\n\n" + evidence.replace(". ", ".\n\n")
    item = EvidenceItem(source_ref="history", kind="text", content=evidence)

    wrong = _check("At least 30 of those miners died in the work.", item)
    right = _check("At least 52 of those miners died in the work.", item)

    assert _elsewhere(wrong) == ["30"]
    assert _elsewhere(right) == []


GAME = (
    "Guard Mara Quist scored 19 points, 8 of them in the fourth quarter, as Linden won "
    "61-55. Harbor was led by Dana Ortiz, who finished with 24 points despite foul "
    "trouble."
)


@pytest.mark.parametrize("markdown", [False, True])
def test_points_said_of_another_player_are_flagged(markdown: bool) -> None:
    content = "# Final\n\n" + GAME if markdown else GAME
    item = EvidenceItem(source_ref="recap", kind="text", content=content)

    wrong = _check("Mara Quist led Linden with 24 points in the win.", item)
    right = _check("Mara Quist led Linden with 19 points in the win.", item)

    assert _elsewhere(wrong) == ["24"]
    assert _elsewhere(right) == []


DINER = (
    "The Harbor Diner will close this month after 40 years. Owner Tomas Veld, 59, said "
    "rising rents made it impossible to go on. Cook Ana Pries, 67, has worked the grill "
    "since the first day."
)


def test_an_age_after_a_name_is_that_persons() -> None:
    item = EvidenceItem(source_ref="paper", kind="text", content=DINER)

    wrong = _check("The diner is closing. Owner Tomas Veld, 67, blamed the rent.", item)
    right = _check("The diner is closing. Owner Tomas Veld, 59, blamed the rent.", item)

    assert _elsewhere(wrong) == ["67"]
    assert _elsewhere(right) == []


def test_a_value_whose_sentence_names_the_claims_person_passes() -> None:
    item = EvidenceItem(
        source_ref="paper",
        kind="text",
        content=(
            "Councillor Ines Marr won the ward seat on Sunday after the last postal "
            "ballots in the district were counted, beating retired teacher Paul Ostrow "
            "by 312 votes. Marr received 4,100 votes in all."
        ),
    )

    verdict = _check("Ines Marr won the seat by 312 votes.", item)

    assert _elsewhere(verdict) == []
    assert verdict.fixes == []


def test_a_value_said_of_no_one_in_particular_passes() -> None:
    item = EvidenceItem(
        source_ref="paper",
        kind="text",
        content=(
            "Kiprono of Kenya won the Lakeside Marathon by 25 seconds. His time cut 41 "
            "seconds off the record set by Ethiopia's Tadesse Alemu in 2019."
        ),
    )

    verdict = _check("Kiprono won the Lakeside Marathon, cutting 41 seconds off the record.", item)

    assert _elsewhere(verdict) == []


MUSEUM = (
    "The gallery reopens in May. Entry will cost $22 for adults and $15 for students, "
    "and members get in free."
)


@pytest.mark.parametrize("markdown", [False, True])
def test_a_price_for_one_group_given_to_another_is_flagged(markdown: bool) -> None:
    content = "**Tickets**\n\n" + MUSEUM if markdown else MUSEUM
    item = EvidenceItem(source_ref="listing", kind="text", content=content)

    wrong = _check("The gallery reopens in May. Adult entry will be $15.", item)
    right = _check("The gallery reopens in May. Adult entry will be $22.", item)

    assert _elsewhere(wrong) == ["$15"]
    assert [(fix.find, fix.replace) for fix in wrong.fixes] == [("$15", "$22")]
    assert _elsewhere(right) == []


TRAIN = {
    "route": {"from": "Leeds", "to": "York"},
    "duration_minutes": 47,
    "fare_from_gbp": 12,
    "seats_left": 40,
}


def test_a_record_key_naming_its_currency_holds_the_amount() -> None:
    item = EvidenceItem(source_ref="rail_api", kind="tool_output", content=TRAIN)

    wrong = _check("The trip takes 47 minutes. Fares start at £47.", item)
    right = _check("The trip takes 47 minutes. Fares start at £12.", item)

    assert _elsewhere(wrong) == ["£47"]
    assert [(fix.find, fix.replace) for fix in wrong.fixes] == [("£47", "£12")]
    assert _elsewhere(right) == []
