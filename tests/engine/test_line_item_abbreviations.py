"""The abbreviations analysts write name the line items filings spell out.

"The R&D share of operating expense", "SG&A ran at about ...", "PP&E", "G&A", "D&A": a
report names a line by its initials where the filing writes "Research, development and
engineering expense" or "Selling, general and administrative expense". Read as their
words, the initials name those rows, so a share or an average of the line is found from
them."""

from __future__ import annotations

from tests.engine.reports import check, findings_on, status
from validation.engine.checks.numeric._labels import label_tokens

EXPENSES = (
    "                                                  2019          2018\n"
    "Selling, general and administrative expense   $21,480,300   $13,912,650\n"
    "Research, development and engineering expense   6,903,115     3,402,880\n"
    "Total operating expense                        $28,383,415   $17,315,530\n"
)


def test_initials_read_as_the_words_they_stand_for() -> None:
    assert {"selling", "general", "administrative"} <= label_tokens("SG&A")
    assert {"property", "plant", "equipment"} <= label_tokens("PP&E")
    assert label_tokens("R&D") & label_tokens("Research, development and engineering")


def test_a_share_of_the_line_its_initials_name_is_found() -> None:
    verdict = check(
        "The R&D share of operating expense rose to 24.3% from 19.7%.", ("table", EXPENSES)
    )

    assert status(verdict, "24.3%") == "derived"
    assert status(verdict, "19.7%") == "derived"


def test_an_average_of_the_line_its_initials_name_is_found() -> None:
    verdict = check(
        "Averaged across the two years, SG&A ran at about $17.7 million.", ("table", EXPENSES)
    )

    assert status(verdict, "$17.7 million") == "derived"


def test_a_wrong_share_is_still_flagged() -> None:
    verdict = check(
        "The R&D share of operating expense rose to 26.3% from 19.7%.", ("table", EXPENSES)
    )

    assert findings_on(verdict, "26.3%") != []
