"""A change's end quoted from the wrong period: "Between 2015 and 2016, total assets rose
by $34,331 to $669.1 million, an increase of about 5.4%". The change the sentence states
is 2016's 667,235 less 2015's 632,904; the level it says the change went to, 669.1, is
2017's cell of the same row. The writer's own change names the end it ran to: the figure
is fixed to that cell (the mirror of a start quoted from another period, `_from_level`)."""

from __future__ import annotations

from tests.engine.reports import check, findings_on, fixes_on

TABLE = (
    "(in thousands)\n\n| As of December 31, | 2018 | 2017 | 2016 | 2015 |\n"
    "|---|---|---|---|---|\n"
    "| Total assets | $628,027 | $669,094 | $667,235 | $632,904 |\n"
    "| Total debt | $25,600 | $26,700 | $27,800 | $28,900 |\n"
)


def test_an_end_of_another_period_after_the_change_is_fixed_to_the_changes_end() -> None:
    body = (
        "Between 2015 and 2016, total assets rose by $34,331 to $669.1 million, an increase "
        "of about 5.4%."
    )
    verdict = check(body, ("table", TABLE))

    assert findings_on(verdict, "$669.1 million") != []
    assert [replace for _, replace in fixes_on(verdict, "669.1")] == ["$667.2 million"]


def test_the_right_end_passes() -> None:
    body = (
        "Between 2015 and 2016, total assets rose by $34,331 to $667.2 million, an increase "
        "of about 5.4%."
    )
    verdict = check(body, ("table", TABLE))

    assert findings_on(verdict, "$667.2 million") == []


def test_an_end_the_change_reads_as_written_is_left_alone() -> None:
    """In "rose by $1,859 to $669.1 million" from 667,235 the change is of the figures as
    written (2016 to 2017), so nothing is in another period's place."""
    body = "Total assets rose by $1,859 to $669.1 million in 2017."
    verdict = check(body, ("table", TABLE))

    assert findings_on(verdict, "$669.1 million") == []


def test_a_rate_before_the_next_level_is_no_change_of_it() -> None:
    """In "... to $5,480 million in fiscal 2018, a rise of about 84.6%, and then climbed
    again to $6.75 billion in fiscal 2019" the rate is of the levels before it; the level
    after it is the next year's, rightly."""
    table = (
        "(in millions)\n\n| | 2019 | 2018 | 2017 |\n|---|---|---|---|\n"
        "| Trade accounts receivable sold | $6,751 | $5,480 | $2,968 |\n"
    )
    body = (
        "Receivables sold jumped from $2,968 million in fiscal 2017 to $5,480 million in "
        "fiscal 2018, a rise of about 84.6%, and then climbed again to $6.75 billion in "
        "fiscal 2019."
    )
    verdict = check(body, ("table", table))

    assert findings_on(verdict, "$6.75 billion") == []
