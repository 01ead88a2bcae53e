"""Two fixes that must not touch a correct number (read from a tenth writer's reports,
once they had been scored as held out):

- a filing's layout row whose long label, with a footnote mark, pushes its figures to the
  right of the header's years is read in order (one value a year), not by where each
  figure stands: its 908.7 is the middle year's opening balance, so "$908.7 million going
  into fiscal 2018" is no "other period's figure" to be fixed to 901.3;
- a margin is a share: "a blended gross margin of about 24.4%" after two gross profits is
  no miss of their percentage change, to be "fixed" to 14.3%.

Figures are ours."""

from __future__ import annotations

from tests.engine.reports import check, fixes_on
from validation.engine.checks.numeric._layout_years import _layout_period

_PAD = " " * 70
CASH = (
    f"{_PAD}    Year ended March 31,\n"
    f"{_PAD}2024          2023          2022\n"
    "Net decrease in cash and cash equivalents                  "
    "(472.7)         (7.4)     (1,184.0)\n"
    "Cash and cash equivalents, and restricted cash at beginning of period (2)         "
    "901.3         908.7       2,092.7\n"
    "Cash and cash equivalents, and restricted cash at end of period (2)        "
    "$428.6        $901.3        $908.7\n"
)


def test_a_pushed_rows_figures_are_of_the_years_of_their_places_in_the_row() -> None:
    opening = CASH.index("(2)         901.3")
    closing = CASH.index("(2)        $428.6")
    years = [
        _layout_period(CASH, CASH.index(figure, start))
        for start, figure in (
            (opening, "901.3"),
            (opening, "908.7"),
            (opening, "2,092.7"),
            (closing, "428.6"),
            (closing, "901.3"),
            (closing, "908.7"),
        )
    ]

    assert years == [2024, 2023, 2022, 2024, 2023, 2022]


SALES = (
    "| | 2024 | 2023 |\n|---|---|---|\n"
    "| Net sales | $ 93,662 | $ 103,350 |\n"
    "| Gross profit | $ 22,149 | $ 25,858 |\n"
)


def test_a_blended_margin_is_no_change_of_the_figures_before_it() -> None:
    """(25,858 + 22,149) / (103,350 + 93,662) = 24.4%; (22,149 - 25,858) / 25,858 = -14.3%."""
    verdict = check(
        "Gross profit was $25,858 in 2023 plus $22,149 in 2024. Measured against the two "
        "years' combined net sales, that's a blended gross margin of about 24.4%.",
        ("sales", SALES),
    )

    assert fixes_on(verdict, "24.4%") == []
