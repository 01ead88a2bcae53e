"""numeric.analyze: each report claim is exact, rounded, derived,
close_but_wrong or orphan - and only real claims are judged."""

from decimal import Decimal
from typing import Any

import pytest

from validation.engine.checks.numeric import NumericResult, analyze, build_index
from validation.engine.types import EngineSettings, EvidenceItem, NumberMatch

DEFAULTS = EngineSettings()  # resolved once, as validate() does


def check(body: str, *evidence: tuple[str, Any], query: str = "", **settings: Any) -> NumericResult:
    index = build_index(
        [EvidenceItem(source_ref=ref, content=content) for ref, content in evidence]
    )
    return analyze(body, index, query=query, settings=EngineSettings(**settings))


def status_of(result: NumericResult) -> dict[str, str]:
    return {match.text: match.status for match in result.report.matches}


def match_of(result: NumericResult, text: str) -> NumberMatch:
    return next(match for match in result.report.matches if match.text == text)


QUOTE = ("quote-NVO", {"symbol": "NVO", "price": 190.68, "change": 2.35, "volume": 3456789})


# ------------------------------------------------------------------ exact and rounded


def test_exact_matches() -> None:
    result = check("NVO closed at $190.68, up $2.35.", QUOTE)
    assert status_of(result) == {"$190.68": "exact", "$2.35": "exact"}
    price = match_of(result, "$190.68")
    assert price.source_ref == "quote-NVO"
    assert price.evidence_label == "price"
    assert price.evidence_value == Decimal("190.68")
    assert result.report.exact_matches == 2
    assert result.findings == [] and result.fixes == []


def test_rounded_at_the_precision_shown_with_scale() -> None:
    result = check("Owner earnings were $14.8B.", ("fin", {"owner_earnings": 14812000000}))
    assert status_of(result) == {"$14.8B": "rounded"}
    assert result.findings == []


def test_rounded_across_scale_spellings() -> None:
    result = check("Revenue was 15.5B.", ("filing", "Revenue of 15,500 million in 2024."))
    assert status_of(result) == {"15.5B": "exact"}


def test_a_percentage_matches_a_fraction() -> None:
    result = check("Gross margin was 22.5%.", ("fin", {"gross_margin": 0.225}))
    assert status_of(result) == {"22.5%": "exact"}


def test_a_percentage_does_not_match_an_unrelated_plain_number() -> None:
    result = check("Churn was 18.7% last year.", ("quote", {"pe": 18.74}))
    assert status_of(result)["18.7%"] == "orphan"


def test_a_table_in_millions_matches_full_json_values() -> None:
    body = "| Metric (in millions) | 2024 |\n|---|---|\n| Revenue | 15,500 |\n"
    result = check(body, ("fin", {"revenue": 15.5e9}))
    assert status_of(result) == {"15,500": "exact"}


def test_a_report_scale_matches_json_in_millions_by_label() -> None:
    body = "Operating cash flow was $15.5B."
    result = check(body, ("fin", {"operating_cash_flow": 15500}))
    assert status_of(result) == {"$15.5B": "exact"}


def test_another_scale_needs_label_agreement() -> None:
    result = check("Subscribers reached 15.5B.", ("fin", {"operating_cash_flow": 15500}))
    assert status_of(result) == {"15.5B": "orphan"}


def test_hedged_round_numbers_match_loosely() -> None:
    result = check("The chain has about 1,200 stores.", ("fin", {"stores": 1187}))
    assert status_of(result) == {"1,200": "rounded"}


# ------------------------------------------------------------------ derived


def test_a_sum_of_two_evidence_numbers_is_derived() -> None:
    options = ("options-NVO", {"call_volume": 10899, "put_volume": 9976})
    result = check("Total options volume was 20,875 contracts.", options)
    match = match_of(result, "20,875")
    assert match.status == "derived"
    assert match.formula == "call_volume 10,899 + put_volume 9,976"
    assert result.findings == []


def test_a_percent_change_between_cited_numbers_is_derived() -> None:
    evidence = ("earnings", {"eps_actual": 0.50, "eps_estimate": 0.45})
    result = check("EPS of $0.50 beat the $0.45 estimate, a surprise of 11.11%.", evidence)
    assert status_of(result)["11.11%"] == "derived"


def test_a_share_is_derived() -> None:
    evidence = ("options", {"call_volume": 10899, "total_volume": 20875})
    result = check(
        "Calls were 10,899 of 20,875 contracts, so calls made up 52.2% of volume.", evidence
    )
    assert status_of(result)["52.2%"] == "derived"


def test_a_number_computed_from_the_report_own_estimate_follows_from_it() -> None:
    body = "Our DCF gives $95 per share against the $103.45 price, implying 8.2% downside."
    result = check(body, ("quote-NVO", {"symbol": "NVO", "price": 103.45}))

    # The estimate is what no evidence supports; the downside is only as good as it.
    assert status_of(result) == {"$95": "orphan", "$103.45": "exact", "8.2%": "orphan"}
    findings = {finding.text: finding for finding in result.findings}
    assert findings["$95"].severity == "major"
    assert findings["8.2%"].kind == "follows_unsupported"
    assert findings["8.2%"].severity == "minor"
    assert '"$95"' in findings["8.2%"].message


def test_two_unsupported_numbers_never_vouch_for_each_other() -> None:
    # 1,377 is in no evidence: 418 = 1,377 - 959 and 1,377 = 959 + 418 explain each other
    # and nothing else; the number stated without words of a result is the one to flag.
    body = (
        "Services were up 418 million year over year, at 1,377 million compared with 959 million."
    )
    result = check(body, ("segments", "Services revenue was 959 million in 2018."))

    statuses = status_of(result)
    assert statuses["1,377 million"] == "orphan"
    assert statuses["418 million"] == "orphan"
    majors = [finding.text for finding in result.findings if finding.severity == "major"]
    assert "1,377 million" in majors


def test_a_group_of_results_explaining_only_each_other_is_flagged() -> None:
    # Both numbers are stated as results (a total, a difference), and neither is in the
    # evidence: each would vouch for the other, so both are findings of their own.
    body = (
        "| Item | Value |\n|---|---:|\n| Assets, Total | $34,454K |\n| Assets, Current | $23,762K |"
        "\n\nTotal assets exceed current assets by $10,692K."
    )
    result = check(
        body, ("table", "| | Total | Current |\n|---|---|---|\n| Assets | 31,211 | 23,762 |")
    )

    majors = {finding.text for finding in result.findings if finding.severity == "major"}
    assert majors >= {"$34,454K"} or majors >= {"$10,692K"}
    assert all(
        finding.severity == "major"
        for finding in result.findings
        if finding.text in ("$34,454K", "$10,692K")
    )


@pytest.mark.parametrize(
    "body",
    [
        "NVO offers a margin of safety of 25% against an intrinsic value of $200.",
        "# NVO\n\nNVO trades at $150 [valuation].\n\nIts margin of safety is 25% [valuation].\n",
        "Margin of safety: 25%",
        "The stock trades at a 25% discount to its intrinsic value.",
        "Upside to fair value is 33.3%.",
        "The price target implies 20% upside.",
    ],
)
def test_a_valuation_gap_not_written_out_is_derived(body: str) -> None:
    evidence = ("valuation", {"price": 150, "intrinsic_value": 200, "target_price": 180})
    result = check(body, evidence)
    gaps = [match for match in result.report.matches if match.text.endswith("%")]
    assert [match.status for match in gaps] == ["derived"]
    assert result.findings == []


def test_a_valuation_gap_from_a_price_and_a_value_in_different_items_is_derived() -> None:
    result = check(
        "Against its intrinsic value, NVO offers a 25% margin of safety.",
        ("quote-NVO", {"symbol": "NVO", "price": 150}),
        ("dcf-NVO", {"intrinsic_value": 200}),
    )
    assert status_of(result) == {"25%": "derived"}


def test_a_valuation_gap_that_does_not_follow_is_an_orphan() -> None:
    evidence = ("valuation", {"price": 150, "intrinsic_value": 200})
    result = check("NVO offers a margin of safety of 40%.", evidence)
    assert status_of(result) == {"40%": "orphan"}


def test_numbers_from_different_sources_are_not_combined() -> None:
    result = check(
        "Combined volume was 20,875.",
        ("calls", {"call_volume": 10899}),
        ("puts", {"put_volume": 9976}),
    )
    assert status_of(result) == {"20,875": "orphan"}


def test_a_correct_written_calculation_makes_its_result_derived() -> None:
    result = check("EPS surprise: (0.50 - 0.45) / 0.45 * 100 = 11.11%", ("q", {"eps": 0.5}))
    match = match_of(result, "11.11%")
    assert match.status == "derived"
    assert match.formula.startswith("(0.50 - 0.45) / 0.45 * 100 = 11.11111")
    assert "100" not in status_of(result)  # the constant of a percentage is no claim
    assert not result.report.suspicious


VALUATION = (
    "valuation",
    {"eps_actual": 0.50, "eps_estimate": 0.45, "price": 134.22, "intrinsic_value": 152.40},
)


@pytest.mark.parametrize(
    ("body", "result"),
    [
        ("- **EPS surprise:** (0.50 - 0.45) / 0.45 * 100 = 11.11%", "11.11%"),
        (
            "Against the current price of $134.22, the margin of safety is "
            "(152.40 - 134.22) / 152.40 * 100 = 11.93%",
            "11.93%",
        ),
        ("The surprise was 100 * (0.50 - 0.45) / 0.45 = 11.11%", "11.11%"),
        ("The EPS surprise ratio is (0.50 - 0.45) / 0.45 * 100 = 11.11", "11.11"),
    ],
)
def test_the_numbers_of_a_written_percentage_calculation_are_not_orphans(
    body: str, result: str
) -> None:
    checked = check(body, VALUATION)

    statuses = status_of(checked)
    assert "100" not in statuses  # the constant of "* 100" is never a claim
    assert statuses[result] == "derived"
    assert set(statuses.values()) <= {"exact", "derived"}  # operands are evidence values
    assert checked.findings == []


def test_the_operands_of_a_written_calculation_are_still_checked() -> None:
    checked = check("EPS surprise: (0.50 - 0.47) / 0.47 * 100 = 6.38%", VALUATION)

    statuses = status_of(checked)
    assert statuses["0.47"] == "close_but_wrong"  # the estimate was 0.45
    assert statuses["6.38%"] == "derived"  # the arithmetic itself is right
    assert "100" not in statuses


# ------------------------------------------------------------------ close but wrong


def test_close_but_wrong_is_judged_against_the_nearest_value() -> None:
    evidence = ("quote-NVO", {"symbol": "NVO", "price": 190.68, "open": 185.10})
    result = check("NVO closed at $190.66 today.", evidence)
    match = match_of(result, "$190.66")
    assert match.status == "close_but_wrong"
    assert match.evidence_value == Decimal("190.68")
    assert result.report.close_matches == [match]
    assert result.report.suspicious == [match]
    (finding,) = result.findings
    assert (finding.check, finding.kind, finding.severity) == (
        "claims_supported",
        "close_but_wrong",
        "major",
    )
    assert finding.message == (
        '"$190.66" is close to price 190.68 in quote-NVO but not equal at the precision shown'
    )
    assert finding.evidence[0].excerpt == "price = 190.68"
    assert (finding.start, finding.end) == (14, 21)


def test_ties_in_distance_go_to_the_better_label() -> None:
    evidence = ("fin", {"revenue_2023": 101.0, "revenue_2024": 99.0})
    result = check("In 2024 revenue was 100.", evidence)
    assert match_of(result, "100").evidence_label == "revenue_2024"


def test_closeness_to_an_unrelated_number_is_chance_not_a_slip() -> None:
    result = check("Analysts see 16,858 new subscribers.", ("fin", {"revenue": 16900}))
    assert status_of(result) == {"16,858": "orphan"}


def test_the_tolerance_comes_from_the_settings() -> None:
    evidence = ("fin", {"revenue": 100.0})
    assert status_of(check("Revenue was 104.", evidence))["104"] == "close_but_wrong"
    loose = check("Revenue was 104.", evidence, relative_tolerance=0.01)
    assert status_of(loose)["104"] == "orphan"


# ------------------------------------------------------------------ orphans and non-claims


def test_an_orphan_is_a_no_hallucinations_finding() -> None:
    result = check("Analysts expect 97,271 contracts.", QUOTE)
    (orphan,) = result.report.orphan_numbers
    assert orphan.text == "97,271"
    (finding,) = result.findings
    assert (finding.check, finding.kind, finding.severity) == (
        "no_hallucinations",
        "orphan",
        "major",
    )
    assert '"97,271"' in finding.message


def test_years_are_never_claims() -> None:
    result = check("In 2019 revenue doubled.", ("fin", {"fiscal_year": 2018}))
    assert result.report.matches == []
    assert result.findings == []


def test_numbers_from_the_query_are_not_claims() -> None:
    result = check(
        "Below $200 the stock looks cheap; it trades at $190.68.",
        QUOTE,
        query="Is NVO a buy below $200?",
    )
    assert status_of(result) == {"$190.68": "exact"}


def test_small_integers_without_evidence_are_not_claims() -> None:
    result = check("Here are 3 reasons and 2 risks; NVO trades at $190.68.", QUOTE)
    assert status_of(result) == {"$190.68": "exact"}


def test_small_integers_in_the_evidence_are_claims() -> None:
    result = check("The board has 9 members.", ("company", {"board_members": 9}))
    assert status_of(result) == {"9": "exact"}


def test_small_numbers_with_a_unit_are_claims() -> None:
    result = check("Rates rose 3% and the fee is $5.", QUOTE)
    assert set(status_of(result).values()) == {"orphan"}


def test_claim_spans_cover_every_claim() -> None:
    body = "NVO closed at $190.68 in 2024; analysts expect 97,271 contracts."
    result = check(body, QUOTE)
    assert [body[start:end] for start, end in result.claim_spans] == ["$190.68", "97,271"]


def test_the_numbers_report_has_the_spec_shape() -> None:
    body = "NVO closed at $190.66, volume 3,456,789, and 97,271 puts."
    report = check(body, QUOTE).report
    assert report.exact_matches == 1
    assert [match.text for match in report.close_matches] == ["$190.66"]
    assert [match.text for match in report.orphan_numbers] == ["97,271"]
    assert [match.text for match in report.suspicious] == ["$190.66"]
    assert [match.text for match in report.matches] == ["$190.66", "3,456,789", "97,271"]


def test_an_empty_body_and_no_evidence() -> None:
    result = check("No numbers.")
    assert result.report.matches == []
    result = check("Revenue was $5B.")
    assert status_of(result) == {"$5B": "orphan"}


def test_citations_help_decide_between_sources() -> None:
    body = "NVO trades at $190.66 [quote-NVO]."
    result = check(body, QUOTE, ("quote-LLY", {"symbol": "LLY", "price": 190.61}))
    match = match_of(result, "$190.66")
    assert match.status == "close_but_wrong"
    assert match.source_ref == "quote-NVO"


@pytest.mark.parametrize("tolerance", [0.0, 0.05])
def test_a_zero_tolerance_still_matches_exact_numbers(tolerance: float) -> None:
    result = check("NVO closed at $190.68.", QUOTE, relative_tolerance=tolerance)
    assert status_of(result) == {"$190.68": "exact"}


def test_the_index_is_reused_across_analyses() -> None:
    index = build_index([EvidenceItem(source_ref="quote-NVO", content=QUOTE[1])])
    first = analyze("NVO closed at $190.66.", index, settings=DEFAULTS)
    second = analyze("NVO closed at $190.66.", index, settings=DEFAULTS)
    assert first.report == second.report
    assert [fix.replace for fix in first.fixes] == [fix.replace for fix in second.fixes]


def test_a_reused_index_answers_a_claim_as_a_fresh_one_would() -> None:
    evidence = [
        EvidenceItem(source_ref="income", content={"revenue": 1200}),
        EvidenceItem(source_ref="balance", content={"total_assets": 1200}),
    ]
    index = build_index(evidence)

    revenue = analyze("Revenue was $1,200.", index, settings=DEFAULTS)
    again = analyze("Revenue was $1,200.", index, settings=DEFAULTS)
    # The same digits under another label are judged anew: the label picks the fit.
    assets = analyze("Total assets were $1,200.", index, settings=DEFAULTS)

    assert again.report == revenue.report
    assert match_of(revenue, "$1,200").source_ref == "income"
    assert match_of(assets, "$1,200").source_ref == "balance"
    assert (
        assets.report
        == analyze("Total assets were $1,200.", build_index(evidence), settings=DEFAULTS).report
    )


def test_a_ratio_to_one_is_checked_like_any_multiple() -> None:
    evidence = ("10-K", "Current ratio 1.21 1.35")
    assert status_of(check("The current ratio was 1.35:1.", evidence)) == {"1.35:1": "exact"}
    assert status_of(check("The quick ratio was 1.85:1.", evidence)) == {"1.85:1": "orphan"}


def test_a_scale_written_after_the_number_is_compared_with_the_evidence_scale() -> None:
    table = "(in thousands)\n\n| | 2017 |\n|---|---|\n| Total current liabilities | 5,466,312 |"
    right = check("Total current liabilities are $5,466,312 in thousands.", ("10-K", table))
    assert status_of(right) == {"$5,466,312 in thousands": "exact"}
    wrong = check("Total current liabilities are $5,466,312 in USD millions.", ("10-K", table))
    assert status_of(wrong)["$5,466,312 in USD millions"] != "exact"
    assert wrong.findings


RATES = "|  | 2019 | 2018 |\n|---|---|---|\n|  | % | % |\n| Discount rate | 2.9 | 3.8 |\n"


def test_a_markdown_table_row_names_its_numbers() -> None:
    result = check("The discount rate fell from 3.8% to 2.9%.", ("table", RATES))
    assert status_of(result) == {"3.8%": "exact", "2.9%": "exact"}
    assert match_of(result, "3.8%").evidence_label == "Discount rate"


def test_a_row_label_alone_does_not_pin_which_column_a_fix_takes() -> None:
    table = "| | 2019 | 2018 |\n|---|---|---|\n| Revenue | 15,200 | 14,100 |\n"
    result = check("Revenue was 15,096 in the year.", ("table", table))
    assert status_of(result) == {"15,096": "close_but_wrong"}
    assert result.fixes == []
    one_column = "| | 2019 |\n|---|---|\n| Revenue | 15,200 |\n"
    fixed = check("Revenue was 15,096 in the year.", ("table", one_column))
    assert [fix.replace for fix in fixed.fixes] == ["15,200"]


def test_a_coarse_rounding_far_from_its_evidence_number_needs_the_same_label() -> None:
    evidence = ("10-K", "Net income was $0.6 million in the year.")
    assert status_of(check("Net income was $1 million.", evidence)) == {"$1 million": "rounded"}
    assert status_of(check("Legal costs were $1 million.", evidence)) == {"$1 million": "orphan"}
