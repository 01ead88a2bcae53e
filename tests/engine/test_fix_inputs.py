"""A fix comes from the writer's inputs: a result's operands are numbers stated before it
or beside it. A number the report states only in a later paragraph was no input of the
result, so a reading that needs it gives a finding without a fix."""

from __future__ import annotations

from tests.engine.reports import check, fixes_on, flagged

SHARES = """\
| Number of shares (1,000) | 2024 | 2023 |
|---|---|---|
| Outstanding as of 1 January | 3,412.6 | 3,180.4 |
| Granted during the period | 1,204.5 | 1,122.9 |
| Outstanding as of 31 December | 3,714.4 | 3,412.6 |
"""
NARRATIVE = "In 2023, the Board agreed to grant a total of 1,166,210 RSUs to management."


def test_no_fix_from_a_number_stated_only_in_a_later_paragraph() -> None:
    # Nothing the evidence holds gives 26.5 %; 1,166,210 / 3,412,600 = 34.2 % is a reading
    # over a figure the report states only in its next paragraph: flagged, never fixed.
    body = (
        "RSUs outstanding rose during 2024, from 3,412.6 thousand at the start of the "
        "year, and lapses alone were equal to roughly 26.5% of the opening balance.\n\n"
        "The narrative says the Board granted 1,166,210 RSUs in 2023, more than the table "
        "shows, so we relied on the table."
    )
    verdict = check(body, ("table", SHARES), ("p1", NARRATIVE))
    assert "26.5%" in flagged(verdict)
    assert fixes_on(verdict, "26.5%") == []
