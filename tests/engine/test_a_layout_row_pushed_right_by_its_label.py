"""In a filing's text layout a long label pushes its row's values to the right of the
years above them; read in order, they are still one per year. "Gains reclassified ...
into revenue   341   185   555" under "2019  2018  2017": the 341 is 2019's and the 185
2018's, so "$341 million, about 1.8 times the fiscal 2018 amount" is 341 over 185, the one
multiple of the row with its base in 2018. Plain three-digit values were not read as the
row's values (only numbers with a thousands comma or a decimal were), the cells went
undated, and the row's four multiples weighed against each other left 1.8 unexplained."""

from __future__ import annotations

from tests.engine.reports import check, flagged, status

LAYOUT = (
    "(In millions)\n"
    "Year Ended June 30,                                          2019          2018"
    "          2017\n"
    "Effective Portion\n"
    "Gains recognized in other comprehensive income (loss), net of tax of $1, $11, and $4"
    "         $ 159         $ 219         $ 328\n"
    "Gains reclassified from accumulated other comprehensive income (loss) into revenue"
    "           341           185           555\n"
)


def test_a_pushed_rows_values_are_its_years_in_order() -> None:
    verdict = check(
        "Gains reclassified into revenue rebounded to $341 million, about 1.8 times the "
        "fiscal 2018 amount.",
        ("filing_table", LAYOUT),
    )

    assert status(verdict, "1.8") == "derived"
    assert flagged(verdict) == []


def test_a_multiple_over_another_year_is_still_flagged() -> None:
    verdict = check(
        "Gains reclassified into revenue rebounded to $341 million, about 1.2 times the "
        "fiscal 2018 amount.",
        ("filing_table", LAYOUT),
    )

    assert flagged(verdict) == ["1.2"]
