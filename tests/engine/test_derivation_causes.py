"""Why a correct derived number was flagged, cause by cause (issue 25): a difference of
two rates written as points, an average of a row's rates, a row's change over another
row's change, a row whose cells are not all one quantity, and a rate followed by a level
read as the two ends of a range. Each case is written anew: the figures and words are
ours, and each has a slip beside it that must still be flagged."""

from __future__ import annotations

import json
from typing import Any

from tests.engine.reports import NUMBERS_ONLY, flagged, status
from validation.engine.pipeline import validate
from validation.engine.types import Bundle, Verdict

THREE_YEARS = "| | 2021 | 2020 | 2019 |\n|---|---|---|---|\n"


def check(body: str, *evidence: tuple[str, Any]) -> Verdict:
    items = [
        {"source_ref": ref, "content": content if isinstance(content, str) else json.dumps(content)}
        for ref, content in evidence
    ]
    return validate(Bundle(query="How did it go?", body=body, evidence=items), NUMBERS_ONLY)


# ------------------------------------------------------------------ points


RATES = (
    "table",
    THREE_YEARS + "| Yield on loans | 7.2% | 6.5% | 5.5% |\n"
    "| Cost of deposits | 2.9% | 2.6% | 2.2% |\n| Fee margin | 1.4% | 1.3% | 1.5% |",
)


def test_a_number_of_points_is_a_difference_of_two_rates() -> None:
    verdict = check("The loan yield widened by 0.7 points over the year, to 7.2%.", RATES)

    assert status(verdict, "0.7") == "derived"
    assert flagged(verdict) == []


def test_points_that_no_two_rates_give_are_flagged() -> None:
    verdict = check("The loan yield widened by 2.3 points over the year, to 7.2%.", RATES)

    assert any("2.3" in text for text in flagged(verdict))


# ------------------------------------------------------------------ averages of rates


def test_an_average_of_a_rows_three_rates() -> None:
    verdict = check(
        "Over the three years the yield on loans averaged 6.40%, well above funding costs.",
        RATES,
    )

    assert status(verdict, "6.40%") == "derived"
    assert flagged(verdict) == []


# ------------------------------------------------------------------ a change over a change


PAYROLL = (
    "table",
    "(in thousands)\n\n| | 2021 | 2020 |\n|---|---|---|\n"
    "| Salaries | 412,300 | 350,100 |\n| Bonuses | 38,900 | 36,500 |\n"
    "| Pension contributions | 21,700 | 20,900 |\n| Total staff costs | 472,900 | 407,500 |",
)


def test_a_rows_share_of_the_total_change() -> None:
    # (412,300 - 350,100) / (472,900 - 407,500) = 95.1 %
    verdict = check(
        "Staff costs climbed by 65,400 thousand. Salaries were behind nearly all of it, about "
        "95.1% of the increase.",
        PAYROLL,
    )

    assert status(verdict, "95.1%") == "derived"
    assert flagged(verdict) == []


def test_a_share_of_the_change_that_no_rows_give_is_flagged() -> None:
    verdict = check(
        "Staff costs climbed by 65,400 thousand. Salaries were behind nearly all of it, about "
        "88.4% of the increase.",
        PAYROLL,
    )

    assert any("88.4" in text for text in flagged(verdict))


# ------------------------------------------------------------------ like cells only


def test_a_rows_average_skips_its_columns_of_changes() -> None:
    # The row interleaves each year's change: 7,500 = 61,000 - 53,500 and 11,500 = 53,500 -
    # 42,000. The three years average (61,000 + 53,500 + 42,000) / 3 = 52,167 thousand.
    verdict = check(
        "Gross profit averaged about $52.2 million across the three fiscal years.",
        (
            "table",
            "(in thousands)\n\n| | 2021 | change | 2020 | change | 2019 |\n"
            "|---|---|---|---|---|---|\n"
            "| Gross profit | 61,000 | 7,500 | 53,500 | 11,500 | 42,000 |",
        ),
    )

    assert status(verdict, "$52.2 million") == "derived"
    assert flagged(verdict) == []


def test_unlike_cells_of_one_record_are_never_added_up() -> None:
    # 120 = 90 rooms + $14 + $16: no sum of a count and two prices is anything.
    record = (
        "| hotel | rooms | breakfast | parking |\n|---|---|---|---|\n| Linden | 90 | $14 | $16 |"
    )
    verdict = check(
        "The Linden has 120 rooms, breakfast at $14 and parking at $16.", ("hotel", record)
    )

    assert any("120" in text for text in flagged(verdict))


# ------------------------------------------------------------------ not a range


def test_a_rate_and_the_level_it_ended_at_are_not_a_range() -> None:
    verdict = check(
        "Buybacks cut the diluted share count by about 4.4% to 1,290 million.",
        (
            "table",
            "(in millions)\n\n| | 2021 | 2020 |\n|---|---|---|\n| Diluted shares | 1,290 | 1,349 |",
        ),
    )

    assert status(verdict, "4.4%") == "derived"
    assert flagged(verdict) == []


def test_a_change_from_a_hedged_level_is_not_a_range() -> None:
    # 48.0 % = 1,200 / 2,500 and 44.0 % = 1,232 / 2,800: margins the writer worked out.
    verdict = check(
        "Sales reached $2,800 thousand and gross profit $1,232 thousand. The gross margin "
        "slipped from roughly 48.0% to 44.0% of sales.",
        (
            "table",
            "(in thousands)\n\n| | 2021 | 2020 |\n|---|---|---|\n| Sales | 2,800 | 2,500 |\n"
            "| Gross profit | 1,232 | 1,200 |",
        ),
    )

    assert status(verdict, "48.0%") == "derived"
    assert status(verdict, "44.0%") == "derived"
    assert flagged(verdict) == []


# ------------------------------------------------------------------ a section's total


def test_an_unlabelled_total_row_is_named_by_its_sections_heading() -> None:
    # (2,210 - 1,530) / 2,210 = 30.8 %: the net row has no label of its own, only the
    # heading that opens its section.
    balance = (
        "| | 2021 | 2020 |\n|---|---|---|\n| Vehicles and machinery: | | |\n"
        "| Trucks | $4,100 | $4,050 |\n| Forklifts | 920 | 880 |\n"
        "| Accumulated depreciation | (3,490) | (2,720) |\n| | $1,530 | $2,210 |\n"
        "| Customer deposits: | | |\n| Advance payments | 610 | 540 |\n| | $610 | $540 |"
    )
    verdict = check(
        "Net vehicles and machinery shrank 30.8% over the year as depreciation outran purchases.",
        ("balance", balance),
    )

    assert status(verdict, "30.8%") == "derived"
    assert flagged(verdict) == []


# ------------------------------------------------------------------ a long label


def test_a_long_row_label_is_named_by_a_shorter_phrase_of_it() -> None:
    # (612,400 - 571,900) / 571,900 = 7.1 %: "gross deferred tax assets" names the row
    # "Total deferred tax assets before valuation allowances" without half of its words.
    taxes = (
        "(in thousands)\n\n| | 2021 | 2020 |\n|---|---|---|\n"
        "| Loss carryforwards | 301,200 | 288,000 |\n| Accrued bonuses | 64,700 | 59,300 |\n"
        "| Total deferred tax assets before valuation allowances | 612,400 | 571,900 |\n"
        "| Less valuation allowances | 240,100 | 231,800 |"
    )
    verdict = check("Gross deferred tax assets rose 7.1% over the year.", ("taxes", taxes))

    assert status(verdict, "7.1%") == "derived"
    assert flagged(verdict) == []
