"""What the engine reads from the evidence once per index, and from a report once per
number, gives what reading it each time gave: the prose rows of a text item, a table's
cells by the value they write, and a report's ordinals in any case or form."""

from __future__ import annotations

from decimal import Decimal

from validation.engine.checks.numeric import build_index
from validation.engine.checks.numeric._derive_rows import _cells_by_value, _rows, _significant
from validation.engine.checks.numeric._prose_rows import _prose_groups, prose_groups
from validation.engine.checks.ranks import _ORDINAL, _ranks
from validation.engine.types import EvidenceItem

NOTE = (
    "Licence income was $18.4 million in 2022, $16.9 million in 2021 and $15.2 million "
    "in 2020. Headcount rose to 310 at the end of 2022."
)
TABLE = (
    "| Line | 2022 | 2021 |\n|---|---|---|\n| Opening balance | 1,250 | 1,100 |\n"
    "| Additions | 400 | 350 |\n| Closing balance | 1,650 | 1,250 |\n"
)


def test_prose_rows_are_read_once_per_index_and_the_same_as_a_fresh_read() -> None:
    index = build_index([EvidenceItem(source_ref="note", content=NOTE)])
    first = prose_groups(index)
    assert prose_groups(index) is first  # kept in the index's memo
    assert first == _prose_groups(index)
    assert len(first) == 3  # the three years of licence income, one row


def test_a_tables_cells_by_value_hold_only_values_of_three_significant_digits() -> None:
    index = build_index([EvidenceItem(source_ref="table", content=TABLE)])
    found = _cells_by_value(index, _rows(index))
    values = {value for _, value in found}
    assert Decimal(1250) in values  # the closing balance is next year's opening
    assert len(found[(0, Decimal(1250))]) == 2
    assert Decimal(400) not in values  # "400": one significant digit, chance agreement


def test_significant_digits_of_a_number_as_written() -> None:
    assert _significant("1250") == 3
    assert _significant("1200") == 2
    assert _significant("0.0120") == 2
    assert _significant("100.001") == 6
    assert _significant("0") == 0


def test_ordinals_are_found_in_any_case_and_form() -> None:
    text = "It FINISHED Twenty-First, then placed 4th, and the SECOND-place team came in 11th."
    assert [match.group() for match in _ORDINAL.finditer(text)] == [
        "Twenty-First",
        "4th",
        "SECOND",
        "11th",
    ]
    every, ranks, _ = _ranks(text, frozenset())
    assert every == {21, 4, 2, 11}
    assert ranks == {21, 4, 11}  # "the second-place team": after an article, no rank


def test_a_number_glued_to_a_word_is_still_read_as_an_ordinal_as_before() -> None:
    assert [match.group(4) for match in _ORDINAL.finditer("a1st but not 1.2nd")] == ["1"]
