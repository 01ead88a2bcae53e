"""A writer who adds up lines for one period and compares the total with another period
adds up the same lines there. That second sum is no cell of the evidence: the search takes
it as one operand, the stated sum's lines in another column of their rows, or in the rows
that repeat their labels in another block of the table (a balance sheet's block for the
year before)."""

from __future__ import annotations

from tests.engine.reports import check, flagged

BLOCKS = """\
|  | Euro €'000 | Sterling £'000 |
|---|---|---|
| As at 30 June 2024 |  |  |
| Lease liabilities, current | 4,812 | 1,207 |
| Lease liabilities, non-current | 9,356 | 3,118 |
| Deferred income, current | (2,441) | (611) |
| Deferred income, non-current | (730) | (1,905) |
|  | 10,997 | 1,809 |
| As at 30 June 2023 |  |  |
| Lease liabilities, current | 4,105 | 1,344 |
| Lease liabilities, non-current | 8,890 | 2,760 |
| Deferred income, current | (1,986) | (702) |
| Deferred income, non-current | (655) | (1,118) |
|  | 10,354 | 2,284 |
"""


def test_a_sum_the_sentence_before_states_written_out_for_a_year_earlier() -> None:
    # 4,812 + 9,356 = 14,168; the same two lines a year earlier: 4,105 + 8,890 = 12,995,
    # and 14,168 / 12,995 - 1 = 9.03 %.
    body = (
        "Euro lease liabilities came to about €14,168 thousand at 30 June 2024, current "
        "and non-current together. That is up about 9.0% from €12,995 thousand a year "
        "earlier."
    )
    assert flagged(check(body, ("table", BLOCKS))) == []


def test_a_wrong_sum_a_year_earlier_is_still_flagged() -> None:
    body = (
        "Euro lease liabilities came to about €14,168 thousand at 30 June 2024, current "
        "and non-current together. That is up about 8.2% from €13,095 thousand a year "
        "earlier."
    )
    assert "€13,095 thousand" in flagged(check(body, ("table", BLOCKS)))


def test_a_change_on_the_same_lines_of_the_prior_year_block() -> None:
    # Sterling deferred income: 611 + 1,905 = 2,516 in 2024, 702 + 1,118 = 1,820 in
    # 2023: up 38.2 %.
    body = (
        "Sterling deferred income totalled £2,516 thousand across current and non-current "
        "balances, up about 38.2% on the prior year."
    )
    assert flagged(check(body, ("table", BLOCKS))) == []
    wrong = body.replace("38.2%", "35.1%")
    assert "35.1%" in flagged(check(wrong, ("table", BLOCKS)))


COLUMNS = {
    "segment_revenue": {
        "Cloud subscriptions": {"2024": 1020, "2023": 905, "2022": 771},
        "Licences": {"2024": 462, "2023": 423, "2022": 447},
        "Services": {"2024": 318, "2023": 301, "2022": 296},
        "Hardware": {"2024": 96, "2023": 118, "2022": 135},
    },
    "unit": "USD millions",
}


def test_a_change_on_the_same_lines_in_the_prior_year_column() -> None:
    # 1,020 + 462 = 1,482 in 2024; 905 + 423 = 1,328 in 2023: up 11.6 %.
    body = (
        "Recurring software revenue, cloud subscriptions plus licences, reached $1,482 "
        "million in 2024, up 11.6% on the prior year."
    )
    assert flagged(check(body, ("segments", COLUMNS))) == []
    wrong = body.replace("11.6%", "13.1%")
    assert "13.1%" in flagged(check(wrong, ("segments", COLUMNS)))
