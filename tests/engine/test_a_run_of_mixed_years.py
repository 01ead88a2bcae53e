"""A list of figures the report states one after another is summed as a total only when
they are of one period (line items of one year) or each of its own (one line item's
years): "$6,120K in 2019", "$1.4 million" of 2019 and "$2.6 million in 2018" add up to
no total an analyst writes, though their sum lands on the 2018 total."""

from __future__ import annotations

from tests.engine.reports import check

LINES = {
    "line_items": {
        "Store closures": {"2019": 6120, "2018": 6815, "2017": 702},
        "Brand review": {"2019": 1410, "2018": 2634, "2017": 2417},
        "Other": {"2019": "\u2014", "2018": 651, "2017": 301},
    },
    "unit": "thousands",
}

BODY = (
    "**Store closures.** The charge rose to $6.8 million in 2018 and eased to $6,120K in "
    "2019.\n\n"
    "**Brand review.** It cost $1.4 million in 2019, down from $2.6 million in 2018.\n\n"
    "**Total.** Adding up the lines gives $10.1 million in 2018 and $7.5 million in 2019."
)


def test_figures_of_two_years_are_not_added_up_as_one_total() -> None:
    verdict = check(BODY, ("charges", LINES))
    (total,) = [match for match in verdict.numbers.matches if match.text == "$10.1 million"]
    # 6,120 + 1,400 + 2,600 = 10,120: two 2019 figures and one of 2018.
    assert total.formula.replace(",", "") != "6120 + 1400 + 2600"


def test_line_items_of_one_year_are_still_added_up() -> None:
    verdict = check(BODY, ("charges", LINES))
    (total,) = [match for match in verdict.numbers.matches if match.text == "$7.5 million"]
    assert total.status == "derived"
