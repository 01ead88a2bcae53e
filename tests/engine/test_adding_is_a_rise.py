"""A line that "added" an amount rose by it: "adding $642.1 million, or about 86.5%" is a
rise, and its rate is the rise over the level it rose from. Taken over the level it rose
to, the same change is 46.4%, a slip of the base that must be flagged, not explained as a
fall read backwards. Figures are ours."""

from __future__ import annotations

from tests.engine.reports import check, flagged, status

# A layout whose header runs two headings together, so no column carries its year.
SEGMENTS = (
    "                                   Years Ended                       Change\n"
    "(Dollars in thousands)     2024          2023          20222024 over 2023\n"
    "Panels .           $ 1,384,220     $ 611,905     $ 742,118     $ 772,315    126%\n"
    "Services .           1,512,774     1,690,431     2,004,287     (177,657)   (11)%\n"
    "Revenue .          $ 2,896,994   $ 2,302,336   $ 2,746,405     $ 594,658     26%\n"
)


def test_the_rate_of_what_a_line_added_is_over_its_start() -> None:
    """1,384,220 - 742,118 = 642,102; over 742,118 it is 86.5%."""
    verdict = check(
        "Panels moved the other way, adding $642.1 million, or about 86.5%, over the period.",
        ("segments", SEGMENTS),
    )

    assert status(verdict, "$642.1 million") == "derived"
    assert status(verdict, "86.5%") == "derived"


def test_what_a_line_added_over_the_level_it_reached_is_flagged() -> None:
    """642,102 over 1,384,220 is 46.4%: the rise taken over its end."""
    verdict = check(
        "Panels moved the other way, adding $642.1 million, or about 46.4%, between 2022 and 2024.",
        ("segments", SEGMENTS),
    )

    assert any("46.4" in text for text in flagged(verdict))


# ------------------------------------------------------------------ a change and its rate

RATES = (
    "                                      Domestic               International\n"
    "                                          2024          2023          2024          2023\n"
    "Discount rate                            4.10%         3.80%         2.05%         2.95%\n"
    "Expected return on plan assets                                       3.30%         3.60%\n"
)


def test_the_relative_change_beside_a_change_of_rates_is_over_its_start() -> None:
    """2.95% - 2.05% = 0.90 points; over 2.95 that is 30.5% of the rate itself."""
    verdict = check(
        "The international discount rate fell by 0.90 points, or about 30.5% in relative terms.",
        ("assumptions", RATES),
    )

    assert status(verdict, "30.5%") == "derived"


def test_a_relative_change_over_the_level_reached_is_flagged() -> None:
    """0.90 over 2.05 is 43.9%: a fall taken over the rate it fell to."""
    verdict = check(
        "The international discount rate fell by 0.90 points, or about 43.9% in relative terms.",
        ("assumptions", RATES),
    )

    assert any("43.9" in text for text in flagged(verdict))
