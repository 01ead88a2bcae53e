"""A lone figure of the evidence's prose is named by the noun phrase its own words end in
(`_derive_rows.head_words`): "pre-tax restructuring charges of $9.3 million" is a
restructuring charge, however long the sentence around it. Each case is written anew:
the figures and words are ours, and each has a slip beside it that must still be flagged."""

from __future__ import annotations

from tests.engine.reports import check, flagged, status
from validation.engine.checks.numeric._derive_rows import head_words

NOTES = (
    "text",
    "Fiscal 2021 also includes pre-tax restructuring charges of $9.3 million related to the"
    " closure of the Tulsa plant, and a gain of $2.2 million on the sale of a warehouse.\n\n"
    "Fiscal 2020 includes pre-tax restructuring charges of $4.1 million related to the"
    " consolidation of two Ohio distribution centres.",
)


def test_a_difference_of_two_lone_figures_its_clause_names() -> None:
    verdict = check(
        "Restructuring charges for the plant closure were $5.2 million higher than the prior"
        " year's restructuring charges.",
        NOTES,
    )

    assert status(verdict, "$5.2 million") == "derived"
    assert flagged(verdict) == []


def test_a_slip_of_that_difference_is_still_flagged() -> None:
    verdict = check(
        "Restructuring charges for the plant closure were $6.2 million higher than the prior"
        " year's restructuring charges.",
        NOTES,
    )

    assert any("6.2" in text for text in flagged(verdict))


def test_the_phrase_before_a_word_of_linking_names_the_figure() -> None:
    words = head_words("Fiscal 2019 also includes pre-tax restructuring charges of")
    assert words >= {"restructuring", "charge"}
    assert "fiscal" not in words
    assert head_words("Interest costs were approximately") >= {"interest", "cost"}
    # A change ("sales increased by") or a list ("across all regions and") names nothing.
    assert head_words("Film and electrolytic sales increased by") == frozenset()
    assert head_words("in the EMS channel across all regions and") == frozenset()
