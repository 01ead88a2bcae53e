"""A close figure is fixed only to the cell its words name, and a net figure is the sum of
its lines with their signs.

A cash-flow table writes outflows in parentheses. "Taken together, the three lines imply
a net outflow of $41.2 million" adds the column with its signs: 283,710 - 692,999 +
368,120 = -41,169. Read without signs, no sum lands there, and the nearest evidence
figure ($43.0 million of short-term investments, in the filing's prose) is of another
line: the report's words ("net cash") fit the table's rows better than that figure's, so
they do not name it, and no fix may turn the writer's right figure into it."""

from __future__ import annotations

from tests.engine.reports import check, findings_on, fixes_on, status

CASH_FLOWS = (
    "| | 2017 | 2018 | Change |\n|---|---|---|---|\n"
    "| Amounts in thousands of U.S. dollars | | | |\n"
    "| Net cash provided by operating activities | $223,630 | $283,710 | $60,080 |\n"
    "| Net cash used in investing activities | (74,599) | (692,999) | (618,400) |\n"
    "| Net cash provided by financing activities | 7,265 | 368,120 | 360,855 |\n"
)
INVESTING = (
    "Net cash used in investing activities increased by $618.4 million. The increase is "
    "mainly attributable to payments for newbuildings and a net decrease in cash from "
    "short-term investments of $43.0 million in 2018 compared to 2017."
)


def test_the_three_lines_of_a_column_net_with_their_signs() -> None:
    body = (
        "Operating cash flow rose to $283.7 million in 2018, investing used $693.0 "
        "million and financing brought in $368.1 million. Taken together, the three "
        "lines imply a net cash outflow of about $41.2 million in 2018, against an "
        "inflow of $156.3 million in 2017."
    )
    verdict = check(body, ("table", CASH_FLOWS), ("p6", INVESTING))

    assert status(verdict, "$41.2 million") == "derived"
    assert status(verdict, "$156.3 million") == "derived"
    assert fixes_on(verdict, "$41.2 million") == []


def test_a_wrong_net_figure_is_still_flagged() -> None:
    body = (
        "Operating cash flow rose to $283.7 million in 2018, investing used $693.0 "
        "million and financing brought in $368.1 million. Taken together, the three "
        "lines imply a net cash outflow of about $47.2 million in 2018."
    )
    verdict = check(body, ("table", CASH_FLOWS), ("p6", INVESTING))

    assert findings_on(verdict, "$47.2 million") != []


def test_no_fix_to_a_figure_of_another_line_the_words_name_less_well() -> None:
    """$45.0 million is near the prose's $43.0 million of short-term investments, but
    "net cash" names the table's rows, not that figure: flagged, not fixed to it."""
    body = "The statement shows net cash outflow of about $45.0 million for 2018."
    verdict = check(body, ("table", CASH_FLOWS), ("p6", INVESTING))

    assert ("$45.0 million", "$43.0 million") not in fixes_on(verdict, "$45.0 million")
    assert findings_on(verdict, "$45.0 million") != []


def test_a_misquoted_figure_is_still_fixed_to_the_one_its_words_name() -> None:
    body = "Short-term investments released a net decrease in cash of $45.0 million in 2018."
    verdict = check(body, ("table", CASH_FLOWS), ("p6", INVESTING))

    assert fixes_on(verdict, "$45.0 million") == [("$45.0 million", "$43.0 million")]


def test_a_tools_lines_net_with_the_signs_its_numbers_carry() -> None:
    """A tool's JSON writes an outflow as a negative number, not in parentheses: the net
    takes its sign all the same."""
    flows = {
        "unit": "thousands of U.S. dollars",
        "Net cash provided by operating activities": {"2017": 223630, "2018": 283710},
        "Net cash used in investing activities": {"2017": -74599, "2018": -692999},
        "Net cash provided by financing activities": {"2017": 7265, "2018": 368120},
    }
    body = (
        "Operating cash flow rose to $283.7 million in 2018, investing used $693.0 "
        "million and financing brought in $368.1 million. Taken together, the three "
        "lines imply a net cash outflow of about $41.2 million in 2018."
    )
    verdict = check(body, ("cash_flows", flows))

    assert status(verdict, "$41.2 million") == "derived"
