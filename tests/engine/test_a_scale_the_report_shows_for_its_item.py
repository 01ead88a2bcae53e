"""A tool's table that states no scale, read in thousands by its writer: "Tax-exempt
interest income ... was $197 thousand" names its line and writes its cell's digits under
a scale word. The same report then writes another cell of that table the same way in a
sentence that names no line ("It was a $4,095 thousand item in fiscal 2017", after a
bullet's heading). The writer reads the whole table at one scale, so a figure whose digits
are exactly one cell of it, at the scale the report already shows for it, is that cell.
At another scale it is not."""

from __future__ import annotations

from tests.engine.reports import check, flagged, status

TOOL = {
    "table_title": "Fiscal year end",
    "line_items": {
        "Domestic manufacturers deduction": {
            "June 1, 2019": "\u2014",
            "June 2, 2018": -2545,
            "June 3, 2017": 4095,
        },
        "Tax exempt interest income": {
            "June 1, 2019": -197,
            "June 2, 2018": -101,
            "June 3, 2017": -206,
        },
    },
}


def _body(scale: str) -> str:
    return (
        "- **Tax-exempt interest income** was $197 thousand in fiscal 2019.\n"
        f"- **Domestic manufacturers deduction**: this one flipped sign. It was a $4,095 {scale} "
        "item in fiscal 2017."
    )


def test_a_cell_read_at_the_scale_the_report_shows_for_its_table() -> None:
    verdict = check(_body("thousand"), ("financials_tool", TOOL))

    assert status(verdict, "$4,095 thousand") == "exact"
    assert flagged(verdict) == []


def test_a_cell_at_another_scale_than_the_report_shows_is_still_flagged() -> None:
    verdict = check(_body("million"), ("financials_tool", TOOL))

    assert "$4,095 million" in flagged(verdict)
