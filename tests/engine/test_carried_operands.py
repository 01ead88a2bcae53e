"""A sentence that names another period ("a year earlier") and states no supported number
and no line item speaks of the line items the sentence before it states
(`_derive_carried`): their rows' other periods, and the rows of the same label in another
period's section of their table. Each case is written anew: the figures and words are ours,
and each has a slip beside it that must still be flagged."""

from __future__ import annotations

from tests.engine.reports import check, flagged, status

LICENCES = (
    "table",
    "| ($ in millions) | Gross | Amortization | Net |\n|---|---|---|---|\n"
    "| March 31, 2022: | | | |\n"
    "| Broadcast licences | 7.9 | 3.1 | 4.8 |\n"
    "| Patents | 22.6 | 0 | 22.6 |\n"
    "| March 31, 2021: | | | |\n"
    "| Broadcast licences | 8.4 | 2.2 | 6.2 |\n"
    "| Patents | 19.7 | 0 | 19.7 |",
)


def test_the_same_line_items_a_year_earlier_are_the_previous_sentences_rows() -> None:
    # 6.2 + 19.7 = 25.9: the two rows of the same labels in the 2021 section.
    verdict = check(
        "Net of amortization they come to $27.4 million: $4.8 million of broadcast licences"
        " and $22.6 million of patents. The same two totalled $25.9 million a year earlier.",
        LICENCES,
    )

    assert status(verdict, "$25.9 million") == "derived"
    assert flagged(verdict) == []


def test_a_slip_of_that_total_is_still_flagged() -> None:
    verdict = check(
        "Net of amortization they come to $27.4 million: $4.8 million of broadcast licences"
        " and $22.6 million of patents. The same two totalled $24.9 million a year earlier.",
        LICENCES,
    )

    assert any("24.9" in text for text in flagged(verdict))
