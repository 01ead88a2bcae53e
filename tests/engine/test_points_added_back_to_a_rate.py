"""A number written as points is a difference of two rates, so a rate too: "the
disposition took 9.9 points off the 2019 rate ... adding it back, the underlying rate would
have been roughly 22.9%" is 13.0% + 9.9. The reconciliation writes the item as a bare
-9.9, and the report's "9.9 points" restating it was read as a plain figure, which no
sum with a rate takes. As written it still pairs with the table's bare cells; a rate added
back that misses is still flagged."""

from __future__ import annotations

from tests.engine.reports import check, flagged, status

RATES = {
    "table_title": "Years Ended December 31,",
    "line_items": {
        "Statutory federal income tax rate": {"2019": 21.0, "2018": 21.0},
        "State and local income tax rate, net of federal tax benefits": {
            "2019": 3.7,
            "2018": 3.7,
        },
        "Preferred stock disposition": {"2019": -9.9, "2018": "—"},
        "Internal restructure": {"2019": "—", "2018": -9.1},
        "Non-deductible goodwill": {"2019": 0.1, "2018": 4.7},
        "Other, net": {"2019": -1.9, "2018": -1.0},
        "Effective income tax rate": {"2019": 13.0, "2018": 18.3},
    },
}
BODY = (
    "The effective tax rate fell to 13.0% in 2019 from 18.3% in 2018. The preferred stock "
    "disposition alone took 9.9 points off the 2019 rate and had no counterpart in 2018. "
    "Adding it back, the underlying 2019 rate would have been roughly {rate}."
)


def test_a_rate_with_the_points_taken_off_it_added_back_is_derived() -> None:
    verdict = check(BODY.format(rate="22.9%"), ("financials_tool", RATES))

    assert status(verdict, "22.9%") == "derived"
    assert flagged(verdict) == []


def test_a_rate_added_back_that_misses_is_flagged() -> None:
    verdict = check(BODY.format(rate="24.9%"), ("financials_tool", RATES))

    assert "24.9%" in flagged(verdict)
