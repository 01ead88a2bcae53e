"""A number is about what its own words name (issue 26, point 2): when the words bound
to a report number (the noun right after it, "X for $N", "X of N") name a record's
holder of another value in the same unit, the number belongs to that holder and is
wrong, even though the record gives the same value elsewhere. A fix only when exactly
one holder is named; a value both named holders give passes."""

from __future__ import annotations

from typing import Any

from validation.engine.pipeline import validate
from validation.engine.types import Bundle, EngineSettings, EvidenceItem, Verdict

NUMBERS_ONLY = EngineSettings(citations="none")

BAKERY = {
    "name": "North Loaf",
    "menu": [
        {"item": "Cardamom bun (large)", "price": "$4.25"},
        {"item": "Rye sourdough loaf", "price": "$8.00"},
    ],
}
TEAM = {
    "team": "Mill Creek Otters",
    "stats": {"batting_avg": ".251", "home_runs": 98, "stolen_bases": 131},
}
CAR = {"model": "Civic", "warranty": "60-day limited", "days_listed": 23}
SHOP = {"services": {"puncture_repair": "GBP 15", "brake_bleed": "GBP 15", "wheel_true": "GBP 22"}}
CLUB = {"club": "Harbour FC", "goals_for": 40, "top_scorer": {"player": "Ana Ruiz", "goals": 12}}
CLUB_MORE = {**CLUB, "record": {"wins": 14, "draws": 6}}


def _check(body: str, record: dict[str, Any]) -> Verdict:
    evidence = EvidenceItem(source_ref="lookup", kind="tool_output", content=record)
    return validate(Bundle(query="Tell me about it", body=body, evidence=[evidence]), NUMBERS_ONLY)


def _flagged(verdict: Verdict) -> list[str]:
    return [f.text for f in verdict.findings if f.kind == "number_elsewhere"]


def _fixes(verdict: Verdict) -> list[tuple[str, str]]:
    return [(fix.find, fix.replace) for fix in verdict.fixes]


def test_a_price_said_of_the_item_that_has_it_passes() -> None:
    verdict = _check("A large cardamom bun for $4.25 and a rye sourdough loaf for $8.00.", BAKERY)

    assert _flagged(verdict) == []


def test_the_price_of_another_item_is_flagged_and_fixed_to_the_named_items() -> None:
    verdict = _check("Try a large cardamom bun for $8.00 with your coffee.", BAKERY)

    assert _flagged(verdict) == ["$8.00"]
    assert _fixes(verdict) == [("$8.00", "$4.25")]


def test_a_count_under_its_own_key_passes() -> None:
    verdict = _check("The Otters batted .251 with 98 home runs and stole 131 bases.", TEAM)

    assert _flagged(verdict) == []


def test_a_count_whose_noun_names_another_key_is_flagged_with_its_value() -> None:
    verdict = _check("The Otters batted .251 with 131 home runs.", TEAM)

    assert _flagged(verdict) == ["131"]
    assert _fixes(verdict) == [("131", "98")]


def test_a_length_given_for_the_key_it_names_passes() -> None:
    verdict = _check("It has a 60-day warranty and has been listed for 23 days.", CAR)

    assert _flagged(verdict) == []


def test_a_length_of_another_key_is_flagged_though_its_noun_is_the_same() -> None:
    verdict = _check("The car has been listed for 60 days.", CAR)

    assert _flagged(verdict) == ["60"]
    assert _fixes(verdict) == [("60", "23")]


def test_a_value_both_named_holders_give_passes() -> None:
    verdict = _check("A puncture repair or a brake bleed costs GBP 15 each.", SHOP)

    assert _flagged(verdict) == []


def test_a_price_of_another_service_is_flagged() -> None:
    verdict = _check("Puncture repair for GBP 22 and wheel truing for GBP 22.", SHOP)

    assert _flagged(verdict) == ["GBP 22"]


def test_no_fix_when_the_noun_names_two_holders_of_other_values() -> None:
    verdict = _check("Ruiz has scored 14 goals this season.", CLUB_MORE)

    assert _flagged(verdict) == ["14"]
    assert _fixes(verdict) == []


def test_the_right_count_for_one_of_two_named_holders_passes() -> None:
    verdict = _check("Ruiz has scored 12 goals; the side 40 goals in all.", CLUB)

    assert _flagged(verdict) == []
