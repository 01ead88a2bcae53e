"""A number the numeric check can only "derive" by coincidence, while its own words name
one evidence value, restates that value (issue 26, point 2): another number is flagged
and fixed to it. A score in words ("three games to one") is one claim in either order
(point 1). A two-digit count is not the rounding of a round one-digit count ("35 frogs"
against "40 frogs"). JSON, text and markdown evidence, both directions."""

from __future__ import annotations

from decimal import Decimal

import pytest

from validation.engine.checks._restated import own_words
from validation.engine.checks.roles import evidence_values
from validation.engine.pipeline import validate
from validation.engine.types import Bundle, EngineSettings, EvidenceItem, Verdict

NUMBERS_ONLY = EngineSettings(citations="none")

WORKSHOP = {
    "shop": "Wheelhouse Repairs",
    "basic_service": "GBP 60",
    "full_service": "GBP 125",
    "brake_bleed": "GBP 25",
}
WORKSHOP_TEXT = (
    "Wheelhouse Repairs charges GBP 60 for a basic service. A full service is GBP 125, "
    "and a brake bleed costs GBP 25."
)
WORKSHOP_MARKDOWN = (
    "## Wheelhouse Repairs price list\n\n"
    "- A basic service costs GBP 60.\n"
    "- A full service costs GBP 125.\n"
    "- A brake bleed costs GBP 25.\n"
)
FORMS = {
    "json": EvidenceItem(source_ref="prices", kind="tool_output", content=WORKSHOP),
    "text": EvidenceItem(source_ref="page", kind="text", content=WORKSHOP_TEXT),
    "markdown": EvidenceItem(source_ref="list", kind="text", content=WORKSHOP_MARKDOWN),
}


def _check(body: str, evidence: EvidenceItem) -> Verdict:
    return validate(
        Bundle(query="What do repairs cost?", body=body, evidence=[evidence]), NUMBERS_ONLY
    )


def _numeric(verdict: Verdict) -> list[str]:
    return [
        f.text or ""
        for f in verdict.findings
        if f.check not in ("source_metadata_present", "coherent_format", "query_addressed")
    ]


@pytest.mark.parametrize("form", sorted(FORMS))
def test_the_price_the_words_name_passes(form: str) -> None:
    verdict = _check("A basic service is GBP 60 and a full service is GBP 125.", FORMS[form])

    assert _numeric(verdict) == []
    assert verdict.fixes == []


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_price_that_is_only_a_sum_of_two_others_is_flagged_and_fixed(form: str) -> None:
    # 150 = 125 + 25, but nothing says a total: the words name the full service's price
    verdict = _check("A basic service is GBP 60 and a full service is GBP 150.", FORMS[form])

    found = [f for f in verdict.findings if f.kind == "number_elsewhere"]
    assert [f.text for f in found] == ["GBP 150"]
    assert found[0].severity == "major"
    assert [(fix.find, fix.replace) for fix in verdict.fixes] == [("GBP 150", "GBP 125")]
    assert "125" in (verdict.fixes[0].verified_with or "")


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_sum_its_words_name_is_not_a_restatement(form: str) -> None:
    verdict = _check(
        "A full service is GBP 125; with a brake bleed the total is GBP 150.", FORMS[form]
    )

    assert not [f for f in verdict.findings if f.kind == "number_elsewhere"]
    assert verdict.fixes == []


STAGE = (
    "Marta Lindqvist won the 164-kilometre third stage from Foix after a late attack, "
    "going clear 12 km from the line."
)


@pytest.mark.parametrize("unit", ["km", "kilometre"])
def test_a_stage_length_is_judged_against_the_stage_not_a_difference(unit: str) -> None:
    evidence = EvidenceItem(source_ref="report", kind="text", content=STAGE)
    right = _check(f"Lindqvist won the 164 {unit} third stage.", evidence)
    wrong = _check(f"Lindqvist won the 152 {unit} third stage.", evidence)

    assert _numeric(right) == []
    assert "152" in _numeric(wrong)


SERIES = {
    "json": EvidenceItem(
        source_ref="season",
        kind="tool_output",
        content={"team": "Harbor Gulls", "playoffs": "Lost the final, 2 games to 4"},
    ),
    "text": EvidenceItem(
        source_ref="recap",
        kind="text",
        content="The Harbor Gulls lost the final 2 games to 4 after winning the opener.",
    ),
    "markdown": EvidenceItem(
        source_ref="notes",
        kind="text",
        content="### Playoffs\n\n- Final: lost, **two games to four**\n",
    ),
}


@pytest.mark.parametrize("form", sorted(SERIES))
def test_a_score_in_words_is_one_claim_in_either_order(form: str) -> None:
    verdict = _check("The Gulls lost the final four games to two.", SERIES[form])

    assert _numeric(verdict) == []


@pytest.mark.parametrize("form", sorted(SERIES))
def test_a_score_with_one_number_changed_is_flagged(form: str) -> None:
    verdict = _check("The Gulls lost the final four games to one.", SERIES[form])

    found = [f for f in verdict.findings if f.kind == "range_end_number"]
    assert [f.text for f in found] == ["one"]
    assert verdict.fixes == []  # written in words: no fix


def test_a_score_in_digits_is_fixed_to_the_evidences_other_number() -> None:
    verdict = _check("The Gulls lost the final 4 games to 1.", SERIES["text"])

    assert [(fix.find, fix.replace) for fix in verdict.fixes] == [("1", "2")]


FROGS = (
    "Females lay clutches of twenty to thirty-five eggs under leaves. Surveyors swabbed "
    "40 frogs at the stream. A breeding programme in Quito began with 24 frogs."
)


def test_a_count_is_not_the_rounding_of_a_one_digit_round_count() -> None:
    evidence = EvidenceItem(source_ref="paper", kind="text", content=FROGS)
    right = _check("The breeding programme in Quito started with 24 frogs.", evidence)
    wrong = _check("The breeding programme in Quito started with 35 frogs.", evidence)

    assert _numeric(right) == []
    assert [f.text for f in wrong.findings if f.kind == "number_elsewhere"] == ["35"]
    assert wrong.decision != "APPROVE"


def test_no_restatement_is_read_beside_a_table_whose_rows_it_cannot_see() -> None:
    # The row "Full service" of the table may be what the claim names: the prose's 125
    # is not known to be the one value, so 150 gets no fix from it.
    evidence = EvidenceItem(
        source_ref="sheet",
        kind="text",
        content=WORKSHOP_TEXT + "\n\n| Job | 2023 | 2024 |\n|---|---|---|\n"
        "| Full service | 150 | 125 |\n| Brake bleed | 20 | 25 |\n",
    )

    verdict = _check("A basic service is GBP 60 and a full service is GBP 150.", evidence)

    assert not [f for f in verdict.findings if f.kind == "number_elsewhere"]
    assert [fix for fix in verdict.fixes if fix.replace == "GBP 125"] == []


def test_a_hedge_names_nothing_and_a_short_unit_is_its_long_form() -> None:
    evidence = EvidenceItem(
        source_ref="page",
        kind="text",
        content="The stage is approximately 164 kilometres long. A service costs about GBP 125.",
    )
    own = {value.value: own_words(value) for value in evidence_values([evidence])}

    assert "approximat" not in own[Decimal(164)] and "kilometr" in own[Decimal(164)]
    assert own[Decimal(125)] and not own[Decimal(125)] & {"about", "approximat"}
    assert own_words(
        evidence_values([EvidenceItem(source_ref="x", kind="text", content="a 9 km climb")])[0]
    ) >= {"kilometr"}


UNION = {
    "text": "Union leaders called the closure a betrayal. Local 808, which represents about "
    "520 of the 1,100 affected workers, said it would appeal.",
    "markdown": "## Plant closure\n\n- **Union:** Local 808, which represents about 520 of "
    "the 1,100 affected workers, will appeal.\n",
}


@pytest.mark.parametrize("form", sorted(UNION))
def test_a_number_that_is_part_of_a_name_counts_nothing(form: str) -> None:
    evidence = EvidenceItem(source_ref="news", kind="text", content=UNION[form])
    right = _check("The union represents about 520 of the affected workers.", evidence)
    named = _check("Local 808 represents about 520 of the affected workers.", evidence)
    wrong = _check("The union represents about 808 of the affected workers.", evidence)

    assert _numeric(right) == [] and _numeric(named) == []
    found = [f for f in wrong.findings if f.kind == "number_elsewhere"]
    assert [f.text for f in found] == ["808"]
    assert found[0].evidence and "Local 808" in found[0].evidence[0].excerpt


def test_a_word_that_says_when_or_how_many_is_no_name() -> None:
    evidence = EvidenceItem(
        source_ref="notice",
        kind="text",
        content="Boarding is at Gate 12. Around 40 passengers a day are expected. In 2019 "
        "the route closed.",
    )
    values = {value.value: value for value in evidence_values([evidence])}

    assert values[Decimal(12)].title == "gate"
    assert values[Decimal(40)].title == ""


ISLAND = {
    "text": EvidenceItem(
        source_ref="guide",
        kind="text",
        content="Nearly two-thirds of residents live in or around the capital, Port Carenage. "
        "Cruise arrivals fell by three quarters during the pandemic.",
    ),
    "markdown": EvidenceItem(
        source_ref="notes",
        kind="text",
        content="## People\n\n- Nearly **two-thirds** of residents live in or around the capital, "
        "Port Carenage.\n- Cruise arrivals fell by three quarters during the pandemic.\n",
    ),
    "json": EvidenceItem(
        source_ref="facts",
        kind="tool_output",
        content={
            "population_note": "64% of residents live in or around the capital, Port Carenage",
            "tourism_note": "cruise arrivals fell by 75% during the pandemic",
        },
    ),
}


@pytest.mark.parametrize("form", sorted(ISLAND))
def test_a_share_in_words_said_of_the_same_thing_passes(form: str) -> None:
    verdict = _check(
        "Almost two-thirds of them live in or around the capital, Port Carenage.", ISLAND[form]
    )

    assert _numeric(verdict) == []


@pytest.mark.parametrize("form", sorted(ISLAND))
def test_a_share_in_words_moved_from_another_role_is_flagged(form: str) -> None:
    verdict = _check(
        "Almost three-quarters of them live in or around the capital, Port Carenage.",
        ISLAND[form],
    )

    found = [f for f in verdict.findings if f.kind == "number_elsewhere"]
    assert [f.text for f in found] == ["three-quarters"]
    assert found[0].evidence and "capital" in found[0].evidence[0].excerpt
    assert verdict.fixes == []
    assert verdict.decision != "APPROVE"


def test_a_fraction_naming_a_part_of_a_period_is_no_share() -> None:
    verdict = _check(
        "In the first quarter of the year about two-thirds of residents live in or around "
        "the capital, Port Carenage.",
        ISLAND["text"],
    )

    assert [f.text for f in verdict.findings if f.kind == "number_elsewhere"] == []


CABIN = {"name": "Cedar Cabin", "price_per_night": "$185", "cleaning_fee": "$95"}


def test_a_sum_whose_words_name_its_other_operand_is_the_writers_computation() -> None:
    evidence = EvidenceItem(source_ref="listing", kind="tool_output", content=CABIN)
    computed = _check("The price per night is $280, cleaning included.", evidence)
    restated = _check("The price per night is $185.", evidence)

    assert not [f for f in computed.findings if f.kind == "number_elsewhere"]
    assert computed.fixes == []  # never "fixed" to the nightly price alone
    assert _numeric(restated) == []


ROW = (
    "Research and development spending was $41.2 million in 2020, $37.5 million in 2019 "
    "and $30.1 million in 2018."
)


@pytest.mark.parametrize("markdown", [False, True])
def test_a_rows_sum_is_not_a_restatement_of_its_first_cell(markdown: bool) -> None:
    content = f"### Spending\n\n- {ROW}\n" if markdown else ROW
    evidence = EvidenceItem(source_ref="note", kind="text", content=content)

    summed = _check("Research and development spending came to $108.8 million.", evidence)
    slip = _check("Research and development spending came to $118.8 million.", evidence)

    assert not [f for f in summed.findings if f.kind == "number_elsewhere"]
    assert "$118.8 million" in _numeric(slip)


VENUE = {
    "team": "Riverside Rapids",
    "founded": 1994,
    "arena": {"name": "Confluence Center", "capacity": 8200, "opened": 2006},
}


def test_a_year_said_of_a_key_is_that_keys_year() -> None:
    evidence = EvidenceItem(source_ref="team", kind="tool_output", content=VENUE)
    right = _check(
        "They play at the Confluence Center, which opened in 2006; the club was founded in 1994.",
        evidence,
    )
    moved = _check(
        "They play at the Confluence Center, which opened in 1994; the club was founded in 1994.",
        evidence,
    )

    assert _numeric(right) == []
    found = [f for f in moved.findings if f.kind == "number_elsewhere"]
    assert [(f.text, f.start) for f in found] == [("1994", moved_at(1994))]
    assert [(fix.find, fix.replace) for fix in moved.fixes] == [
        ("opened in 1994", "opened in 2006")
    ]


def moved_at(year: int) -> int:
    return "They play at the Confluence Center, which opened in 1994".index(str(year))


def test_a_year_in_prose_evidence_is_left_to_the_years_check() -> None:
    evidence = EvidenceItem(
        source_ref="page",
        kind="text",
        content="The club was founded in 1994 and its arena opened in 2006.",
    )

    verdict = _check("The arena opened in 1994.", evidence)

    assert not [f for f in verdict.findings if f.kind == "number_elsewhere"]
