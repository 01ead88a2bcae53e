"""A share whose base the report never writes, only a change of it: "gross non-current
deferred tax assets shrank by $2,406" (22,201 - 19,795), and two paragraphs later
"liabilities now offset about 28.5% of the gross assets in 2019" (5,637 / 19,795). A
reader with the evidence open takes the cells the report's own results were computed
from as the report's operands too. Such cells are the weakest operands there are: a pair
of them is weighed with everything else the search offers, never ahead of it."""

from __future__ import annotations

from tests.engine.reports import check, flagged, status

TABLE = (
    "(in thousands)\n\n|  | 2019 | 2018 |\n|---|---|---|\n"
    "| Non-current deferred tax assets | $19,795 | $22,201 |\n"
    "| Non-current deferred tax liabilities | $(5,637) | $(3,990) |\n"
    "| Total net deferred tax assets | $14,158 | $18,211 |\n"
)
BODY = (
    "Non-current deferred tax liabilities grew to $5,637 thousand from $3,990 thousand.\n\n"
    "Gross non-current deferred tax assets shrank by $2,406 thousand over the year.\n\n"
    "- Liabilities now offset a bigger slice of the gross assets: about {now} in 2019, "
    "compared with roughly {then} a year earlier.\n"
)


def test_a_share_of_a_line_the_report_only_derived_a_change_of_is_found() -> None:
    verdict = check(BODY.format(now="28.5%", then="18.0%"), ("table", TABLE))

    assert flagged(verdict) == []
    assert status(verdict, "28.5%") == "derived"
    assert status(verdict, "18.0%") == "derived"


def test_a_wrong_share_of_that_line_is_still_flagged() -> None:
    verdict = check(BODY.format(now="31.5%", then="18.0%"), ("table", TABLE))

    assert "31.5%" in flagged(verdict)
