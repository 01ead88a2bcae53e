"""A plural in "-ies" names what its singular names: "low-risk countries" is the line
"Country risk: Low", "the subsidiaries" the line "Subsidiary". A report's words and a
filing's labels take either number freely."""

from __future__ import annotations

from tests.engine.reports import check, status
from validation.engine.checks.numeric._labels import label_tokens

AGEING = (
    "| Days past due | 1-90 | 91-180 | 181-360 | >360 |\n"
    "|---|---|---|---|---|\n"
    "| Country risk: Low | 1,347 | 125 | 127 | 313 |\n"
    "| Country risk: Medium | 891 | 725 | 600 | 819 |\n"
    "| Country risk: High | 583 | 365 | 217 | 1,315 |\n"
)


def test_a_plural_in_ies_is_its_singular() -> None:
    assert label_tokens("low-risk countries") >= {"country", "low", "risk"}
    assert "liability" in label_tokens("Deferred tax liabilities")
    assert label_tokens("Series A") == label_tokens("series a")


def test_a_line_named_in_the_plural_is_averaged() -> None:
    verdict = check(
        "Across the four ageing buckets, low-risk countries average about 478.",
        ("table", AGEING),
    )

    assert status(verdict, "478") == "derived"
