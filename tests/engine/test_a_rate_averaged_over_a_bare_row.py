"""A rate averaged over a row the evidence writes bare is the mean of the row's cells: "net
of federal benefit, state and local taxes averaged about 3.0% over the three years" is
(3.7 + 3.7 + 1.6) / 3. A rate reconciliation writes its lines without a % sign, and
averages of rates were taken over cells written as rates only. An average that misses is
still flagged."""

from __future__ import annotations

from tests.engine.reports import check, flagged, status

RATES = {
    "table_title": "Years Ended December 31,",
    "line_items": {
        "Statutory federal income tax rate": {"2019": 21.0, "2018": 21.0, "2017": 35.0},
        "State and local income tax rate, net of federal tax benefits": {
            "2019": 3.7,
            "2018": 3.7,
            "2017": 1.6,
        },
        "Non-deductible goodwill": {"2019": 0.1, "2018": 4.7, "2017": 1.0},
        "Other, net": {"2019": -0.7, "2018": -0.6, "2017": -2.0},
        "Effective income tax rate": {"2019": 13.0, "2018": 18.3, "2017": -48.3},
    },
}
BODY = (
    "The effective rate was 13.0% in 2019. State and local: net of federal benefit, this "
    "averaged about {rate} over the three years, 2017 to 2019."
)


def test_the_mean_of_a_bare_rate_row_over_the_years_named_is_derived() -> None:
    verdict = check(BODY.format(rate="3.0%"), ("financials_tool", RATES))

    assert status(verdict, "3.0%") == "derived"
    assert flagged(verdict) == []


def test_an_average_that_misses_the_row_is_flagged() -> None:
    verdict = check(BODY.format(rate="3.4%"), ("financials_tool", RATES))

    assert "3.4%" in flagged(verdict)
