"""A figure the report restates may match a filing's sentence ("free cash flow grew 1.2% to
S$3.65 billion") and a tool's table row that writes the same value beside its other
periods ("Group free cash flow": 3,650 and 3,606). A change stated with it ("edged up by
S$44 million to S$3.65 billion") is taken over that row: the sentence alone has no
other period."""

from __future__ import annotations

from tests.engine.reports import check, flagged

TABLE = {
    "table_title": "Financial year ended 31 March",
    "line_items": {
        "Net cash inflow from operating activities": {
            "2019 (S$ million)": 5368,
            "2018 (S$ million)": 5955,
        },
        "Capital expenditure": {"2019 (S$ million)": 3247, "2018 (S$ million)": 3441},
        "Group free cash \ufb02ow": {"2019 (S$ million)": 3650, "2018 (S$ million)": 3606},
    },
}
PROSE = (
    "The Group's free cash flow grew 1.2% to S$3.65 billion. The increase was driven by "
    "lower capital expenditure partly offset by lower operating cash flow."
)


def body(change: str) -> str:
    return (
        "Lower capital expenditure meant group free cash flow actually edged up by "
        f"{change} to S$3.65 billion."
    )


def test_a_change_to_a_prose_figure_is_taken_over_the_table_row_it_restates() -> None:
    assert flagged(check(body("S$44 million"), ("financials", TABLE), ("p1", PROSE))) == []


def test_a_wrong_change_to_it_is_flagged() -> None:
    verdict = check(body("S$64 million"), ("financials", TABLE), ("p1", PROSE))
    assert "S$64 million" in flagged(verdict)
