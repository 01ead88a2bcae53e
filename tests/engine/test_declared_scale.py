"""A table that says its scale ("($ in millions)" in a tool's title, "(in thousands)" above
a text table) holds the scale of every result computed from its digits: a difference of
two of its cells written at another scale is a slipped scale word, not a derivation."""

from __future__ import annotations

from tests.engine.reports import check, findings_on, fixes, status

# A tool's JSON table whose title declares millions; no key names a unit.
LIABILITIES = {
    "table_title": "($ in millions) As of December 31,",
    "line_items": {
        "Accrued warranty": {"2024": 41.8, "2023": 37.2},
        "Customer deposits": {"2024": 12.5, "2023": 19.9},
        "Total other liabilities": {"2024": 212.4, "2023": 198.7},
    },
}

TEXT_TABLE = """Other liabilities (in millions)
                              2024        2023
Accrued warranty              41.8        37.2
Customer deposits             12.5        19.9
Total other liabilities      212.4       198.7
"""


def test_a_difference_at_the_declared_scale_is_derived_from_a_json_table() -> None:
    body = (
        "Total other liabilities reached $212.4 million at the end of 2024, "
        "up $13.7 million from $198.7 million a year earlier."
    )
    verdict = check(body, ("tool", LIABILITIES))
    assert status(verdict, "$13.7 million") == "derived"
    assert findings_on(verdict, "$13.7 million") == []


def test_the_same_difference_written_in_billions_is_a_slipped_scale_word() -> None:
    body = (
        "Total other liabilities reached $212.4 million at the end of 2024, "
        "up $13.7 billion from $198.7 million a year earlier."
    )
    verdict = check(body, ("tool", LIABILITIES))
    assert status(verdict, "$13.7 billion") != "derived"
    assert fixes(verdict).get("$13.7 billion") == "$13.7 million"


def test_a_text_table_in_millions_holds_its_scale_too() -> None:
    body = (
        "Customer deposits fell to $12.5 million in 2024 from $19.9 million, "
        "a decline of $7.4 billion."
    )
    verdict = check(body, ("filing", TEXT_TABLE))
    assert status(verdict, "$7.4 billion") != "derived"
    right = check(body.replace("$7.4 billion", "$7.4 million"), ("filing", TEXT_TABLE))
    assert status(right, "$7.4 million") == "derived"


def test_bare_digits_of_a_table_that_declares_no_scale_stay_free() -> None:
    # Nothing says what the digits stand for: the writer's "billion" is theirs to give.
    undeclared = {"line_items": LIABILITIES["line_items"]}
    body = "Total other liabilities rose by $13.7 billion, to $212.4 billion."
    verdict = check(body, ("tool", undeclared))
    assert status(verdict, "$13.7 billion") == "derived"
