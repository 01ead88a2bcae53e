"""A report is read as a calculation graph: cited values, computed values, formula
constants, and unsupported numbers. These tests follow the shapes people write
calculations in, and the rules each number of a calculation must obey."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest

from validation.engine.pipeline import validate
from validation.engine.types import Bundle, EngineSettings, Finding, FixProposal, Verdict

NUMBERS_ONLY = EngineSettings(citations="none")

# A small statement "in millions" with two years of two line items.
TABLE = (
    "| (in millions) | 2019 | 2018 |\n"
    "|---|---|---|\n"
    "| Revenue | 680 | 774 |\n"
    "| Other | 44.1 | 56.7 |\n"
    "| Interest | 13,535 | 13,264 |\n"
)
EVIDENCE = [{"source_ref": "table", "kind": "table", "content": TABLE}]


def check(body: str, evidence: Sequence[Mapping[str, object]] | None = None) -> Verdict:
    bundle = Bundle(
        query="What changed in the statement?",
        body=body,
        evidence=evidence if evidence is not None else EVIDENCE,
    )
    return validate(bundle, NUMBERS_ONLY)


def numeric(verdict: Verdict) -> list[Finding]:
    return [f for f in verdict.findings if f.check in ("claims_supported", "no_hallucinations")]


def flagged(body: str, verdict: Verdict) -> list[str]:
    return [body[f.start : f.end] for f in numeric(verdict)]


def fix_for(verdict: Verdict, text: str) -> FixProposal:
    (fix,) = [fix for fix in verdict.fixes if text in fix.find]
    return fix


# ------------------------------------------------------------------ shapes


@pytest.mark.parametrize(
    "body",
    [
        "Computing 44.1 - 56.7 = -$12.6 million.",
        "The change is -$12.6 million, calculated as 44.1 - 56.7.",
        "We calculate the change as 44.1 - 56.7, which equals -$12.6 million.",
        "Other fell by (44.1 - 56.7) / 56.7, which equals -22.22%.",
        "The change was -22.22 percent, calculated as (44.1 - 56.7) / 56.7.",
        "The average Other is (44.1 + 56.7) / 2 = 50.4 million.",
        "The average is $50.4 million, calculated as (44.1 + 56.7) / 2.",
        "Average revenue: (680 + 774 + 44.1 + 56.7 + 13,535) / 5 = 3,017.96.",
        "Nested: ((680 - 774) + (44.1 - 56.7)) / 2 = -53.3.",
        "Change: [(680 - 774) / 774] * 100 = -12.14%.",
        "Ratio: 680 / 774 x 100% = 87.86%.",
        "Ratio = 680 / 774 = 0.88 or 88%.",
        "Revenue = 680 - 774\nRevenue = -94",
        "Interest grew 13,535 / 13,264 - 1, which equals 2.04%.",
    ],
)
def test_a_correct_calculation_in_any_shape_passes(body: str) -> None:
    verdict = check(body)

    assert flagged(body, verdict) == []
    assert verdict.fixes == []


@pytest.mark.parametrize(
    ("body", "wrong", "right"),
    [
        ("Computing 44.1 - 56.7 = -$13.2 million.", "-$13.2 million", "-$12.6 million"),
        (
            "The change is -$13.2 million, calculated as 44.1 - 56.7.",
            "-$13.2 million",
            "-$12.6 million",
        ),
        ("It is (680 - 774) / 774, which equals -13.14%.", "-13.14%", "-12.14%"),
        ("The average is (44.1 + 56.7) / 2 = 52.4.", "52.4", "50.4"),
        ("Nested: ((680 - 774) + (44.1 - 56.7)) / 2 = -55.3.", "-55.3", "-53.3"),
    ],
)
def test_a_wrong_result_gets_the_recomputed_value_in_its_own_format(
    body: str, wrong: str, right: str
) -> None:
    verdict = check(body)

    assert wrong in flagged(body, verdict)
    fix = fix_for(verdict, wrong)
    assert fix.replace == fix.find.replace(wrong, right)
    assert fix.confidence >= 0.9
    assert fix.verified_with.startswith("calculator: ")
    assert fix.tool_calls[0].tool == "calculator"


def test_a_percentage_of_a_ratio_is_fixed_as_a_percentage_never_as_a_fraction() -> None:
    body = "Growth: (120 - 100) / 100 = 25%."
    evidence = [{"source_ref": "t", "content": "Sales were 120 in 2019 and 100 in 2018."}]

    verdict = check(body, evidence)

    fix = fix_for(verdict, "25%")
    assert fix.replace == fix.find.replace("25%", "20%")
    assert check("Growth: (120 - 100) / 100 = 20%.", evidence).fixes == []


# ------------------------------------------------------------------ the graph


def test_an_operand_in_no_evidence_is_an_orphan_even_when_the_arithmetic_holds() -> None:
    body = "Computing 38.1 - 56.7 = -$18.6 million."

    verdict = check(body)

    assert flagged(body, verdict) == ["38.1"]
    (finding,) = numeric(verdict)
    assert finding.kind == "orphan"
    assert "operand" in finding.message


def test_an_operand_computed_earlier_in_the_report_is_supported() -> None:
    body = "Other changed by 44.1 - 56.7 = -12.6. As a share: -12.6 / 56.7 = -22.22%."

    assert flagged(body, check(body)) == []


def test_a_result_restated_later_is_supported() -> None:
    body = "Ratio = 680 / 774 = 0.88.\n\nSo the ratio is approximately 0.88."

    assert flagged(body, check(body)) == []


@pytest.mark.parametrize(
    "body",
    [
        "Change: (680 - 774) / 774 * 100 = -12.14%.",  # the 100 of x 100
        "Average: (44.1 + 56.7 + 680) / 3 = 260.27.",  # the n of an average
        "Growth: 13,535 / 13,264 - 1 = 2.04%.",  # the 1 of a growth rate
        "Two-year rate: (13,535 / 13,264)^(1/2) - 1 = 1.02%.",  # the 1 and 2 of a CAGR
        "Two-year rate: (13,535 / 13,264)^0.5 - 1 = 1.02%.",  # a root as a decimal power
        "To get a percentage, multiply the ratio by 100.",
    ],
)
def test_formula_constants_are_not_claims(body: str) -> None:
    assert flagged(body, check(body)) == []


# ------------------------------------------------------------------ scale and percent


def test_a_result_in_another_scale_than_its_operands_is_a_scale_error() -> None:
    body = "Computing 44.1 - 56.7 = -$12.6 thousand."

    verdict = check(body)

    assert flagged(body, verdict) == ["-$12.6 thousand"]


def test_a_scale_word_that_agrees_with_the_evidence_passes() -> None:
    assert flagged("x", check("x")) == []
    body = "Computing 680 - 774 = -$94 million."
    assert flagged(body, check(body)) == []
    wrong = "Computing 680 - 774 = -$94 billion."
    assert flagged(wrong, check(wrong)) == ["-$94 billion"]


def test_a_ratio_shown_as_a_percentage_without_x100_is_wrong() -> None:
    body = "The change is (44.1 - 56.7) / 56.7 = -0.22 percent."

    verdict = check(body)

    fix = fix_for(verdict, "-0.22 percent")
    assert "-22.22 percent" in fix.replace


def test_an_average_of_percentages_stays_a_percentage() -> None:
    evidence = [
        {
            "source_ref": "t",
            "content": "| | % |\n|---|---|\n| Rate 2019 | 2.9 |\n| Rate 2018 | 3.8 |",
        }
    ]
    body = "The average rate: (2.9% + 3.8%) / 2 = 3.35%."

    assert flagged(body, check(body, evidence)) == []


# ------------------------------------------------------------------ years and ranges


def test_a_year_that_dates_a_figure_must_be_in_the_evidence_or_the_query() -> None:
    evidence = [{"source_ref": "call", "content": "In 2022 revenue was $5.1 billion."}]

    moved = check("In 2021 revenue was $5.1 billion.", evidence)
    kept = check("In 2022 revenue was $5.1 billion.", evidence)

    assert [f.kind for f in numeric(moved)] == ["unsupported_year"]
    assert numeric(kept) == []


@pytest.mark.parametrize(
    ("body", "flagged_year"),
    [
        ("Sales in the third quarter of 2020 rose 5%.", None),
        ("Sales in Q3 2020 rose 5%.", None),
        ("Sales in Q3 2019 rose 5%.", None),  # the call compares with it
        ("Sales in the fourth quarter of 2019 rose 5%.", "2019"),  # a period moved
        ("Sales in the 2021 third quarter rose 5%.", "2021"),
    ],
)
def test_a_quarter_of_a_year_must_be_one_the_evidence_dates(
    body: str, flagged_year: str | None
) -> None:
    evidence = [
        {
            "source_ref": "call",
            "content": "Welcome to our third quarter 2020 call. Compared with the third "
            "quarter of 2019, sales rose 5%.",
        }
    ]
    found = [f for f in numeric(check(body, evidence)) if f.kind == "unsupported_year"]
    assert [f.text for f in found] == ([flagged_year] if flagged_year else [])


def test_a_date_moved_within_a_month_the_evidence_dates_is_unsupported() -> None:
    evidence = [
        {"source_ref": "chat", "content": "The train leaves on June 26th; pay by 7/1/2023."}
    ]

    moved = check("They booked the train for June 21st, paying by July 1.", evidence)
    kept = check("They booked the train for 26 June, paying by July 1.", evidence)
    elsewhere = check("As of December 31, 2022 they had booked it.", evidence)

    assert [(f.kind, f.text) for f in numeric(moved)] == [("unsupported_date", "June 21st")]
    assert numeric(kept) == []
    assert numeric(elsewhere) == []  # a month the evidence never dates is not judged


@pytest.mark.parametrize("wall", ["Q4 2019 ", "fourth quarter of 2019 ", "2019 Q4 "])
def test_a_wall_of_quarters_is_read_in_linear_time(wall: str) -> None:
    text = wall * (200_000 // len(wall))

    verdict = check(f"Sales rose 5%. {text}", [{"source_ref": "call", "content": text}])

    assert not [f for f in numeric(verdict) if f.kind == "unsupported_year"]


def test_a_wall_of_month_names_is_read_in_linear_time() -> None:
    body = "June " * 40_000 + "21"

    verdict = check(body, [{"source_ref": "chat", "content": "June 26"}])

    assert [f.kind for f in numeric(verdict)] == ["unsupported_date"]


def test_each_end_of_a_range_is_a_claim() -> None:
    evidence = [{"source_ref": "call", "content": "Capex will be $80 million to $90 million."}]
    body = "Capital expenditures will be between $80 million and $100 million."

    assert flagged(body, check(body, evidence)) == ["$100 million"]


def test_an_end_of_a_range_is_never_explained_as_arithmetic() -> None:
    evidence = [
        {
            "source_ref": "call",
            "content": "We expect net sales to grow 4% to 7%, and organic growth of 3% to 5%.",
        }
    ]
    body = "Net sales are expected to grow by 5-8%, with organic growth of 3-5%."

    # 8 would be 5 + 3 and 3 + 5, but nobody writes the bound of a range as a sum.
    assert flagged(body, check(body, evidence)) == ["8%"]


def test_the_bounds_of_a_range_are_not_operands_of_a_derivation() -> None:
    evidence = [{"source_ref": "call", "content": "Revenue of $11,100 million was up 3%."}]
    body = "Revenue should be between $11,100 million and $11,250 million, up 1%."

    # 1% is not the change from one bound to the other: an unsupported claim.
    assert flagged(body, check(body, evidence)) == ["$11,250 million", "1%"]


# ------------------------------------------------------------------ linear cost


def test_a_wall_of_operators_is_read_in_linear_time() -> None:
    body = "1 + " * 20_000 + "1 = 20001"

    verdict = check(body, [{"source_ref": "t", "content": "1"}])

    assert verdict.decision in ("APPROVE", "REVISE", "RETRY", "FAIL")


def test_an_operand_computed_in_an_unlinked_expression_is_supported() -> None:
    body = "Growth = [(680 - 774) / 774] * 100\n\nDoing the math: (-94 / 774) * 100 = -12.14%."

    assert flagged(body, check(body)) == []


# ------------------------------------------------------------------ the evidence's own words


@pytest.mark.parametrize(
    "header",
    ["(in millions)", "| $ million | 2019 | 2018 |", "RMB'Million", "(Dollars in millions)"],
)
def test_a_documents_declared_scale_gives_its_bare_numbers_their_scale(header: str) -> None:
    evidence = [{"source_ref": "10-K", "content": f"{header}\nSegment revenue\n$\n411\n$\n247"}]

    supported = check("Segment revenue was $411 million.", evidence)
    scaled_wrong = check("Computing 411 - 247 = $164 thousand.", evidence)

    assert numeric(supported) == []
    assert flagged("Computing 411 - 247 = $164 thousand.", scaled_wrong) == ["$164 thousand"]


def test_a_figure_more_precise_than_the_text_it_rounds_to_is_consistent() -> None:
    evidence = [{"source_ref": "10-K", "content": "Net revenue for 2022 was $23.6 billion."}]

    assert numeric(check("Net revenue for 2022 was $23.601 billion.", evidence)) == []
    assert [
        f.kind for f in numeric(check("Net revenue for 2022 was $23.9 billion.", evidence))
    ] == ["close_but_wrong"]


def test_a_json_number_is_never_coarse() -> None:
    evidence = [{"source_ref": "quote", "content": {"price_ask": 190.70}}]

    verdict = check("The ask price was $190.66.", evidence)

    assert [f.kind for f in numeric(verdict)] == ["close_but_wrong"]


def test_a_close_number_about_something_else_gets_no_fix() -> None:
    evidence = [{"source_ref": "10-K", "content": "Equity in income of affiliates was 19.0%."}]

    verdict = check("The gross margin was 19.4%.", evidence)

    assert verdict.fixes == []


def test_numbers_alone_on_their_lines_take_the_label_of_their_row() -> None:
    evidence = [
        {
            "source_ref": "10-K",
            "content": (
                "(In millions)\n2021\n2020\nOperatingincome\n \n2,112 \n509\n"
                "Netsales\n14,082 \n11,303"
            ),
        }
    ]
    body = "Operating income was $509 million on net sales of $11,303 million."

    assert numeric(check(body, evidence)) == []


def test_an_integer_that_is_part_of_a_name_is_not_a_claim() -> None:
    evidence = [{"source_ref": "10-K", "content": "Commercial Airplanes delivered 480 aircraft."}]
    body = "Deliveries of the Boeing 737 and the 787 family reached 480 aircraft."

    assert flagged(body, check(body, evidence)) == ["787"]


def test_an_integer_before_a_model_name_in_capitals_is_part_of_the_name() -> None:
    evidence = [{"source_ref": "10-K", "content": "Commercial Airplanes delivered 480 aircraft."}]
    body = "Deliveries of the 737 MAX resumed; 480 aircraft were delivered, 120 USD each."

    assert flagged(body, check(body, evidence)) == ["120 USD"]


def test_the_base_of_a_change_is_a_cited_quantity_not_the_n_of_an_average() -> None:
    evidence = [{"source_ref": "table", "content": "| Costs | $ 17 | $ 8 |\n| Deferred | 4 | 5 |"}]

    assert numeric(check("The change is (17 - 8) / 8 = 112.5%.", evidence)) == []
    assert numeric(check("The change is (4 - 5) / 5 = -20%.", evidence)) == []
    wrong = check("The change is (4 - 5) / 5 = -0.20%.", evidence)
    assert fix_for(wrong, "-0.20%").replace.endswith("-20.00%")
    # An average still divides by its count, even when the count is also an operand.
    assert numeric(check("The average is (4 + 5 + 8 + 17) / 4 = 8.5.", evidence)) == []


def test_an_operand_written_again_before_equals_is_not_a_result() -> None:
    evidence = [{"source_ref": "10-K", "content": "Total revenues were $66,608 million."}]
    body = (
        "Total revenues were $66,608 million. 20% of $66,608 million = "
        "0.20 * $66,608 million = $13,321.6 million."
    )

    verdict = check(body, evidence)

    assert [f for f in numeric(verdict) if f.kind == "arithmetic"] == []
    assert [fix for fix in verdict.fixes if "66,608" in fix.find] == []


def test_a_close_number_is_not_fixed_to_a_value_its_sentence_already_states() -> None:
    evidence = [{"source_ref": "release", "content": "It guides to adjusted EPS of $10.50."}]
    body = "It guides to adjusted EPS of $10.40 to $10.60, with a mid-point of $10.50."

    verdict = check(body, evidence)

    assert "$10.40" in flagged(body, verdict)
    assert [fix for fix in verdict.fixes if "$10.40" in fix.find] == []


def test_precision_is_compared_in_the_same_units_across_scale_words() -> None:
    evidence = [{"source_ref": "10-K", "content": "Investments included $23.1 billion for capex."}]

    assert numeric(check("Capex investments were $23,087 million.", evidence)) == []
    close = check("Capex investments were $23,187 million.", evidence)
    assert [f.kind for f in numeric(close)] == ["close_but_wrong"]


def test_a_list_of_numbers_after_a_name_is_part_of_the_name() -> None:
    evidence = [{"source_ref": "10-K", "content": "Commercial Airplanes delivered 480 aircraft."}]
    body = "Customers bought the Boeing 747, 777 and 767 freighters; deliveries reached 480."

    assert numeric(check(body, evidence)) == []


def test_a_numbered_name_the_evidence_writes_with_other_numbers_is_unsupported() -> None:
    evidence = [
        {"source_ref": "call", "content": "Our common equity Tier 1 capital ratio was 13.8%."}
    ]
    right = "The common equity Tier 1 capital ratio was 13.8%."
    wrong = "The common equity Tier 2 capital ratio was 13.8%."
    elsewhere = "See page 4: the common equity Tier 1 capital ratio was 13.8%."

    assert numeric(check(right, evidence)) == []
    assert flagged(wrong, check(wrong, evidence)) == ["Tier 2"]
    assert numeric(check(elsewhere, evidence)) == []  # places in a document are not names


def test_a_percentage_of_the_query_is_quoted_again_as_a_fraction() -> None:
    evidence = [{"source_ref": "10-K", "content": "Total revenues were $66,608 million."}]
    bundle = Bundle(
        query="Does any segment represent more than 20% of revenue?",
        body="The threshold is 0.20 * $66,608 million = $13,321.6 million.",
        evidence=evidence,
    )

    assert numeric(validate(bundle, NUMBERS_ONLY)) == []


# ------------------------------------------------------------------ roots and restated steps


def test_a_root_written_as_a_power_is_checked() -> None:
    right = (
        "Ratio = 13,535 / 13,264 = 1.02043. Root = 1.02043^(1/2) = 1.01016, "
        "so the rate is (1.01016 - 1) * 100 = 1.016%."
    )
    assert flagged(right, check(right)) == []
    wrong = right.replace("= 1.01016,", "= 1.0302,")
    assert flagged(wrong, check(wrong)) == ["1.0302"]
    assert fix_for(check(wrong), "1.0302").replace == "1.0102"


def test_a_step_restated_with_its_value_is_computed() -> None:
    body = "Change = ((680 - 774) / 774) * 100%\n\n= (-94 / 774) * 100%\n\n= -12.14%"
    assert flagged(body, check(body)) == []
    wrong = body.replace("(-94 /", "(-96 /")
    assert flagged(wrong, check(wrong)) == ["-96", "-12.14%"]


def test_the_whole_of_a_complement_is_a_constant() -> None:
    evidence = [{"source_ref": "10-K", "content": "Gross margin was 46.2% of net sales."}]
    body = "Cost of sales share = 100% - 46.2% = 53.8%."
    assert flagged(body, check(body, evidence)) == []
