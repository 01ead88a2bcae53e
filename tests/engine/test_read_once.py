"""What the engine reads from the evidence once per index, and from a report once per
number, gives what reading it each time gave: the prose rows of a text item, a table's
cells by the value they write, every entry's label, digits and value read in one pass,
the scales a text declares, and a report's ordinals in any case or form."""

from __future__ import annotations

from decimal import Decimal

from validation.engine.checks.numeric import build_index
from validation.engine.checks.numeric._derive_rows import _cells_by_value, _rows, _significant
from validation.engine.checks.numeric._prose_rows import _prose_groups, prose_groups
from validation.engine.checks.numeric._scales import declared_scales
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
    found = _cells_by_value(index, _rows(index), 0)
    assert Decimal(1250) in found  # the closing balance is next year's opening
    assert len(found[Decimal(1250)]) == 2
    assert Decimal(400) not in found  # "400": one significant digit, chance agreement
    assert _cells_by_value(index, _rows(index), 0) is found  # read once per item


def test_an_items_cells_by_value_are_its_own_alone() -> None:
    index = build_index(
        [
            EvidenceItem(source_ref="table", content=TABLE),
            EvidenceItem(source_ref="other", content=TABLE),
        ]
    )
    first, second = (_cells_by_value(index, _rows(index), item) for item in (0, 1))
    assert all(index.item_of(entry) == 0 for cells in first.values() for entry in cells)
    assert all(index.item_of(entry) == 1 for cells in second.values() for entry in cells)
    assert first.keys() == second.keys()


def test_every_entry_is_read_in_one_pass_as_its_label_says() -> None:
    content = {
        "title": "Revenue ($ in millions)",
        "line_items": {"Total": {"2019": 1250, "2018": 1100}},
        "a.b": 3.5,
        "prices": [101.25, 99.5],
        "segments": {"unit": "millions", "name": "Cloud", "revenue": 42.5},
    }
    evidence = [
        EvidenceItem(source_ref="statements", kind="tool", content=content),
        EvidenceItem(source_ref="table", content=TABLE),
        EvidenceItem(source_ref="note", content=NOTE),
    ]
    index = build_index(evidence)
    read = list(index.labelled_entries())
    assert [entry for entry, *_ in read] == [
        entry for entry in range(len(index)) if not index.is_mantissa(entry)
    ]
    for entry, item, label, key in read:
        assert item == index.item_of(entry)
        if key is None:
            assert label == index.label_of(entry)
        else:  # a number of a JSON object: its object's path and its key
            assert index.label_of(entry) == (f"{label}.{key}" if label else key)
    assert any(index.is_mantissa(entry) for entry in range(len(index)))  # scaled: twins
    for entry in range(len(index)):
        assert index.raw_of(entry) == index.number(entry).raw
        assert index.value_of(entry) == index.number(entry).value


def test_a_scale_declaration_is_found_only_where_its_words_are() -> None:
    assert declared_scales('"open"\n"close"\n"date"\n"2024-01-19"') == frozenset()
    assert declared_scales("Revenue (in millions)") == {Decimal(10**6)}
    assert declared_scales("USD m") == {Decimal(10**6)}
    assert declared_scales("Amounts in THOUSANDS") == {Decimal(1000)}
    assert declared_scales("RMB'000") == {Decimal(1000)}
    assert declared_scales("€m and £bn") == {Decimal(10**6), Decimal(10**9)}  # not ASCII


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
