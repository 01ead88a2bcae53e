"""A passage that writes its scale where it means one ("$2.2 million") writes its other
dollar figures in full: "increased $710,000" is seven hundred and ten thousand dollars,
never $710 million read as thousands. A table's bare cells stay free to be read at the
scale the report reads them at."""

from __future__ import annotations

from tests.engine.reports import check, findings_on, status

TABLE = """Year Ended December 31, (In thousands)
| | 2024 | 2023 |
|---|---|---|
| Revenues | $58,214 | $57,480 |
"""

PASSAGE = (
    "Domestic net revenues increased $734,000 in 2024 compared to 2023. Domestic "
    "expenses decreased $1.9 million, primarily due to lower salaries."
)

PASSAGE_WITHOUT_SCALE_WORDS = "Domestic net revenues increased $734,000 in 2024 compared to 2023."


def test_a_prose_figure_in_full_dollars_is_not_thousands() -> None:
    body = "Revenues reached $58.2 million in 2024, an increase of $734 million on the year before."
    verdict = check(body, ("table", TABLE), ("passage", PASSAGE))
    assert status(verdict, "$734 million") not in ("exact", "rounded")
    assert findings_on(verdict, "$734 million") != []


def test_the_same_figure_written_right_passes() -> None:
    body = "Revenues reached $58.2 million in 2024, an increase of $734,000 on the year before."
    verdict = check(body, ("table", TABLE), ("passage", PASSAGE))
    assert status(verdict, "$734,000") == "exact"
    assert findings_on(verdict, "$734,000") == []


def test_the_tables_bare_cells_are_still_read_in_thousands() -> None:
    body = "Revenues reached $58.2 million in 2024."
    verdict = check(body, ("table", TABLE), ("passage", PASSAGE))
    assert status(verdict, "$58.2 million") == "rounded"


def test_a_passage_that_never_writes_a_scale_word_leaves_the_reading_open() -> None:
    # Nothing in it says its digits are dollars rather than thousands.
    body = "Domestic net revenues increased $734 million in 2024."
    verdict = check(body, ("passage", PASSAGE_WITHOUT_SCALE_WORDS))
    assert status(verdict, "$734 million") == "exact"


def test_one_digit_is_no_other_scales_figure_by_a_rounding() -> None:
    # "$3 million" shares a single digit with "$3.4 billion": no wrong scale, no fix.
    evidence = "Net revenues were $3.4 billion in the current year, up 12%."
    verdict = check("Net revenues in the current year were $3 million.", ("passage", evidence))
    assert "wrong_scale" not in findings_on(verdict, "$3 million")
    exact = check("Net revenues were $3 million.", ("passage", "Net revenues were $3 billion."))
    assert "wrong_scale" in findings_on(exact, "$3 million")
