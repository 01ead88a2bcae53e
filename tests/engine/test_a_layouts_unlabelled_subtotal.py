"""A filing's text layout prints a section's subtotal on a line of its own, with no label:
the section's heading ("Other current assets:") names it, as a markdown table's heading
row names its section's unlabelled total."""

from __future__ import annotations

from tests.engine.reports import check, fixes, status

LAYOUT = (
    "                                                   2020          2019\n"
    "                                                     (in millions)\n"
    "Other current assets:\n"
    "Transition costs                                    $98          $145\n"
    "Pre-contract costs                                    6            41\n"
    "Other                                               306           357\n"
    "                                                   $410          $543\n"
    "Other assets:\n"
    "Transition costs                                   $207           $22\n"
    "Equity method investments                            19            26\n"
    "Other                                               200           134\n"
    "                                                   $426          $182\n"
    "Accrued liabilities:\n"
    "Accrued payroll                                    $822          $650\n"
    "Accounts payable                                    592           547\n"
    "Deferred revenue                                    400           276\n"
    "                                                 $1,814        $1,473\n"
)


def test_the_subtotal_a_section_heading_names_is_a_line_of_its_own() -> None:
    verdict = check(
        "Other current assets fell by $133 million from 2019 to 2020, or about 24.5%.",
        ("balance_sheet", LAYOUT),
    )

    assert status(verdict, "$133 million") == "derived"
    assert status(verdict, "24.5%") == "derived"


def test_the_other_sections_subtotal_is_named_by_its_own_heading() -> None:
    verdict = check(
        "Other assets grew by $244 million from 2019 to 2020, or about 134%.",
        ("balance_sheet", LAYOUT),
    )

    assert status(verdict, "$244 million") == "derived"


TAX = (
    "                                                 2019     2018     2017\n"
    "                                                   €m       €m       €m\n"
    "Overseas current tax expense:\n"
    "Current year                                    1,098    1,055      961\n"
    "Adjustments in respect of prior years             (48)    (102)     (35)\n"
    "                                                1,050      953      926\n"
    "Total current tax expense                       1,062    1,018      950\n"
)


def test_a_total_lines_figure_taken_from_a_named_subtotal_is_still_another_lines() -> None:
    # The subtotal's heading shares the words "current tax expense", but the sentence
    # writes the total line's label whole: 926 is the overseas subtotal's, set beside the
    # total line's 2018 figure.
    verdict = check(
        "Total current tax expense was €926 million in 2017, €1,018 million in 2018 and "
        "€1,062 million in 2019.",
        ("income_tax", TAX),
    )

    assert fixes(verdict) == {"€926 million": "€950 million"}
