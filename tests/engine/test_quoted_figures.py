"""A figure the report attributes to its source is a quotation, judged against the source.

"On the table's own totals that is a decline of about 5.9%, somewhat less than the 6.14
per cent the company cites in its narrative." The writer recomputes the decline and
quotes the company's own figure beside it. The quote matches the narrative's "dropped by
6.14 per cent"; that the table's totals give 5.9 % does not make the quote a slip of that
computation. A quote the source does not say is still flagged."""

from __future__ import annotations

from tests.engine.reports import check, flagged

TABLE = (
    "| Tonnes of CO2e | 2019 | 2018 |\n|---|---|---|\n"
    "| Purchased energy | 4,641.0 | 4,951.4 |\n"
    "| Total emissions | 4,785.7 | 5,087.6 |\n"
)
NARRATIVE = "Our total Scope 1 and 2 emissions dropped by 6.14 per cent from 2018."


def test_the_companys_own_figure_beside_a_recomputation_is_a_quote() -> None:
    body = (
        "Total emissions fell from 5,087.6 to 4,785.7 tonnes. On the table's own totals that "
        "is a decline of about 5.9%, somewhat less than the 6.14 per cent the company cites "
        "in its narrative."
    )
    verdict = check(body, ("table", TABLE), ("narrative", NARRATIVE))

    assert flagged(verdict) == []


def test_a_quote_the_source_does_not_say_is_flagged() -> None:
    body = (
        "Total emissions fell from 5,087.6 to 4,785.7 tonnes. On the table's own totals that "
        "is a decline of about 5.9%, somewhat less than the 6.41 per cent the company cites "
        "in its narrative."
    )
    verdict = check(body, ("table", TABLE), ("narrative", NARRATIVE))

    assert "6.41 per cent" in flagged(verdict)
