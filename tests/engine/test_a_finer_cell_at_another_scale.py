"""A figure that restates a cell at another scale keeps its match: "$276.9 million" for a
filing's 276,852 (in thousands) writes one decimal, the cell none, yet the cell is the
finer of the two. Only a cell written with fewer digits in the same units ("increased 24%"
for "rose 24.4%") makes a match too weak to stand against the figure's own arithmetic."""

from __future__ import annotations

from tests.engine.reports import check, flagged

CASH_FLOWS = """\
                                                               Year Ended December 31,
                                                           2019          2018          2017
Net cash provided by operating activities              $115,549       $90,253       $67,510
Net cash used in investing activities                  (97,727)      (20,876)      (36,666)
Net cash provided by (used in) financing activities      14,775     (278,016)       276,852
"""


NOTE = "The table below summarizes our cash flows for the periods shown (in thousands):"


def body(inflow: str) -> str:
    return (
        "Operating cash flow rose to $115.5 million in 2019 from $90.3 million in 2018.\n\n"
        "**Financing: large swings in both directions.** Financing produced a big inflow of "
        f"{inflow} in 2017 and then an almost equally large outflow of $278.0 million in "
        "2018, the two roughly cancelling each other out. The table does not explain either "
        "movement, and 2019 brought only a small $14.8 million inflow."
    )


def test_a_figure_restating_a_finer_cell_at_another_scale_keeps_its_match() -> None:
    verdict = check(body("$276.9 million"), ("cash flows", CASH_FLOWS), ("p1", NOTE))
    assert flagged(verdict) == []
    (match,) = [match for match in verdict.numbers.matches if match.text == "$276.9 million"]
    assert match.status == "rounded"


def test_a_misquoted_figure_is_still_flagged() -> None:
    verdict = check(body("$267.9 million"), ("cash flows", CASH_FLOWS), ("p1", NOTE))
    assert "$267.9 million" in flagged(verdict)
