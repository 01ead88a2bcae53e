"""A change written with its rate after it is the change the rate is of.

"The subtotal fell by $133 million, or about 24.5%": when the report's 24.5% is the
percentage change of two cells (543 to 410), the $133 million beside it is their
difference: the words give the change and its rate as one change in two forms. The
amount is weighed against that one candidate, not against every difference of the
table's cells.
"""

from __future__ import annotations

from tests.engine.reports import check, status
from tests.engine.test_a_layouts_unlabelled_subtotal import LAYOUT

HEADED = "### Did other current assets shrink overall?\nYes. The subtotal fell by {}, or about {}."


def test_a_change_beside_the_rate_it_gives_is_that_rates_change() -> None:
    verdict = check(HEADED.format("$133 million", "24.5%"), ("balance_sheet", LAYOUT))

    assert status(verdict, "24.5%") == "derived"
    assert status(verdict, "$133 million") == "derived"


def test_a_change_its_rate_does_not_give_is_not_taken_from_it() -> None:
    verdict = check(HEADED.format("$143 million", "24.5%"), ("balance_sheet", LAYOUT))

    assert status(verdict, "$143 million") != "derived"
