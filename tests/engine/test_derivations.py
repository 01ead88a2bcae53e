"""What did the writer compute this from? Derived numbers found over the report's own
operands and the evidence cells its words point to, accepted by their chance of a
coincidence, never by closeness (issue 25, points 1-5). Every case is written anew for
these tests: the figures and the wording are ours, the situations those of the issue."""

from __future__ import annotations

from decimal import Decimal

from tests.engine.reports import check, fixes, flagged, status
from validation.engine.calculator import evaluate

TWO_YEARS = "| | 2019 | 2018 |\n|---|---|---|\n"


# ------------------------------------------------------------------ found, whatever the words


def test_a_change_and_its_rate_when_another_row_shares_the_label_words() -> None:
    verdict = check(
        "Billable hours rose to 24,310 thousand from 24,050 thousand, an increase of "
        "260 thousand or about 1.1%.",
        (
            "table",
            "(in thousands)\n\n" + TWO_YEARS + "| Billable hours | 24,310 | 24,050 |\n"
            "| Billable hours, contractors | 3,120 | 2,990 |\n"
            "| Non-billable hours | 5,400 | 5,250 |",
        ),
    )
    assert status(verdict, "260 thousand") == "derived"
    assert status(verdict, "1.1%") == "derived"
    assert flagged(verdict) == []


def test_a_share_of_a_total_both_stated_in_an_earlier_sentence() -> None:
    verdict = check(
        "Intangibles totalled $1,530 million, of which patents were $612 million. "
        "Patents therefore make up about 40.0% of all intangibles.",
        (
            "table",
            "(in millions)\n\n" + TWO_YEARS + "| Patents | 612 | 580 |\n"
            "| Customer lists | 918 | 870 |\n| Total intangibles | 1,530 | 1,450 |",
        ),
    )
    assert status(verdict, "40.0%") == "derived"
    assert "chance" in next(m.formula for m in verdict.numbers.matches if m.text == "40.0%")
    assert verdict.decision == "APPROVE"


def test_a_sum_of_two_rows_the_sentence_names() -> None:
    verdict = check(
        "Licences plus services came to $905 million in 2019.",
        (
            "table",
            "(in millions)\n\n" + TWO_YEARS + "| Licences | 614 | 570 |\n| Services | 291 | 260 |\n"
            "| Hardware | 402 | 455 |\n| Total revenue | 1,307 | 1,285 |",
        ),
    )
    assert status(verdict, "$905 million") == "derived"


def test_a_multiple_of_another_row() -> None:
    verdict = check(
        "Raw materials stood at $524 million, about 1.31 times finished goods.",
        (
            "table",
            "(in millions)\n\n" + TWO_YEARS + "| Raw materials | 524 | 498 |\n"
            "| Finished goods | 400 | 377 |\n| Work in progress | 133 | 120 |",
        ),
    )
    assert status(verdict, "1.31") == "derived"


def test_an_average_of_amounts_in_millions_written_in_billions() -> None:
    verdict = check(
        "Revenue was $1,712 million in 2019 and $1,588 million in 2018; averaged across "
        "the two years, roughly $1.65 billion.",
        (
            "table",
            "(in millions)\n\n" + TWO_YEARS + "| Revenue | 1,712 | 1,588 |\n| Cost | 1,020 | 950 |",
        ),
    )
    assert status(verdict, "$1.65 billion") == "derived"


def test_a_swing_between_two_values_in_thousands_written_in_millions() -> None:
    verdict = check(
        "Net cash from investing moved from an outflow to an inflow, a swing of about "
        "$173.7 million.",
        (
            "table",
            "(in thousands)\n\n" + TWO_YEARS + "| Net cash from investing activities | 95,120 | "
            "(78,580) |\n| Net cash from financing activities | (40,200) | (35,100) |",
        ),
    )
    assert status(verdict, "$173.7 million") == "derived"


def test_a_compound_rate_over_the_periods_between_the_years_named() -> None:
    verdict = check(
        "Subscription revenue reached $1,781 million in 2019 and has compounded at around "
        "15.5% a year since 2015.",
        (
            "table",
            "(in millions)\n\n| | 2019 | 2018 | 2017 | 2016 | 2015 |\n|---|---|---|---|---|---|\n"
            "| Subscription revenue | 1,781 | 1,540 | 1,330 | 1,160 | 1,000 |\n"
            "| Total revenue | 2,900 | 2,700 | 2,500 | 2,300 | 2,100 |",
        ),
    )
    assert status(verdict, "15.5%") == "derived"
    assert "(1 / 4)" in next(m.formula for m in verdict.numbers.matches if m.text == "15.5%")


def test_a_gain_in_cents_between_two_dollar_amounts() -> None:
    verdict = check(
        "Diluted earnings per share reached $2.04, up from $1.50, a gain of 54 cents.",
        (
            "table",
            "| | 2019 | 2018 |\n|---|---|---|\n| Diluted earnings per share | $2.04 | $1.50 |\n"
            "| Basic earnings per share | $2.10 | $1.55 |",
        ),
    )
    assert flagged(verdict) == []


# ------------------------------------------------------------------ no confident wrong fix

THREE_YEARS = "(in millions)\n\n| | 2019 | 2018 | 2017 | 2016 |\n|---|---|---|---|---|\n"


def test_a_three_year_compound_rate_is_not_fixed_with_one_years_growth() -> None:
    verdict = check(
        "Revenue grew from $800 million in 2016 to $1,250 million in 2019, a compound annual "
        "growth rate of about 16.0%.",
        (
            "table",
            THREE_YEARS + "| Revenue | 1,250 | 976 | 890 | 800 |\n"
            "| Net income | 150 | 125 | 110 | 95 |",
        ),
    )
    assert "16.0%" not in fixes(verdict)
    assert verdict.decision == "APPROVE"


def test_a_three_year_average_is_not_fixed_to_one_years_figure() -> None:
    verdict = check(
        "Over the three years revenue averaged $1,039 million, with $1,250 million in the "
        "latest year.",
        (
            "table",
            "(in millions)\n\n| | 2019 | 2018 | 2017 |\n|---|---|---|---|\n"
            "| Revenue | 1,250 | 976 | 890 |\n| Net income | 150 | 125 | 110 |",
        ),
    )
    assert "$1,039 million" not in fixes(verdict)
    assert status(verdict, "$1,039 million") == "derived"


def test_a_price_earnings_multiple_is_not_fixed_with_an_unrelated_ratio() -> None:
    verdict = check(
        "At a share price of $49.50 and earnings per share of $3.00, the stock trades at "
        "16.5 times earnings.",
        (
            "p1",
            "The closing share price was $49.50. Diluted earnings per share were $3.00. The "
            "order backlog was $3.00 billion at year end, against $2.7 billion a year earlier.",
        ),
    )
    assert "16.5" not in " ".join(fixes(verdict))
    assert verdict.decision == "APPROVE"


# ------------------------------------------------------------------ no pass by chance

PROFIT = (
    "table",
    "(in millions)\n\n" + TWO_YEARS + "| Net income | 150 | 125 |\n"
    "| Operating income | 244 | 200 |\n| Interest expense | 61 | 50 |",
)


def test_a_wrong_growth_rate_is_not_passed_by_another_rows_calculation() -> None:
    # 22.0% is operating income's growth (244 over 200); net income grew 20.0%.
    verdict = check("Net income grew 22.0% to $150 million from $125 million.", PROFIT)
    assert "22.0%" in flagged(verdict)
    assert fixes(verdict).get("22.0%") == "20.0%"


def test_a_reviewers_right_edit_agrees_with_the_proof_and_passes_again() -> None:
    verdict = check("Net income grew 22.0% to $150 million from $125 million.", PROFIT)
    fix = next(fix for fix in verdict.fixes if fix.find == "22.0%")
    calculator = [call for call in fix.tool_calls if call.tool == "calculator"]
    assert calculator, "the fix carries the calculation it is proved by"
    assert round(evaluate(str(calculator[0].input["expression"])), 1) == Decimal("20.0")
    edited = check("Net income grew 20.0% to $150 million from $125 million.", PROFIT)
    assert flagged(edited) == []
    assert edited.decision == "APPROVE"


def test_a_result_stated_from_another_periods_figure_flags_that_figure() -> None:
    verdict = check(
        "Research spending rose 88.1% to $126 million from $59 million.",
        (
            "table",
            "(in millions)\n\n| | 2019 | 2018 | 2017 |\n|---|---|---|---|\n"
            "| Research spending | 126 | 67 | 59 |\n| Selling expense | 453 | 361 | 384 |",
        ),
    )
    assert flagged(verdict) == ["$59 million"]
    assert fixes(verdict) == {"$59 million": "$67 million"}


def test_a_change_the_table_states_beside_its_periods_is_no_other_periods_figure() -> None:
    # 800 / 7,000 = 11.4 %: the rate is over the 2018 cell, and the $800 million the
    # sentence states is the row's own change column, not a period taken in its place.
    verdict = check(
        "Freight revenue came in at $6,200 million in 2019, down $800 million from 2018, "
        "a decline of about 11.4%.",
        (
            "table",
            "(in millions)\n\n| | 2019 | 2018 | Increase/(decrease) |\n|---|---|---|---|\n"
            "| Freight revenue | $6,200 | $7,000 | $(800) |\n"
            "| Fuel surcharge | 410 | 515 | (105) |",
        ),
    )
    assert flagged(verdict) == []
    assert fixes(verdict) == {}


# ------------------------------------------------------------------ stable verdicts

STABLE_EVIDENCE = (
    "table",
    "(in millions)\n\n" + TWO_YEARS + "| Revenue | 1,712 | 1,588 |\n"
    "| Cost of sales | 1,020 | 950 |\n| Gross profit | 692 | 638 |",
)


def test_an_unchanged_sentence_keeps_its_verdict_after_another_is_fixed() -> None:
    body = (
        "Revenue rose to $1,712 million from $1,588 million, up 7.8%. "
        "Gross profit grew 9.5% to $692 million from $638 million."
    )
    first = check(body, STABLE_EVIDENCE)
    assert flagged(first) == ["9.5%"]
    assert status(first, "7.8%") == "derived"
    assert fixes(first) == {"9.5%": "8.5%"}
    fixed_body = body.replace("9.5%", "8.5%")
    second = check(fixed_body, STABLE_EVIDENCE)
    assert flagged(second) == []
    before = {m.text: (m.status, m.formula) for m in first.numbers.matches if m.start < 60}
    after = {m.text: (m.status, m.formula) for m in second.numbers.matches if m.start < 60}
    assert before == after
