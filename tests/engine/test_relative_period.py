"""A share whose clause names its period without a year: "now" is the latest period of the
cells its words point to, "a year earlier" the one before. Named so, a share of two named
lines is weighed among that period's few candidates, not every column's."""

from __future__ import annotations

from tests.engine.reports import check, flagged
from validation.engine.checks.numeric._derive_when import relative_period
from validation.engine.checks.numeric._extract import extract
from validation.engine.checks.numeric._matching import Claim

RESERVES = {
    "table_title": "December 31,",
    "line_items": {
        "Trade receivables": {"2024": 184210, "2023": 201377},
        "Allowance for credit losses": {"2024": -4406, "2023": -3318},
        "Trade receivables, net": {"2024": 179804, "2023": 198059},
    },
}

REPORT = (
    "Reserving has tightened. The allowance for credit losses now equals about {} of trade "
    "receivables, up from roughly {} a year earlier."
)


def test_a_share_now_and_a_year_earlier_is_each_periods_share() -> None:
    # 4,406 / 184,210 = 2.39 %; 3,318 / 201,377 = 1.65 %.
    verdict = check(REPORT.format("2.4%", "1.6%"), ("table", RESERVES))
    assert flagged(verdict) == []


def test_the_two_periods_swapped_are_flagged() -> None:
    verdict = check(REPORT.format("1.6%", "2.4%"), ("table", RESERVES))
    assert flagged(verdict) != []


def test_the_clause_of_each_number_names_its_own_period() -> None:
    body = REPORT.format("2.4%", "1.6%")
    claims = [Claim(at, mention) for at, mention in enumerate(extract(body))]
    positions = {claim.mention.text: at for at, claim in enumerate(claims)}
    assert relative_period(body, claims, positions["2.4%"], 0, len(body)) == 1
    assert relative_period(body, claims, positions["1.6%"], 0, len(body)) == -1


def test_a_clause_naming_both_or_neither_names_no_period() -> None:
    for body in ("Now the share is 2.4%, as it was a year earlier.", "The share is 2.4%."):
        claims = [Claim(at, mention) for at, mention in enumerate(extract(body))]
        assert relative_period(body, claims, 0, 0, len(body)) == 0
