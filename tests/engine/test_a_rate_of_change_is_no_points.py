"""A percentage written with "%" and words of a change is the line's rate of change, not a
difference of the percentage cells beside it.

Cost tables often give each line as an amount and as a percent of revenue, year by year.
"Services cost edged down by about 1.4%" is the change of the services amounts (346,510
to 341,650); the services shares of revenue beside them (38% and 34%) differ by 4 points,
which the writer did not write: "4%" there would be read as points only if it said so.
Weighed as two candidates of the sentence's own specification, the change and the points
made a 1.4% with a two-digit window too likely a coincidence to pass."""

from __future__ import annotations

from tests.engine.reports import check, findings_on, status

COSTS = (
    "|  | 2019 |  | 2018 |  |\n|---|---|---|---|---|\n"
    "|  | Amount | % of revenue | Amount | % of revenue |\n"
    "| Licenses | $ 71,204 | 9% | $ 40,118 | 5% |\n"
    "| Maintenance | 18,733 | 2 | 16,902 | 2 |\n"
    "| Services | 341,650 | 34 | 346,510 | 38 |\n"
    "| Total cost of revenue | $ 431,587 | 45% | 403,530 | 45% |\n"
)


def test_a_line_that_edged_down_by_a_small_rate_is_found() -> None:
    verdict = check(
        "**Services.** Still the largest cost, but it edged down by about 1.4%.",
        ("table", COSTS),
    )

    assert status(verdict, "1.4%") == "derived"


def test_a_wrong_small_rate_is_still_flagged() -> None:
    verdict = check(
        "**Services.** Still the largest cost, but it edged down by about 2.4%.",
        ("table", COSTS),
    )

    assert findings_on(verdict, "2.4%") != []


def test_a_change_written_as_points_is_still_the_points() -> None:
    verdict = check(
        "Services fell to 34% of revenue in 2019, down 4 percentage points from 38% in 2018.",
        ("table", COSTS),
    )

    assert findings_on(verdict, "4 percentage points") == []
