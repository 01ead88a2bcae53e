"""A margin is a share of revenue, whatever verb moves it.

"Operating margin widened to about 34.1% from 31.8% the year before": the words of a
change ("widened", "from") surround the two rates, but each rate is a level, the
operating income of its year over that year's revenue. Searched only as a change, a
margin can be "explained" by two cells of unrelated lines whose percent change happens
to land on it (revenue of one year against gross margin of another), and the year
before then has no share to follow. Searched as a share too, each rate is found from
its own year's two lines. A margin stated alone is found the same way: its words name
its line (operating income for an operating margin, net income for a net margin) and
its share is of the top line (revenue, net sales), whether or not the report writes
either figure."""

from __future__ import annotations

import re

from tests.engine.reports import check, findings_on, status

RESULTS = (
    "(In millions)              2021        2020        2019\n"
    "Revenue                 $ 84,310    $ 71,905    $ 58,560\n"
    "Gross margin              52,116      44,032      35,774\n"
    "Operating income          27,802      21,640      18,115\n"
    "Net income                21,004      16,380      14,271\n"
)


def _operands(formula: str) -> list[str]:
    """The two figures a share's formula divides ("Operating income 21,640 / Revenue
    71,905 * 100 (chance 0.2%)" -> 21640, 71905)."""
    return re.findall(r"\d+(?:\.\d+)?", formula.replace(",", ""))[:2]


def _verdict(body: str):  # type: ignore[no-untyped-def]
    return check(body, ("results", RESULTS))


def test_both_years_margins_are_shares_of_their_revenue() -> None:
    verdict = _verdict(
        "Revenue reached about $84.3 billion in 2021 and operating income rose to roughly "
        "$27.8 billion. Operating margin widened to about 33.0% from 30.1% the year before."
    )

    assert status(verdict, "33.0%") == "derived"
    assert status(verdict, "30.1%") == "derived"
    formulas = {match.text: match.formula for match in verdict.numbers.matches}
    # Not the 2019 revenue's change to the 2020 gross margin, which also lands on 33.0%.
    assert _operands(formulas["33.0%"]) in (["27802", "84310"], ["27.8", "84.3"])
    assert _operands(formulas["30.1%"]) == ["21640", "71905"]


def test_a_wrong_prior_year_margin_is_flagged() -> None:
    verdict = _verdict(
        "Revenue reached about $84.3 billion in 2021 and operating income rose to roughly "
        "$27.8 billion. Operating margin widened to about 33.0% from 24.0% the year before."
    )

    assert findings_on(verdict, "24.0%") != []


def test_a_margin_stated_alone_is_its_line_over_revenue() -> None:
    verdict = _verdict(
        "Operating margin was 33.0% in 2021. Net margin was 24.9%. Gross margin was 61.8%."
    )

    assert status(verdict, "33.0%") == "derived"
    assert status(verdict, "24.9%") == "derived"
    assert status(verdict, "61.8%") == "derived"


def test_a_wrong_margin_stated_alone_is_flagged() -> None:
    verdict = _verdict("Operating margin was 31.0% in 2021.")

    assert findings_on(verdict, "31.0%") != []


def test_an_averaged_margin_is_still_an_average() -> None:
    """The filing's margins of three years, averaged: the average is the writer's
    operation, not a share."""
    rates = "Gross margin %             61.8%       61.2%       61.1%\n"
    verdict = check(
        "Gross margin averaged about 61.4% over the three years.", ("results", RESULTS + rates)
    )

    assert status(verdict, "61.4%") == "derived"
