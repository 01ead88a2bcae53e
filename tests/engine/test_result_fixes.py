"""Issue 25, point 4: a wrong result is fixed when the report states its operands next
to it. Here: a result that is the one number of its sentence, pointing back to the
sentence right before it in its paragraph ("... from $30.0 million to $36.0 million.
That is an increase of about 25.0%."), is the writer's reading of that sentence's figures.
Both directions: the slip gets the right value; a right result gets nothing; operands a
paragraph away, or a result sharing its sentence with another number, give no fix."""

from __future__ import annotations

from tests.engine.reports import check, findings_on, fixes_on

INCOME = (
    "(in millions)\n\n| | 2024 | 2023 | 2022 |\n|---|---|---|---|\n"
    "| Net income | 36.0 | 30.0 | 27.5 |\n| Order backlog | 410.0 | 385.0 | 362.0 |\n"
)


BACKLOG = "The order backlog stood at $410.0 million, up from $385.0 million.\n\n"


def test_a_result_pointing_back_to_the_sentence_before_it_is_fixed() -> None:
    """The report states other figures the result could be of (the backlog's), but its
    sentence points back to the one before it, which holds its operands."""
    body = BACKLOG + (
        "Net income rose by $6.0 million, from $30.0 million in 2023 to $36.0 million in "
        "2024. That is an increase of about 25.0%."
    )
    verdict = check(body, ("annual_report", INCOME))

    ((_find, replace),) = fixes_on(verdict, "25.0%")
    assert "20.0%" in replace


def test_the_right_result_after_its_figures_is_left_alone() -> None:
    body = BACKLOG + (
        "Net income rose by $6.0 million, from $30.0 million in 2023 to $36.0 million in "
        "2024. That is an increase of about 20.0%."
    )
    verdict = check(body, ("annual_report", INCOME))

    assert fixes_on(verdict, "20.0%") == []
    assert findings_on(verdict, "20.0%") == []


def test_a_result_a_paragraph_away_from_its_figures_gets_no_fix() -> None:
    body = BACKLOG + (
        "Net income rose by $6.0 million, from $30.0 million in 2023 to $36.0 million in "
        "2024.\n\nThat is an increase of about 25.0%."
    )
    verdict = check(body, ("annual_report", INCOME))

    assert fixes_on(verdict, "25.0%") == []
    assert findings_on(verdict, "25.0%")


def test_a_result_beside_another_number_of_its_own_sentence_is_not_read_back() -> None:
    """The sentence of the result states the backlog too: which figures the 25.0% is of
    is no longer plain from the sentence before, so no fix is proposed from there."""
    body = (
        "Net income rose by $6.0 million, from $30.0 million in 2023 to $36.0 million in "
        "2024. Backlog reached $410.0 million, and the rise was about 25.0%."
    )
    verdict = check(body, ("annual_report", INCOME))

    assert fixes_on(verdict, "25.0%") == []
