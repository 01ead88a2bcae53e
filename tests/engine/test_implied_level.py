"""A prose level followed in its sentence by its own change ("... was $2,410 million, an
increase of $380 million") gives the level before it too: its row's other period, which the
evidence never writes (`_derive_implied`). Each case is written anew: the figures and words
are ours, and each has a slip beside it that must still be flagged."""

from __future__ import annotations

from tests.engine.reports import check, flagged, status

NOTE = (
    "text",
    "Freight revenue in 2022 was $2,410 million, an increase of $380 million over the prior"
    " year, mainly on higher fuel surcharges. Terminal fees were $96 million.",
)
FALL = (
    "text",
    "Warranty claims in 2022 were $312 million, a decrease of $48 million, as the older"
    " fleet was retired.",
)


def test_a_growth_rate_over_the_level_a_stated_increase_implies() -> None:
    # 380 / (2,410 - 380) = 18.7%.
    verdict = check(
        "Freight revenue reached $2,410 million, roughly 18.7% above the implied prior-year level.",
        NOTE,
    )

    assert status(verdict, "18.7%") == "derived"
    assert flagged(verdict) == []


def test_a_slip_of_that_rate_is_still_flagged() -> None:
    verdict = check(
        "Freight revenue reached $2,410 million, roughly 17.4% above the implied prior-year level.",
        NOTE,
    )

    assert any("17.4" in text for text in flagged(verdict))


def test_a_stated_decrease_implies_a_higher_level_before() -> None:
    # 48 / (312 + 48) = 13.3%.
    verdict = check("Warranty claims came to $312 million, down about 13.3% on the year.", FALL)

    assert status(verdict, "13.3%") == "derived"
    assert flagged(verdict) == []
