"""A result its own clause dates with "now" (or "a year earlier") is of that period, even
when its sentence names another year for another clause: "The Americas are now 1.07 times
EMEA, having been the smaller of the two in fiscal 2018" is fiscal 2019's 337,842 over
315,535. Read as of the one year the sentence names, the search took 2018's cells, EMEA
over the Americas (277,898 / 259,105, also 1.07): a coincidence of the wrong year and the
wrong way round."""

from __future__ import annotations

from tests.engine.reports import check, flagged

TABLE = (
    "| Net sales by region (in thousands) | Fiscal 2019 | Fiscal 2018 |\n|---|---|---|\n"
    "| Americas | $337,842 | $259,105 |\n"
    "| EMEA | 315,535 | 277,898 |\n"
    "| APAC | 533,345 | 486,742 |\n"
    "| JPKO | 196,096 | 176,436 |\n"
)


def test_now_takes_the_latest_year_not_the_year_of_another_clause() -> None:
    verdict = check(
        "The Americas are now 1.07 times EMEA, having been the smaller of the two in fiscal 2018.",
        ("table", TABLE),
    )

    match = next(m for m in verdict.numbers.matches if m.text.startswith("1.07"))
    assert match.status == "derived"
    assert "337842 / 315535" in (match.formula or "")
    assert flagged(verdict) == []
