"""A number may restate, at its own scale or rounding, a result the report derives
elsewhere: a headline's "$2.95 million" for the "$2,948 thousand" a bullet adds up from a
table without a total line. It is that result, weighed among the report's other results
alone; a figure matching none, or one half-way between two roundings, is not."""

from __future__ import annotations

from tests.engine.reports import check as verdict_on
from tests.engine.reports import findings_on, status

ACCRUED = {
    "table_title": "Accrued liabilities (in thousands)",
    "line_items": {
        "Salaries and wages": {"2024": 1312, "2023": 1190},
        "Payroll taxes": {"2024": 214, "2023": 187},
        "Warranty reserve": {"2024": 611, "2023": 598},
        "Other": {"2024": 811, "2023": 724},
    },
}

BULLET = (
    "- Accrued liabilities reached $2,948 thousand in 2024 "
    "(1,312 + 214 + 611 + 811), against $2,699 thousand in 2023."
)


def test_a_headline_restating_a_derived_total_at_another_scale_is_that_total() -> None:
    body = "**Accrued liabilities climb to $2.95 million**\n\n" + BULLET
    verdict = verdict_on(body, ("note", ACCRUED))
    assert status(verdict, "$2,948 thousand") == "derived"
    assert status(verdict, "$2.95 million") == "derived"
    assert findings_on(verdict, "$2.95 million") == []


def test_a_headline_that_restates_no_result_is_still_flagged() -> None:
    body = "**Accrued liabilities climb to $3.95 million**\n\n" + BULLET
    verdict = verdict_on(body, ("note", ACCRUED))
    assert status(verdict, "$3.95 million") != "derived"
    assert findings_on(verdict, "$3.95 million") != []
