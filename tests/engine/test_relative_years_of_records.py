"""A figure dated relative to the year its clause names is of the year before.

"Trade receivables stood at £39.9m at the 2019 year end against £35.8m a year earlier":
the record gives 35.8 under "2018", and "a year earlier" says so; the clause's 2019 is
the other figure's. A figure the clause gives to 2019 with no such words is still read
as 2019's: the record's 2018 value under it is flagged."""

from __future__ import annotations

from tests.engine.reports import NUMBERS_ONLY, findings_on
from validation.engine.pipeline import validate
from validation.engine.types import Bundle, Verdict

RECEIVABLES = {
    "table_title": "£m",
    "line_items": {
        "Up to three months": {"2019": 29.9, "2018": 32.1},
        "Three to six months": {"2019": 10.0, "2018": 3.7},
        "Trade receivables": {"2019": 39.9, "2018": 35.8},
    },
}


def check(body: str) -> Verdict:
    """Against the record as a tool returns it (a JSON object, not its text)."""
    evidence = [{"source_ref": "financials", "kind": "tool_output", "content": RECEIVABLES}]
    return validate(Bundle(query="What changed?", body=body, evidence=evidence), NUMBERS_ONLY)


def test_a_year_earlier_is_the_year_before_the_one_named() -> None:
    body = (
        "Trade receivables stood at £39.9m at the 2019 year end against £35.8m a year "
        "earlier, an increase of £4.1m."
    )
    verdict = check(body)

    assert findings_on(verdict, "£35.8m") == []


def test_a_figure_given_to_the_named_year_is_still_judged_for_it() -> None:
    body = "Trade receivables stood at £35.8m at the 2019 year end."
    verdict = check(body)

    assert findings_on(verdict, "£35.8m") != []
