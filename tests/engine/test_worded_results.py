"""Results stated in words: derived when their operation over supported numbers gives
them, close-but-wrong with a fix when it does not, and never supported by a number the
evidence does not support. Each test states a pattern in the issue's terms, written
anew (not copied from the dev sets)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from validation.engine.pipeline import validate
from validation.engine.types import Bundle, EngineSettings, Verdict

NUMBERS_ONLY = EngineSettings(citations="none")
IN_MILLIONS = "(in millions)\n\n| | 2023 | 2022 |\n|---|---|---|\n"


def check(
    body: str, *evidence: tuple[str, Any], settings: EngineSettings = NUMBERS_ONLY
) -> Verdict:
    items = [
        {"source_ref": ref, "content": content if isinstance(content, str) else json.dumps(content)}
        for ref, content in evidence
    ]
    return validate(Bundle(query="What changed?", body=body, evidence=items), settings)


def status(verdict: Verdict, text: str) -> str:
    return next(match.status for match in verdict.numbers.matches if match.text == text)


def numeric_findings(verdict: Verdict) -> list[str]:
    return [
        finding.text
        for finding in verdict.findings
        if finding.check in ("claims_supported", "no_hallucinations")
    ]


# ------------------------------------------------------------------ derived in words


@pytest.mark.parametrize(
    ("body", "evidence", "result"),
    [
        (
            "- Freight in 2023: $4,210 million\n- Freight in 2022: $3,905 million\n\n"
            "Freight costs rose by $305 million.",
            IN_MILLIONS + "| Freight | 4,210 | 3,905 |",
            "$305 million",
        ),
        (
            "Wholesale brought $1,240 million and retail $860 million, $2,100 million in total.",
            IN_MILLIONS + "| Wholesale | 1,240 | 1,100 |\n| Retail | 860 | 800 |",
            "$2,100 million",
        ),
        (
            "Backlog averaged $1,150 million over the two years ($1,100 million in 2022 "
            "and $1,200 million in 2023).",
            IN_MILLIONS + "| Backlog | 1,200 | 1,100 |",
            "$1,150 million",
        ),
        (
            "Inventories of $235 million represent 23.5% of current assets of $1,000 million.",
            IN_MILLIONS + "| Inventories | 235 | 210 |\n| Current assets | 1,000 | 950 |",
            "23.5%",
        ),
        (
            "Net debt of $640 million is 1.6 times operating profit of $400 million.",
            IN_MILLIONS + "| Net debt | 640 | 700 |\n| Operating profit | 400 | 380 |",
            "1.6",
        ),
        (
            "The gross margin widened from 19.3% to 21.7%, up 2.4 percentage points.",
            "| | 2023 | 2022 |\n|---|---|---|\n| Gross margin | 21.7% | 19.3% |",
            "2.4 percentage points",
        ),
        (
            "Subscribers went from 71.2 million in 2021 to 72.1 million in 2023, "
            "a compound annual growth rate of 0.6%.",
            "Subscribers: 71.2 million (2021) and 72.1 million (2023).",
            "0.6%",
        ),
    ],
)
def test_a_result_stated_in_words_is_derived(body: str, evidence: str, result: str) -> None:
    verdict = check(body, ("filing", evidence))

    assert status(verdict, result) == "derived"
    assert numeric_findings(verdict) == []


def test_a_stated_intermediate_is_derived_from_the_prior_year_in_the_evidence() -> None:
    # 2,700 is never written in the report: it is the other end of the change.
    body = "Revenue decreased by $214 million to $2,486 million, a decline of 7.9%."
    verdict = check(body, ("filing", IN_MILLIONS + "| Revenue | 2,486 | 2,700 |"))

    assert status(verdict, "$214 million") == "derived"
    assert status(verdict, "7.9%") == "derived"
    assert numeric_findings(verdict) == []


def test_operands_may_stand_in_another_paragraph_of_the_same_answer() -> None:
    body = (
        "The two inputs are $1,918 million and $1,266 million.\n\n"
        "Hence the decline amounts to $652 million."
    )
    verdict = check(body, ("filing", IN_MILLIONS + "| Sales | 1,266 | 1,918 |"))

    assert status(verdict, "$652 million") == "derived"


# ------------------------------------------------------------------ support is not circular


def test_a_fabricated_operand_does_not_pass_through_the_result_it_explains() -> None:
    # 1,377 is in no evidence: "up 418" and "at 1,377" explain only each other.
    body = "Services grew by 418 million, reaching 1,377 million from 959 million."
    verdict = check(body, ("filing", "Services revenue was 959 million a year earlier."))

    assert status(verdict, "1,377 million") == "orphan"
    assert status(verdict, "418 million") == "orphan"
    assert "1,377 million" in numeric_findings(verdict)


def test_a_sum_that_undoes_a_derived_difference_supports_nothing_new() -> None:
    """Free cash flow is derived as cash from operations less capital spending; the same
    capital spending added back gives cash from operations again, so a wrong figure for
    it is judged against the evidence, not "derived" through the difference."""
    verdict = check(
        "Free cash flow was $18.8B: cash from operations of $21.2B less capital spending of $2.5B.",
        ("cashflow", {"cash_from_operations": 21_300_000_000, "capital_spending": 2_500_000_000}),
    )
    assert status(verdict, "$18.8B") == "derived"
    assert status(verdict, "$21.2B") == "close_but_wrong"
    (fix,) = verdict.fixes
    assert (fix.find, fix.replace) == ("$21.2B", "$21.3B")


def test_an_operand_below_the_results_precision_derives_nothing() -> None:
    """$48.1 billion less a $212 share price is $48.1 billion at any precision shown: no
    operation explains a wrong "$48.0 billion" that way."""
    verdict = check(
        "Shares trade at $212. Revenue reached $48.0 billion.",
        ("quote", {"price": 212}),
        ("income", {"revenue": 48_100_000_000}),
    )
    assert status(verdict, "$48.0 billion") == "close_but_wrong"


def test_a_derivation_names_its_evidence_numbers_in_the_expressions_units() -> None:
    verdict = check(
        "Free cash flow was $18.8B after capital spending of $2.5B.",
        ("cashflow", {"cash_from_operations": 21_300_000_000, "capital_spending": 2_500_000_000}),
    )
    (match,) = [match for match in verdict.numbers.matches if match.text == "$18.8B"]
    assert match.status == "derived"
    assert match.formula == "cash_from_operations 21.3 - 2.5"


# ------------------------------------------------------------------ wrong results get fixes


@pytest.mark.parametrize(
    ("body", "evidence", "wrong", "right"),
    [
        (
            "The default rate fell from 3.1% to 2.6%, a drop of 0.6 percentage points.",
            "| | 2023 | 2022 |\n|---|---|---|\n| Default rate | 2.6% | 3.1% |",
            "0.6 percentage points",
            "0.5 percentage points",
        ),
        (
            "Deposits rose from $412.0M to $497.3M, an increase of 17.2 percent.",
            "Deposits were $412.0 million in 2022 and $497.3 million in 2023.",
            "17.2 percent",
            "20.7 percent",
        ),
        (
            "Of total orders of $57,810K, $31,200K came online, which is 43% of the total.",
            "Orders: total $57,810 thousand, online $31,200 thousand.",
            "43%",
            "54%",
        ),
    ],
)
def test_a_wrong_result_in_words_gets_a_fix_in_its_own_words(
    body: str, evidence: str, wrong: str, right: str
) -> None:
    verdict = check(body, ("filing", evidence))

    assert wrong in numeric_findings(verdict)
    (fix,) = [fix for fix in verdict.fixes if wrong in fix.find]
    assert right in fix.replace
    assert fix.verified_with.startswith("calculator: ")


def test_a_difference_at_the_wrong_scale_word_is_fixed_by_its_scale_word() -> None:
    body = "Revenue went from $1,918 million to $1,906 million, a decline of 12 thousand."
    verdict = check(body, ("filing", "Revenue: $1,918 million (2022), $1,906 million (2023)."))

    (fix,) = verdict.fixes
    assert (fix.find.strip(), fix.replace.strip()) == ("12 thousand", "12 million")


def test_a_result_written_as_a_fraction_is_no_percentage() -> None:
    body = "Orders of $31,200K out of $57,810K are 0.54% of the total."
    verdict = check(body, ("filing", "Orders: total $57,810 thousand, online $31,200 thousand."))

    assert "0.54%" in numeric_findings(verdict)


def test_a_result_follows_from_the_numbers_of_its_own_sentence_first() -> None:
    """The growth of a segment the evidence does not show is stated with its own two
    figures, not with the figures of the bullet before it nor the total two bullets
    away: it gets no fix from there (its figures carry the finding)."""
    verdict = check(
        "- Retail sales grew 3.0%, from $47,156 million to $48,580 million.\n"
        "- Catalogue sales grew 1.3%, from $6,516 million to $6,599 million.\n"
        "- Online sales grew 2.3%, from $27,954 million in 2021 to $28,604 million in 2022.",
        ("filing", IN_MILLIONS + "| Retail sales | 48,580 | 47,156 |"),
    )
    assert not [fix for fix in verdict.fixes if fix.find.startswith("2.3%")]
    assert status(verdict, "$27,954 million") == "orphan"


def test_numbers_of_a_later_paragraph_are_not_what_a_result_was_stated_from() -> None:
    """A growth rate in the opening paragraph is not a slip of a difference of two
    rates discussed further down: flag it if the evidence lacks it, fix nothing."""
    verdict = check(
        "Net sales increased by 1.9% in 2023 compared to the previous year.\n\n"
        "Over five years, revenue grew around 4% a year and earnings around 6% a year.",
        ("filing", "Five-year compound growth: revenue 4.0%, earnings 6.2%."),
    )
    assert not [fix for fix in verdict.fixes if fix.find.startswith("1.9%")]
    assert "1.9%" in numeric_findings(verdict)


# ------------------------------------------------------------------ restatements


def test_restatements_of_the_evidence_are_supported() -> None:
    evidence = (
        "(In millions)\n\n| | 2023 |\n|---|---|\n| Net sales | $53,581 |\n"
        "| Impairment | — |\n| Price change | (5.0)% |\n\n"
        "| Mix | 2023 | 2022 |\n|---|---|---|\n| Total | 100.0 % | 100.0 % |\n"
        "| Cost of sales | 7.0 | 6.5 |\n| Margin | 93.0 % | 93.5 % |"
    )
    body = (
        "Net sales were $53.6 billion, with no impairment ($0). Prices fell -5.0%, and "
        "cost of sales was 7.0% of sales."
    )
    verdict = check(body, ("filing", evidence))

    assert numeric_findings(verdict) == []
    assert status(verdict, "$53.6 billion") == "rounded"


def test_a_hedged_number_is_a_bound() -> None:
    verdict = check(
        "Fees were less than 1% of revenues.",
        ("filing", "Fees amounted to 0.4% of revenues in 2023."),
    )
    assert numeric_findings(verdict) == []


def test_written_conversions_are_no_errors() -> None:
    verdict = check(
        "In billions: $7,412 million / 1,000 = $7.412 billion. Growth was (120 - 100) / 100 = 20%.",
        ("filing", "Revenue 7,412 million. Units sold: 120 in 2023 and 100 in 2022."),
    )
    assert numeric_findings(verdict) == []


# ------------------------------------------------------------------ confident and wrong


def test_the_subject_of_a_calculation_that_states_its_own_result_is_an_operand() -> None:
    body = (
        "The margin of safety against today's price of $134.22 is "
        "(152.40 - 134.22) / 152.40 * 100 = 11.93% [valuation]."
    )
    verdict = check(body, ("valuation", {"price": 134.22, "intrinsic_value": 152.40}))

    assert verdict.fixes == []
    assert numeric_findings(verdict) == []


def test_a_scale_word_multiplies() -> None:
    verdict = check("Net income was $88,136 billion.", ("fin", {"net_income": 88136000000}))

    assert "$88,136 billion" in numeric_findings(verdict)
    (fix,) = verdict.fixes
    assert fix.replace.strip().endswith("$88,136 million.") or "$88,136 million" in fix.replace


def test_a_number_at_another_scale_of_an_evidence_number_is_a_scale_error() -> None:
    verdict = check(
        "Net sales were $47.5 million in 2023.",
        ("filing", "(In millions)\n\n| | 2023 |\n|---|---|\n| Net sales | 47,525 |"),
    )
    (finding,) = [f for f in verdict.findings if f.text == "$47.5 million"]
    assert finding.kind == "wrong_scale"
    (fix,) = verdict.fixes
    assert "$47.5 billion" in fix.replace


def test_a_number_more_precise_than_its_evidence_must_agree_with_the_exact_figures() -> None:
    body = "Sales rose 24.4% to $3,090 million from $2,500 million."
    verdict = check(body, ("p1", "Sales increased 24% to $3,090 million from $2,500 million."))

    assert "24.4%" in numeric_findings(verdict)
    (fix,) = verdict.fixes
    assert "23.6%" in fix.replace


def test_two_refs_in_one_bracket_are_two_citations() -> None:
    verdict = check(
        "Intrinsic value is $152.40 against a price of $134.22 [dcf_model; quote].",
        ("dcf_model", {"intrinsic_value": 152.40}),
        ("quote", {"price": 134.22}),
        settings=EngineSettings(citations="claims"),
    )
    assert [f.kind for f in verdict.findings if f.check == "source_metadata_present"] == []
    assert verdict.fixes == []


# ------------------------------------------------------------------ when unsure, no fix


def test_a_rounding_slip_in_the_last_digit_is_reported_without_a_fix() -> None:
    # (167 / 3,991) * 100 is 4.1844...: the writer rounded up, the number is no other one.
    verdict = check(
        "D&A margin: (167 / 3,991) * 100 = 4.19%.",
        ("income", "Depreciation and amortization 167. Net revenue 3,991."),
    )
    (finding,) = [f for f in verdict.findings if f.text == "4.19%"]
    assert (finding.kind, finding.severity) == ("arithmetic", "minor")
    assert "4.18%" in finding.message
    assert verdict.fixes == []


def test_a_result_off_by_more_than_a_unit_keeps_its_fix() -> None:
    verdict = check(
        "D&A margin: (167 / 3,991) * 100 = 4.25%.",
        ("income", "Depreciation and amortization 167. Net revenue 3,991."),
    )
    (fix,) = verdict.fixes
    assert "4.18%" in fix.replace
    assert fix.confidence == 0.99


def test_a_worded_result_within_a_unit_of_its_operation_is_reported_without_a_fix() -> None:
    verdict = check(
        "Sales rose from $2,500 million to $3,091 million, an increase of 23.7%.",
        ("filing", "Sales were $3,091 million in 2023 and $2,500 million in 2022."),
    )
    (finding,) = [f for f in verdict.findings if f.text == "23.7%"]
    assert finding.severity == "minor"
    assert verdict.fixes == []


def test_a_sum_takes_no_operand_below_the_results_precision() -> None:
    # 0.798 is a ratio; as an amount beside $9,542 million it is nothing at all, so
    # "$9,542 million + 0.798" is no reading of the $7,617 million dividends.
    body = (
        "Dividend payout ratio = Total cash dividends paid / Net income attributable to "
        "shareholders\n\n"
        "Total cash dividends paid = $7,617 million (from the Statements of Equity)\n"
        "Net income attributable to shareholders = $9,542 million (from the Statements "
        "of Income)\n\n"
        "Dividend payout ratio = $7,617 million / $9,542 million = 0.798 or 79.8%"
    )
    verdict = check(
        body,
        ("income", "($ in millions)\nNet Income Attributable to Shareowners\n$\n9,542 $\n9,771"),
        ("cash flows", "($ in millions)\nDividends\n(7,616)\n(7,252)\n(7,047)"),
    )
    assert [fix.replace for fix in verdict.fixes if "9,542 million (from" in fix.replace] == []


def test_a_text_table_rows_label_does_not_pick_one_of_its_columns() -> None:
    # 2023 and 2022 stand side by side under one label: which one was meant is not known.
    verdict = check(
        "Operating revenues for 2023 were $131,868 million.",
        (
            "10-K p22",
            "($ in millions)\n2023\n2022\nConsolidated Operating Revenues\n"
            "$ 136,835 \n$ 133,613 \n",
        ),
    )
    assert "$131,868 million" in numeric_findings(verdict)
    assert verdict.fixes == []


def test_an_ordinal_of_the_evidence_states_a_count() -> None:
    verdict = check(
        "The company has raised its dividend for 65 consecutive years.",
        ("release", "This marked the 65th consecutive year of dividend increases."),
    )
    assert numeric_findings(verdict) == []


def test_a_number_and_a_remark_in_parentheses_are_no_two_cells_of_a_row() -> None:
    verdict = check(
        "Intrinsic value is $138.00 per share.",
        ("dcf", "Intrinsic value per share: 139.00 USD (10-year DCF, 8% discount rate)."),
    )
    (fix,) = verdict.fixes
    assert "$139.00" in fix.replace
