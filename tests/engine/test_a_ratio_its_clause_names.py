"""A ratio its clause names is that ratio of the named lines, whatever the verbs around
it: "the current ratio eased from 0.81 in 2018 to 0.78 in 2019" is total current assets
over total current liabilities of each year. Written as a move ("eased from ... to"),
the 2019 figure was searched as a change, among every candidate, and not found. A
ratio that misses its lines is still flagged."""

from __future__ import annotations

from tests.engine.reports import check, flagged, status

TABLE = (
    "| Parent | 2019 | 2018 |\n|---|---|---|\n"
    "| | US$'000 | US$'000 |\n"
    "| Total current assets | 121,041 | 73,202 |\n"
    "| Total assets | 383,665 | 336,032 |\n"
    "| Total current liabilities | 154,619 | 90,392 |\n"
    "| Total liabilities | 155,521 | 92,364 |\n"
    "| Total equity | 228,144 | 243,668 |\n"
)
BODY = (
    "**Current ratio.** Because liabilities outpaced assets, the current ratio eased "
    "from 0.81 in 2018 to {ratio} in 2019."
)


def test_the_named_ratio_of_the_year_it_names_is_derived() -> None:
    verdict = check(BODY.format(ratio="0.78"), ("table", TABLE))

    assert status(verdict, "0.78") == "derived"
    assert flagged(verdict) == []


def test_a_named_ratio_that_misses_its_lines_is_flagged() -> None:
    verdict = check(BODY.format(ratio="0.87"), ("table", TABLE))

    assert flagged(verdict) == ["0.87"]
