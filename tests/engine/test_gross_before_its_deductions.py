"""The gross a net line is left from, where the table does not write it.

A schedule lists its lines, deducts from them ("Less accumulated depreciation",
"Accumulated amortization" as a negative) and writes only the net ("Property and
equipment, net"). An analyst who writes "56% of gross cost" adds the lines above the
deduction: the gross the net was left from. The search offers that gross, one a column,
where a sentence says "gross" and the lines, the deduction and the net tie; where they
do not tie, no gross is made up.
"""

from __future__ import annotations

from tests.engine.reports import check, status

SCHEDULE = (
    "| (in thousands) | 2020 | 2019 |\n"
    "|---|---|---|\n"
    "| Machinery | 8,300 | 7,400 |\n"
    "| Software | 5,300 | 4,100 |\n"
    "| Buildings | 2,500 | 2,500 |\n"
    "| Less accumulated depreciation | (9,000) | (7,000) |\n"
    "| Property and equipment, net | 7,100 | 7,000 |\n"
)
RECORD = {
    "table_title": "(In thousands) Year ended March 31,",
    "line_items": {
        "Machinery": {"2020": 8300, "2019": 7400},
        "Software": {"2020": 5300, "2019": 4100},
        "Buildings": {"2020": 2500, "2019": 2500},
        "Accumulated depreciation and amortization": {"2020": -9000, "2019": -7000},
        "Property and equipment, net": {"2020": 7100, "2019": 7000},
    },
}


def test_a_deduction_as_a_share_of_the_gross_cost_the_table_does_not_write() -> None:
    verdict = check(
        "Accumulated depreciation reached $9.0 million in 2020, about 55.9% of gross cost.",
        ("schedule", SCHEDULE),
    )

    assert status(verdict, "55.9%") == "derived"


def test_a_line_as_a_share_of_the_gross_of_a_tool_record() -> None:
    verdict = check(
        "Software, at $5.3 million in 2020, is now roughly 32.9% of gross cost.",
        ("financials_tool", RECORD),
    )

    assert status(verdict, "32.9%") == "derived"


def test_the_gross_itself_is_found_in_another_scale() -> None:
    verdict = check(
        "Gross property and equipment came to about $16.1 million in 2020.",
        ("schedule", SCHEDULE),
    )

    assert status(verdict, "$16.1 million") == "derived"


def test_lines_that_do_not_tie_to_the_net_make_no_gross() -> None:
    untied = SCHEDULE.replace("| 7,100 | 7,000 |", "| 7,900 | 7,000 |")

    verdict = check(
        "Accumulated depreciation reached $9.0 million in 2020, about 55.9% of gross cost.",
        ("schedule", untied),
    )

    assert status(verdict, "55.9%") != "derived"
