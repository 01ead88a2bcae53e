"""A lone result about the line the sentence before it derived a change of: "Interest
expense fell by $1,258 thousand, or about 37.6%. The 2017 interest bill was about 1.6
times the 2018 level." The second sentence states no evidence figure and names its line
only loosely ("interest bill"), but a reader takes the two years of the line just
compared: the cells the previous sentence's results were computed from are its
operands, as the cells that sentence states would be."""

from __future__ import annotations

from tests.engine.reports import check, flagged, status

TABLE = (
    "(Amounts in thousands)\n\n|  | 2018 | 2017 |\n|---|---|---|\n"
    "| Interest expense | $(2,085) | $(3,343) |\n"
    "| Interest income | 1,826 | 1,284 |\n"
    "| Other (expense) income | (2,676) | 3,817 |\n"
)


def test_a_multiple_of_the_line_the_sentence_before_derived_is_found() -> None:
    body = (
        "Interest expense fell by $1,258 thousand, or about 37.6%, on lower debt. "
        "The 2017 interest bill was about 1.6 times the 2018 level."
    )
    verdict = check(body, ("table", TABLE))

    assert flagged(verdict) == []
    assert status(verdict, "1.6") == "derived"


def test_a_wrong_multiple_of_that_line_is_still_flagged() -> None:
    body = (
        "Interest expense fell by $1,258 thousand, or about 37.6%, on lower debt. "
        "The 2017 interest bill was about 1.9 times the 2018 level."
    )
    verdict = check(body, ("table", TABLE))

    assert "1.9" in flagged(verdict)


def test_the_year_after_times_is_the_base() -> None:
    """3,343 over 2,085 is 1.6, but the words put 2017 in the base: 2,085 over 3,343 is
    0.62, so "1.6 times the 2017 level" of 2018 is no such multiple."""
    body = (
        "Interest expense fell by $1,258 thousand, or about 37.6%, on lower debt. "
        "The 2018 interest bill was about 1.6 times the 2017 level."
    )
    verdict = check(body, ("table", TABLE))

    assert "1.6" in flagged(verdict)
