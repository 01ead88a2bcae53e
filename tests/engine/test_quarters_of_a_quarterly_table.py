"""A quarterly table dates every quarter of each year it lays out.

Filings print their quarterly data with one column per quarter ("First  Second  Third
Fourth", or "Q1 | Q2 | Q3 | Q4") and the years as rows or section lines. A report that
names "the first quarter of 2018" from such a table names a quarter the evidence dates,
however far the year's line is from the column header.
"""

from __future__ import annotations

import pytest

from validation.engine.pipeline import validate
from validation.engine.types import Bundle, EngineSettings, Finding

LAYOUT = (
    "                          First     Second      Third     Fourth\n"
    "2020                                                            \n"
    "Net sales              $101,310   $104,922    $99,407    $98,655\n"
    "Operating income        $12,004    $15,811     $8,370    $10,940\n"
    "2019                                                            \n"
    "Net sales               $97,840   $102,115   $103,006   $104,377\n"
    "Operating income        $11,560    $12,710    $14,105    $14,920\n"
)
MARKDOWN = (
    "| (in thousands) | Q1 | Q2 | Q3 |\n"
    "|---|---|---|---|\n"
    "| 2020 revenue | 410 | 433 | 452 |\n"
    "| 2019 revenue | 388 | 401 | 415 |\n"
)


def _periods(body: str, table: str) -> list[str]:
    bundle = Bundle(
        query="How did the quarters go?",
        body=body,
        evidence=[{"source_ref": "quarterly", "content": table}],
    )
    verdict = validate(bundle, EngineSettings(citations="none"))
    found: list[Finding] = [f for f in verdict.findings if f.kind == "unsupported_year"]
    return [f.text for f in found]


@pytest.mark.parametrize(
    "body",
    [
        "Net sales in the first quarter of 2019 were $97,840 thousand.",
        "Fourth-quarter 2020 net sales came to $98,655 thousand.",
        "In Q3 2019 operating income was $14,105 thousand.",
    ],
)
def test_a_quarter_of_a_year_the_layout_lays_out_is_dated(body: str) -> None:
    assert _periods(body, LAYOUT) == []


def test_a_quarter_of_a_year_the_markdown_table_lays_out_is_dated() -> None:
    assert _periods("Revenue in Q2 2019 was $401 thousand.", MARKDOWN) == []


def test_a_quarter_the_table_has_no_column_for_is_still_a_moved_period() -> None:
    assert _periods("Revenue in Q4 2019 was $415 thousand.", MARKDOWN) == ["2019"]


def test_ordinal_words_that_do_not_head_quarters_date_nothing() -> None:
    table = "                    First     Second\n2019 lien notes      $400       $250\n"

    assert _periods("Interest in the first quarter of 2019 was $4 million.", table) == ["2019"]


def test_a_wall_of_quarter_headers_is_read_in_linear_time() -> None:
    wall = "First Second Third Fourth 2019\n" * 8_000

    assert _periods("Sales in the first quarter of 2019 were $5 million.", wall) == []
