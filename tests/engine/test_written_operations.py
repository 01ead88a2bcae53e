"""Operations a writer's words make plain that the pairs of the family never give: named
lines taken together over their total, an average a year over a span the evidence gives
in buckets, the whole a part and its share imply, and a change of one line in a fiscal
year the sentence dates as the evidence does. Each right figure passes; a wrong one is
still flagged."""

from __future__ import annotations

from tests.engine.reports import check, flagged
from validation.engine.checks.numeric._cues import _bound
from validation.engine.checks.numeric._derive_buckets import _period
from validation.engine.checks.numeric._derive_when import relative_period
from validation.engine.checks.numeric._extract import extract
from validation.engine.checks.numeric._matching import Claim

# Two named lines, a third, and an unlabelled total line (a filing's text layout).
RECEIVABLES = """\
                                   December 31, 2024   December 31, 2023
Customs duties recoverable                    41,208               6,115
Accrued royalties                             27,460              13,902
Staff advances                                 8,371               9,944
                                              77,039              29,961
Other receivables (in thousands)
"""


def test_named_lines_together_over_their_total_pass() -> None:
    # (41,208 + 27,460) / 77,039 = 89.1 %
    body = (
        "Two items drove the build-up: customs duties recoverable and accrued royalties, "
        "which together account for about {} of the year-end balance."
    )
    assert flagged(check(body.format("89.1%"), ("note", RECEIVABLES))) == []
    assert flagged(check(body.format("86.1%"), ("note", RECEIVABLES))) != []


SCHEDULE = {
    "table_title": "Payments due by period (in thousands)",
    "line_items": {
        "Purchase obligations": {
            "Total": 21760,
            "2025": 5210,
            "2026-2027": 8840,
            "2028-2029": 3950,
            "Thereafter": 3760,
        },
        "Debt service": {"Total": 12600, "2025": 2400, "2026-2027": 4800, "2028-2029": 5400},
    },
}
SCHEDULE_MARKDOWN = """\
| (In thousands) | Total | 2025 | 2026-2027 | 2028-2029 | Thereafter |
|---|---|---|---|---|---|
| Purchase obligations | 21,760 | 5,210 | 8,840 | 3,950 | 3,760 |
| Debt service | 12,600 | 2,400 | 4,800 | 5,400 | — |
"""


def test_an_average_a_year_over_bucketed_periods_divides_by_the_years() -> None:
    # (5,210 + 8,840 + 3,950) / 5 = 3,600: three cells, five years.
    body = (
        "Across the five years from 2025 through 2029, purchase obligations average about "
        "{} a year before the tail."
    )
    for evidence in (SCHEDULE, SCHEDULE_MARKDOWN):
        assert flagged(check(body.format("$3,600 thousand"), ("schedule", evidence))) == []
        assert flagged(check(body.format("$4,100 thousand"), ("schedule", evidence))) != []


def test_a_columns_period_is_a_year_or_a_span_of_years_alone() -> None:
    assert _period("2026-2027") == (2026, 2027)
    assert _period("FY2025") == (2025, 2025)
    assert _period("2023 to 2024") == (2023, 2024)
    assert _period("Thereafter") is None
    assert _period("Total") is None


STAKE = (
    "In March the company bought 18% of Lumen Robotics for $5.4 million in cash and "
    "accounts for it under the equity method."
)


def test_the_whole_a_stake_and_its_price_imply_passes_where_the_words_say_so() -> None:
    # 5.4 / 0.18 = 30.0
    body = (
        "The company paid $5.4 million for 18% of Lumen Robotics. That price implies a "
        "value for the whole of Lumen of about {}."
    )
    assert flagged(check(body.format("$30.0 million"), ("note", STAKE))) == []
    assert flagged(check(body.format("$33.0 million"), ("note", STAKE))) != []


def test_without_words_of_an_implied_whole_no_such_quotient_is_taken() -> None:
    body = "The company paid $5.4 million for 18% of Lumen Robotics, and $30.0 million in all."
    assert flagged(check(body, ("note", STAKE))) != []


RATES = {
    "table_title": "Assumptions for the year ended",
    "line_items": {
        "Discount rate": {
            "January 31, 2025": 3.9,
            "February 2, 2024": 4.4,
            "February 3, 2023": 3.1,
        },
        "Expected volatility": {
            "January 31, 2025": 31.0,
            "February 2, 2024": 36.2,
            "February 3, 2023": 28.7,
        },
    },
}


def test_a_change_in_a_fiscal_year_dated_as_the_evidence_dates_it() -> None:
    # 4.4 -> 3.9 in the year ended January 31, 2025: down 0.5 points; 3.1 -> 3.9 would be
    # a rise of 0.8, which "eased" rules out.
    body = (
        "The discount rate rose from 3.1% in the year ended February 3, 2023 to 4.4% in the "
        "year ended February 2, 2024. It then eased by {} percentage points in the year "
        "ended January 31, 2025."
    )
    assert flagged(check(body.format("0.5"), ("assumptions", RATES))) == []
    assert flagged(check(body.format("0.8"), ("assumptions", RATES))) != []


PROGRAM = {
    "table_title": "(in millions)",
    "line_items": {
        "Harbor Logistics": {"Budgeted": 210, "Spent": 188, "Remaining": 22},
        "Retail Brands": {"Budgeted": 95, "Spent": 77, "Remaining": 18},
        "Medical Devices": {"Budgeted": 64, "Spent": 61, "Remaining": 3},
        "Total": {"Budgeted": 369, "Spent": 326, "Remaining": 43},
    },
}


def test_lines_named_by_a_proper_name_together_over_the_total_pass() -> None:
    # (22 + 18) / 43 = 93.0 %: "Harbor" and "Retail" each stand in one row label alone.
    body = (
        "The program is nearly done. The two largest units, Harbor and Retail, hold {} of the "
        "charges still to come."
    )
    assert flagged(check(body.format("93.0%"), ("program", PROGRAM))) == []
    assert flagged(check(body.format("90.0%"), ("program", PROGRAM))) != []


BOOK = {
    "table_title": "December 31,",
    "line_items": {
        "Billed receivables": {"2024": 118400, "2023": 131900},
        "Accrued receivables": {"2024": 251300, "2023": 208700},
        "Total accrued receivables, net": {"2024": 229800, "2023": 186500},
        "Less: current accrued receivables": {"2024": 97600, "2023": 80200},
        "Total receivables, net": {"2024": 348200, "2023": 318400},
    },
}


def test_a_share_divides_by_what_its_words_put_after_of() -> None:
    # 229,800 / 348,200 = 66.0 %, written to two digits among four accrued lines.
    body = (
        "The mix keeps moving toward unbilled balances: accrued receivables now make up "
        "roughly {} of total net receivables."
    )
    assert flagged(check(body.format("66%"), ("receivables", BOOK))) == []
    assert flagged(check(body.format("61%"), ("receivables", BOOK))) != []


RECEIVABLE_NOTE = """\
The components of accounts receivable are as follows (in thousands):
                                           June 30,
                                            2025          2024
Billed                                   $ 88,150      $ 97,320
Allowance for doubtful accounts            (1,230)         (810)
Total accounts receivable                  86,920        96,510
"""
STATE_AGENCIES = (
    "Amounts billed include $36.2 million and $44.9 million due from state agencies at "
    "June 30, 2025 and 2024, respectively."
)


def test_a_share_in_the_present_tense_is_of_the_latest_period() -> None:
    # 1,230 / 88,150 = 1.4 % (2025); the 2024 pair gives 0.8 %.
    body = "The allowance for doubtful accounts covers about {} of billed receivables."
    assert flagged(check(body.format("1.4%"), ("note", RECEIVABLE_NOTE))) == []
    assert flagged(check(body.format("0.8%"), ("note", RECEIVABLE_NOTE))) != []


def test_a_present_share_never_takes_the_latest_cell_beside_another_period_stated() -> None:
    # 36.2 / 88.15 = 41 % (2025), 44.9 / 97.32 = 46 % (2024). The writer who states 2024's
    # $44.9 million as this year's has "41%" from the row's other cell: never its support.
    body = (
        "Exposure to the states remains high: the {} due from state agencies is about 41% "
        "of billed receivables, down from about 46% a year earlier."
    )
    evidence = (("note", RECEIVABLE_NOTE), ("prose", STATE_AGENCIES))
    assert flagged(check(body.format("$36.2 million"), *evidence)) == []
    assert "41%" in flagged(check(body.format("$44.9 million"), *evidence))


def test_just_under_reads_as_close_to_the_number_not_as_a_bound() -> None:
    assert _bound(["a", "drop", "of", "just", "under"]) == ("", True, 2)
    assert _bound(["slightly", "over"]) == ("", True, 2)
    assert _bound(["a", "drop", "of", "under"]) == ("below", False, 1)
    assert _bound(["more", "than"]) == ("above", False, 2)


def test_just_under_is_close_below_not_any_value_below() -> None:
    # (96,510 - 86,920) / 96,510 = 9.9 %: "just under 10%" passes, "just under 12%" does not
    # (read as a bound, anything from 6 % to 12 % would do).
    body = (
        "Total accounts receivable were about $86.9 million at June 30, 2025, against $96.5 "
        "million a year earlier, a drop of {}."
    )
    assert flagged(check(body.format("just under 10%"), ("note", RECEIVABLE_NOTE))) == []
    assert flagged(check(body.format("just under 12%"), ("note", RECEIVABLE_NOTE))) != []


CHARGES = """\
| (in millions) | 2025 | 2024 |
|---|---|---|
| Severance | $ 64 | $ 20 |
| Facility exits | 38 | 17 |
| Asset impairments | 45 | 71 |
| Other | 13 | 9 |
| Total | $ 160 | $ 117 |
"""


def test_a_named_total_rows_change_is_the_amount_its_words_specify() -> None:
    # 160 - 117 = 43, written to two digits among many pairs that land near it: the one
    # change of the one row its words name.
    body = (
        "Severance rose to $64 million from $20 million and asset impairments fell to $45 "
        "million. Total charges increased by {} over the year."
    )
    assert flagged(check(body.format("$43 million"), ("charges", CHARGES))) == []
    assert flagged(check(body.format("$39 million"), ("charges", CHARGES))) != []


def test_each_clause_names_its_own_period() -> None:
    body = (
        "Severance climbed to $64 million, about 3.2 times the prior-year amount, and now "
        "makes up roughly 40.0% of the $160 million total."
    )
    claims = [Claim(at, mention) for at, mention in enumerate(extract(body))]
    at = {claim.mention.text: n for n, claim in enumerate(claims)}
    assert relative_period(body, claims, at["3.2"], 0, len(body)) == -1
    assert relative_period(body, claims, at["40.0%"], 0, len(body)) == 1


def test_where_a_change_starts_is_a_level_never_a_result_of_its_neighbours() -> None:
    # 64 - 45 = 19 lands near the 20 the change starts from: no reason to doubt its cell.
    body = "Severance rose to $64 million from $20 million and impairments fell to $45 million."
    assert flagged(check(body, ("charges", CHARGES))) == []


FEES = {
    "table_title": "(in thousands)",
    "line_items": {
        "Deferred fees": {"2025": 48210, "2024": 15320},
        "Retainers": {"2025": 9870, "2024": 11040},
    },
}


def test_a_level_quoted_from_the_year_its_multiple_names_as_the_base_is_flagged() -> None:
    # 48,210 / 15,320 = 3.1: the level that is 3.1 times the 2024 figure is 2025's.
    body = "Deferred fees reached {}, about 3.1 times the 2024 figure."
    assert flagged(check(body.format("$48.2 million"), ("fees", FEES))) == []
    assert "$15.3 million" in flagged(check(body.format("$15.3 million"), ("fees", FEES)))


def test_a_base_its_sentence_dates_itself_is_no_misquote() -> None:
    body = "Deferred fees were $15.3 million in 2024; this year they are about 3.1 times that."
    assert "$15.3 million" not in flagged(check(body, ("fees", FEES)))
