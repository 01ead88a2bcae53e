"""A multiple is a ratio: no operand of a share, a change or a sum of amounts. And a change
written "+59.4" is added to its base, never taken away from it.

"Receivables aged three to six months rose from £3.7m to £10.0m, roughly 2.7 times the
prior-year level. The bucket is now about 27.1% of the total": 27.1 % is no 2.7 over the
£10.0m (27.0 %), a coincidence of digits; the bucket's share is 10.0 / 39.9 = 25.1 %. A
report's own table row "| Net debt | 292.5 | 235.8 | +59.4 |" misquotes 295.2: read as a
slip of 235.8 + 59.4, never of 235.8 - 59.4."""

from __future__ import annotations

from tests.engine.reports import check, fixes_on, flagged

AGEING = {
    "table_title": "£m",
    "line_items": {
        "Up to three months": {"2019": 29.9, "2018": 32.1},
        "Three to six months": {"2019": 10.0, "2018": 3.7},
        "Trade receivables": {"2019": 39.9, "2018": 35.8},
    },
}


def _ageing(share: str) -> str:
    return (
        "Trade receivables stood at £39.9m at the 2019 year end. Receivables aged three to "
        "six months rose from £3.7m to £10.0m, roughly 2.7 times the prior-year level. The "
        f"three-to-six-month bucket is now about {share} of the total."
    )


def test_the_right_share_passes() -> None:
    verdict = check(_ageing("25.1%"), ("financials", AGEING))

    assert flagged(verdict) == []


def test_a_share_that_only_a_multiple_explains_is_flagged() -> None:
    verdict = check(_ageing("27.1%"), ("financials", AGEING))

    assert "27.1%" in flagged(verdict)


EBITDA = (
    "| | 2019 | 2018 |\n|---|---|---|\n| | £m | £m |\n"
    "| Adjusted operating profit | 282.7 | 264.9 |\n"
    "| Earnings before interest, tax, depreciation and amortisation | 317.0 | 297.8 |\n"
    "| Net debt | 295.2 | 235.8 |\n"
)


def test_a_level_is_its_base_plus_a_change_written_with_a_plus() -> None:
    body = (
        "| £m | 2019 | 2018 | Change |\n|---|---|---|---|\n"
        "| EBITDA | 317.0 | 297.8 | +19.2 |\n"
        "| Net debt | 292.5 | 235.8 | +59.4 |\n"
        "| Net debt / EBITDA | 0.9x | 0.8x | |\n\n"
        "Net debt climbed by about a quarter over the year."
    )
    verdict = check(body, ("table", EBITDA))

    assert ("292.5", "176.4") not in fixes_on(verdict, "292.5")
    assert "292.5" in flagged(verdict)
