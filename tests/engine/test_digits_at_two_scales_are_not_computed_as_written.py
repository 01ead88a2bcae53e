"""Digits written at two scales are never computed as shown: "$2.62 billion, up $683
million" is 2,620 and 683 million, not 2.62 and 683. Reading both as written, a wrong
percentage beside them was "fixed" to (2.62 - 683) / 683, a change of -99.6%. Bare
digits of a table "in millions" still compute as shown beside "$652 million"."""

from __future__ import annotations

from tests.engine.reports import check, fixes_on, flagged, status

TABLE = (
    "| | 2019 | 2018 |\n|---|---|---|\n"
    "| | (in millions) | |\n"
    "| Deferred tax assets, net of valuation allowance | 2,724 | 2,540 |\n"
    "| Net deferred tax assets | $ 2,620 | $ 1,937 |\n"
)


def test_no_change_is_computed_over_a_billion_and_a_million_as_written() -> None:
    verdict = check(
        "Net deferred tax assets rose to $2.62 billion, up $683 million, or about 53.3%.",
        ("table", TABLE),
    )

    assert "53.3%" in flagged(verdict)
    assert fixes_on(verdict, "53.3%") in ([], [("53.3%", "35.3%")])


def test_the_right_change_beside_them_is_derived() -> None:
    verdict = check(
        "Net deferred tax assets rose to $2.62 billion, up $683 million, or about 35.3%.",
        ("table", TABLE),
    )

    assert status(verdict, "35.3%") == "derived"
    assert flagged(verdict) == []
