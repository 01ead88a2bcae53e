"""A change written with its rate after it is the change the rate is of.

"The subtotal fell by $133 million, or about 24.5%": when the report's 24.5% is the
percentage change of two cells (543 to 410), the $133 million beside it is their
difference: the words give the change and its rate as one change in two forms. The
amount is weighed against that one candidate, not against every difference of the
table's cells.
"""

from __future__ import annotations

from tests.engine.reports import check, status

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
HEADED = "### Did other current assets shrink overall?\nYes. The subtotal fell by {}, or about {}."


def test_a_change_beside_the_rate_it_gives_is_that_rates_change() -> None:
    verdict = check(HEADED.format("$133 million", "24.5%"), ("balance_sheet", LAYOUT))

    assert status(verdict, "24.5%") == "derived"
    assert status(verdict, "$133 million") == "derived"


def test_a_change_its_rate_does_not_give_is_not_taken_from_it() -> None:
    verdict = check(HEADED.format("$143 million", "24.5%"), ("balance_sheet", LAYOUT))

    assert status(verdict, "$143 million") != "derived"
