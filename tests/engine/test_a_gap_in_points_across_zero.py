"""A gap in points between a rate the report states below zero and a rate its sentence
names above it is their magnitudes added: "the effective rate was negative 48.3% in 2017,
some 83.3 points below the 35.0% statutory rate then in force" is 35.0 - (-48.3). Read as
magnitudes only, the pair's difference (13.3) missed, and the 83.3 was taken for a
misquote of the 81.6 beside it. A gap that misses is still flagged."""

from __future__ import annotations

from tests.engine.reports import check, flagged, status

RATES = {
    "table_title": "Years Ended December 31,",
    "line_items": {
        "Statutory federal income tax rate": {"2018": 21.0, "2017": 35.0},
        "State and local income tax rate, net of federal tax benefits": {
            "2018": 3.7,
            "2017": 1.6,
        },
        "Impact of tax reform re-measurement": {"2018": "—", "2017": -81.6},
        "Other, net": {"2018": -0.6, "2017": -2.0},
        "Effective income tax rate": {"2018": 18.3, "2017": -48.3},
    },
}
BODY = (
    "The effective rate was negative 48.3% in 2017, some {gap} points below the "
    "statutory rate then in force."
)


def test_the_gap_from_a_negative_rate_to_the_named_rate_is_derived() -> None:
    verdict = check(BODY.format(gap="83.3"), ("financials_tool", RATES))

    assert status(verdict, "83.3") == "derived"
    assert flagged(verdict) == []


def test_a_gap_that_misses_is_flagged() -> None:
    verdict = check(BODY.format(gap="86.3"), ("financials_tool", RATES))

    assert flagged(verdict) == ["86.3"]
