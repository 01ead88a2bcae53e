"""A percentage stated with the change it is of (issue 25, point 4): the change names the
writer's operands, so a percentage it does not give is recomputed from it, over the
level the change started from; any doubt, and nothing is proposed. Examples written
anew (a pump maker's segments)."""

from __future__ import annotations

from tests.engine.reports import check, findings_on, fixes_on

SEGMENTS = (
    "(in thousands)\n\n| | 2024 | 2023 |\n|---|---|---|\n"
    "| Industrial pumps | 41,760 | 36,250 |\n"
    "| Marine pumps | 18,420 | 21,980 |\n"
    "| Service revenue | 9,310 | 8,875 |\n"
    "| Total | 69,490 | 67,105 |\n"
)


def test_a_percentage_its_stated_rise_does_not_give_is_fixed_over_the_start() -> None:
    """5,510 / 36,250 = 15.2 %; "17.2%" is a slip of the rise written beside it."""
    body = (
        "Industrial pumps sold $41,760 thousand in 2024, an increase of $5,510 thousand, "
        "or about 17.2%, on 2023."
    )
    verdict = check(body, ("segments", SEGMENTS))

    ((_find, replace),) = fixes_on(verdict, "17.2%")
    assert "15.2%" in replace


def test_a_fall_is_taken_over_the_larger_level() -> None:
    """3,560 / 21,980 = 16.2 % (over the end, 18,420, it would be 19.3 %)."""
    body = "Marine pumps shrank by $3.56 million, a decline of roughly 19.3% year on year."
    verdict = check(body, ("segments", SEGMENTS))

    ((_find, replace),) = fixes_on(verdict, "19.3%")
    assert "16.2%" in replace


def test_a_change_with_its_end_between_is_still_the_operand() -> None:
    body = "Marine pumps fell by $3.56 million to $18.42 million, a drop of about 12.6%."
    verdict = check(body, ("segments", SEGMENTS))

    ((_find, replace),) = fixes_on(verdict, "12.6%")
    assert "16.2%" in replace


def test_a_correct_percentage_of_the_change_is_left_alone() -> None:
    body = "Service revenue grew by $435 thousand, or about 4.9%, to $9,310 thousand."
    verdict = check(body, ("segments", SEGMENTS))

    assert fixes_on(verdict, "4.9%") == []
    assert findings_on(verdict, "4.9%") == []


def test_a_share_stated_after_a_change_is_not_the_changes_rate() -> None:
    """ "or 7.9% of total sales": a share of something else, not a slip of the rise."""
    body = "Industrial pumps rose by $5,510 thousand in 2024, or 7.9% of total sales for the year."
    verdict = check(body, ("segments", SEGMENTS))

    assert fixes_on(verdict, "7.9%") == []


def test_two_line_items_that_moved_by_the_same_amount_leave_it_ambiguous() -> None:
    """Both rows rose by 500: over 4,000 that is 12.5 %, over 9,000 5.6 %. The words
    name neither, so no fix."""
    evidence = (
        "(in thousands)\n\n| | 2024 | 2023 |\n|---|---|---|\n"
        "| Valves | 4,500 | 4,000 |\n"
        "| Seals | 9,500 | 9,000 |\n"
    )
    body = "One of the product lines went up by $500 thousand, or about 9.0%."
    verdict = check(body, ("lines", evidence))

    assert fixes_on(verdict, "9.0%") == []


def test_a_far_off_percentage_is_not_taken_for_the_changes_slip() -> None:
    """A quarter off and more: another quantity, not a slip of the hand."""
    body = "Industrial pumps climbed by $5,510 thousand, roughly 31.0% higher."
    verdict = check(body, ("segments", SEGMENTS))

    assert fixes_on(verdict, "31.0%") == []


def test_a_change_column_cell_with_swapped_digits_is_fixed_by_its_row() -> None:
    """A report table's "% change" column names the operation of its cells: 52,300 over
    36,250 is +44.3 %, written +43.4 %."""
    body = (
        "| Segment | 2024 | 2023 | % change |\n|---|---|---|---|\n"
        "| Industrial pumps | 52,300 | 36,250 | +43.4% |\n"
        "| Service revenue | 9,310 | 8,875 | +4.9% |\n"
    )
    verdict = check(body, ("segments", SEGMENTS.replace("41,760", "52,300")))

    ((_find, replace),) = fixes_on(verdict, "+43.4%")
    assert "44.3%" in replace
    assert fixes_on(verdict, "+4.9%") == []


def test_a_table_cell_without_a_computed_header_is_not_read_as_a_result() -> None:
    body = (
        "| Segment | 2024 | 2023 | Margin |\n|---|---|---|---|\n"
        "| Industrial pumps | 52,300 | 36,250 | 43.4% |\n"
    )
    verdict = check(body, ("segments", SEGMENTS.replace("41,760", "52,300")))

    assert fixes_on(verdict, "43.4%") == []


def test_a_swapped_change_of_the_rows_own_figures_is_fixed_in_a_small_table() -> None:
    """41,760 over 36,250 is +15.2 %, written +12.5 %: both figures stand in the row, the
    header names the change, and the swap's chance of a coincidence (about 1.2 % over
    both variants' neighbourhoods) is under the variants' bound."""
    body = (
        "| Segment | 2024 | 2023 | % change |\n|---|---|---|---|\n"
        "| Industrial pumps | 41,760 | 36,250 | +12.5% |\n"
    )
    verdict = check(body, ("segments", SEGMENTS))

    ((_find, replace),) = fixes_on(verdict, "+12.5%")
    assert "15.2%" in replace


def test_a_level_that_restates_a_cell_is_not_another_rows_change() -> None:
    """In "Service revenue reached $9,310 thousand, up about 90.0% since 2015" the 9,310
    is the row's 2024 level. Another row's two periods differ by the same amount (19,310 and
    10,000: 93.1 %) and the sentence does not name that row: no change, so no fix."""
    evidence = SEGMENTS + "| Leasing | 19,310 | 10,000 |\n"
    body = "Service revenue reached $9,310 thousand in 2024, up about 90.0% since 2015."
    verdict = check(body, ("segments", evidence))

    assert fixes_on(verdict, "90.0%") == []


def test_a_change_that_matches_another_rows_level_is_still_its_named_rows() -> None:
    """The $5,510 thousand rise of industrial pumps equals, by chance, a cell of a row the
    sentence does not name; the row it names moved by that much: 5,510 / 36,250 = 15.2 %."""
    evidence = SEGMENTS + "| Other income | 5,510 | 4,020 |\n"
    body = "Industrial pumps grew by $5,510 thousand, or about 17.2%."
    verdict = check(body, ("segments", evidence))

    ((_find, replace),) = fixes_on(verdict, "17.2%")
    assert "15.2%" in replace
