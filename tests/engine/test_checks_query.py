"""Query addressed (docs/spec.md §4.3) and multi-goal scoring (docs/spec.md §8)."""

from __future__ import annotations

import pytest

from validation.engine.checks._query_words import stem, terms, topic_terms
from validation.engine.checks.query import (
    GROUNDED,
    QUERY_MISSED,
    QUERY_PASS,
    check_query,
    goal_matrix,
    goal_status,
    score_terms,
)
from validation.engine.types import EngineSettings, EvidenceItem, GoalStatus

DEFAULTS = EngineSettings()  # resolved once, as validate() does

REPORT = (
    "# NVO quick screen\n\nNovo Nordisk trades at $104.20, below $110. Owner earnings are "
    "$14.8B. The intrinsic value is $139 per share, a margin of safety of 25%."
)


def test_terms_drop_stop_words_and_instruction_words_and_stem_lightly() -> None:
    assert list(terms("Please show me the owner earnings of Novo Nordisk")) == [
        "owner",
        "earn",
        "novo",
        "nordisk",
    ]


def test_stemming_makes_inflections_meet() -> None:
    assert stem("prices") == stem("priced") == stem("pricing") == stem("price") == "pric"
    assert stem("earnings") == stem("earning") == "earn"
    assert stem("companies") == "company"
    assert stem("businesses") == "business"
    assert stem("analysis") == "analysis"


def test_numbers_of_the_query_are_terms_in_a_canonical_form() -> None:
    assert set(terms("Is it a buy below $1,100.50 or 25%?")) == {"buy", "1100.5", "25"}
    assert set(terms("104.20")) == set(terms("104.2"))


def test_score_is_the_share_of_query_terms_found_in_the_report() -> None:
    score, missing = score_terms("owner earnings and dividend yield", set(terms(REPORT)))

    assert score == 0.5
    assert missing == ["dividend", "yield"]


def test_a_query_with_no_content_terms_scores_one() -> None:
    assert score_terms("What is it?", set()) == (1.0, [])


def test_a_report_answering_the_query_addresses_it() -> None:
    result = check_query(
        REPORT, "Is Novo Nordisk a buy below $110? Show owner earnings.", [], DEFAULTS
    )

    assert result.addressed
    assert result.findings == []
    assert result.goals == []
    assert result.goal_decision is None


def test_a_report_that_misses_what_was_asked_fails_query_addressed() -> None:
    assert (QUERY_PASS, QUERY_MISSED) == (0.5, 0.2)
    result = check_query(
        REPORT, "Compare dividend yield, payout ratio and buyback history", [], DEFAULTS
    )

    assert not result.addressed
    assert result.score < QUERY_MISSED
    (finding,) = result.findings
    assert (finding.check, finding.kind, finding.severity) == (
        "query_addressed",
        "query_not_addressed",
        "major",
    )
    assert '"dividend"' in finding.message


def test_a_low_but_not_negligible_coverage_is_uncertain_and_only_minor() -> None:
    # 2 of 6 topic terms: a paraphrase or a different answer -- words cannot tell.
    result = check_query(
        REPORT, "Does Novo Nordisk pay dividends, and how safe is the payout?", [], DEFAULTS
    )

    assert QUERY_MISSED <= result.score < QUERY_PASS
    assert not result.addressed and not result.unrelated
    (finding,) = result.findings
    assert (finding.kind, finding.severity) == ("query_uncertain", "minor")
    assert "may answer in other words" in finding.message


def test_a_single_missing_topic_term_is_uncertain_not_a_miss() -> None:
    result = check_query(
        "The company grew sales 16% [quote-NVO].", "How is Novo doing?", [], DEFAULTS
    )

    assert result.score == 0.0
    assert not result.unrelated
    assert [(f.kind, f.severity) for f in result.findings] == [("query_uncertain", "minor")]


def test_exactly_one_half_passes() -> None:
    result = check_query("owner earnings", "owner earnings dividend yield", [], DEFAULTS)

    assert result.score == 0.5
    assert result.addressed


def test_a_report_sharing_no_term_with_the_query_is_unrelated() -> None:
    result = check_query(REPORT, "Best mechanical keyboard under 100 euros", [], DEFAULTS)

    assert result.score == 0.0
    assert result.unrelated


@pytest.mark.parametrize(
    ("score", "status"),
    [(1.0, "PASS"), (0.75, "PASS"), (0.7499, "PARTIAL"), (0.5, "PARTIAL"), (0.4999, "FAIL")],
)
def test_goal_bands_follow_spec_8_1(score: float, status: GoalStatus) -> None:
    assert goal_status(score, EngineSettings()) == status


def test_goal_bands_come_from_the_settings() -> None:
    strict = EngineSettings(goal_pass=0.9, goal_partial=0.6)

    assert goal_status(0.8, strict) == "PARTIAL"
    assert goal_status(0.55, strict) == "FAIL"


@pytest.mark.parametrize(
    ("statuses", "decision"),
    [
        (["PASS", "PASS"], "APPROVE"),
        (["PASS", "PARTIAL"], "APPROVE (partial)"),
        (["PARTIAL", "PARTIAL"], "APPROVE (partial)"),
        (["FAIL", "PASS", "PASS"], "REVISE"),
        (["FAIL", "PARTIAL"], "REVISE"),
        (["FAIL", "FAIL", "PASS"], "RETRY"),
        (["FAIL", "FAIL"], "RETRY"),
        (["FAIL"], "RETRY"),
        (["PASS"], "APPROVE"),
        ([], None),
    ],
)
def test_the_aggregate_matrix_of_spec_8_2(statuses: list[GoalStatus], decision: str) -> None:
    assert goal_matrix(statuses) == decision


def test_each_goal_is_scored_and_findings_follow_the_status() -> None:
    result = check_query(
        REPORT,
        "Value Novo Nordisk",
        [
            "Owner earnings",  # both terms present: PASS
            "Intrinsic value and dividend yield",  # 2 of 4: PARTIAL
            "Dividend history and buyback yield",  # 0 of 4: FAIL
        ],
        DEFAULTS,
    )

    assert [(g.status, g.score) for g in result.goals] == [
        ("PASS", 1.0),
        ("PARTIAL", 0.5),
        ("FAIL", 0.0),
    ]
    assert result.goals[1].missing_terms == ["dividend", "yield"]
    assert result.goal_decision == "REVISE"
    assert [(f.kind, f.severity) for f in result.findings] == [
        ("goal_partial", "info"),
        ("goal_not_met", "major"),
    ]
    assert result.findings[1].message == (
        'goal "Dividend history and buyback yield" is not met '
        '(score 0.00; missing: "Dividend", "history", "buyback", "yield")'
    )


# ---------------------------------------------------------------- the topic of a query


def test_instruction_and_material_words_are_not_topics() -> None:
    assert topic_terms("Summarize the key points of this earnings call transcript.") == {}
    assert topic_terms("Give a brief overview of the attached annual report.") == {}


def test_a_summary_addresses_a_request_to_summarize_the_material() -> None:
    summary = "Revenue rose 12% to $4.1 billion and the dividend was raised to $0.20 per share."

    result = check_query(summary, "Please summarise the main takeaways of this call.", [], DEFAULTS)

    assert (result.score, result.addressed, result.unrelated, result.findings) == (
        1.0,
        True,
        False,
        [],
    )


def test_a_short_question_keeps_its_line_item_years_and_capitalised_other() -> None:
    assert list(topic_terms("What was the change in Other income in 2021 from 2020?")) == [
        "chang",
        "other",
        "incom",
        "2021",
        "2020",
    ]
    assert list(topic_terms("Was other income higher?")) == ["incom", "high"]


def test_sentences_that_say_how_to_answer_are_dropped() -> None:
    query = (
        "What is Initech's FY2021 inventory turnover? Inventory turnover is defined as: "
        "COGS / average inventory. Round your answer to two decimal places. Please base "
        "your judgments on the information provided primarily in the balance sheet. If "
        "inventory turnover is not meaningful for this company, state that and explain why."
    )

    assert list(topic_terms(query)) == ["initech", "2021", "inventory", "turnover"]


def test_a_lead_in_naming_the_material_and_a_parenthesis_of_units_are_dropped() -> None:
    query = (
        "According to the details outlined in the cash flow statement, how much did "
        "Initech spend on capital expenditures in FY2020 (in USD millions)? "
        "Answer in USD millions."
    )

    assert list(topic_terms(query)) == ["initech", "spend", "capital", "expenditur", "2020"]


def test_a_question_after_a_colon_is_the_topic_and_its_preamble_is_not() -> None:
    query = (
        "You are an equity analyst with access to the income statement only. "
        "Here's the question: what is Initech's FY2019 gross margin?"
    )

    assert list(topic_terms(query)) == ["initech", "2019", "gross", "margin"]


def test_a_request_is_a_topic_even_when_it_starts_with_a_verb_like_give() -> None:
    assert list(topic_terms("Give the P/E of Initech.")) == ["pe", "initech"]
    assert topic_terms("Give a response using the balance sheet.") == {}


def test_a_query_made_only_of_an_instruction_is_its_own_topic() -> None:
    assert list(topic_terms("Calculate the dividend payout ratio of Initech.")) == [
        "dividend",
        "payout",
        "ratio",
        "initech",
    ]


# ---------------------------------------------------------------- matching words


@pytest.mark.parametrize(
    ("query", "answer"),
    [
        ("What is Initech's P/E?", "Initech trades at a price-to-earnings multiple of 14."),
        ("What is Initech's price-to-earnings ratio?", "Initech's P/E ratio is 14."),
        (
            "What was Initech's D&A in FY2022?",
            "Initech's depreciation and amortization was $3M in 2022.",
        ),
        ("What is Initech's return on assets?", "Initech's ROA was 4.2%."),
        ("What is Initech's return on assets (ROA)?", "Initech's return on assets was 4.2%."),
        ("How did Initech's FY22 revenues change?", "Initech's revenue changed by 5% in 2022."),
        ("What did Initech realise on the sale?", "Initech realized $2M on the sale."),
    ],
)
def test_abbreviations_fiscal_years_inflections_and_spellings_meet(query: str, answer: str) -> None:
    result = check_query(answer, query, [], DEFAULTS)

    assert result.score == 1.0, result.missing_terms


def test_a_goal_is_met_by_other_forms_of_its_words() -> None:
    """ "sales growth" is answered by "sales grew" (issue 20: it was "missing: growth")."""
    report = "Initech's sales grew 12% in 2024, to $5.1B, and it sold more in Europe."
    result = check_query(report, "How did Initech do in 2024?", ["sales growth"], DEFAULTS)
    assert [(goal.status, goal.missing_terms) for goal in result.goals] == [("PASS", [])]
    assert stem("grew") == stem("grown") == stem("growth") == stem("growing") == stem("grows")
    assert stem("sold") == stem("sales") == stem("selling")
    assert stem("rose") == stem("rising") == stem("rises")
    assert stem("lost") == stem("losses") == stem("losing")
    assert stem("higher") == stem("high") and stem("strength") == stem("strong")


def test_a_hyphenated_word_counts_by_its_parts() -> None:
    assert set(terms("capital-intensive year-over-year")) == {"capital", "intensiv", "year"}


# ---------------------------------------------------------------- RETRY and goals


def test_a_report_sharing_no_topic_term_is_a_retry_signal_but_a_summary_never_is() -> None:
    unrelated = check_query(REPORT, "Best mechanical keyboard under 100 euros?", [], DEFAULTS)
    summary = check_query(
        REPORT, "Summarize the key points of this earnings call transcript.", [], DEFAULTS
    )

    assert unrelated.unrelated
    assert not summary.unrelated and summary.addressed


def test_a_goal_that_restates_the_query_follows_the_query_check() -> None:
    query = "Summarize the key points of this earnings call transcript."
    answered = "What is the change in Other income in 2021 from 2020?"
    body = "Other income fell from $5M in 2020 to $4M in 2021, a change of -$1M."

    summary = check_query(REPORT, query, [query], DEFAULTS)
    answer = check_query(body, answered, [answered], DEFAULTS)
    unrelated = check_query(
        REPORT,
        "Best mechanical keyboard under 100 euros?",
        ["Best mechanical keyboard under 100 euros?"],
        DEFAULTS,
    )

    assert [(g.status, summary.goal_decision) for g in summary.goals] == [("PASS", "APPROVE")]
    assert summary.findings == answer.findings == []
    assert [g.status for g in answer.goals] == ["PASS"]
    assert [g.status for g in unrelated.goals] == ["FAIL"]
    assert unrelated.goal_decision == "RETRY"
    assert [f.kind for f in unrelated.findings] == ["query_not_addressed"]


def test_an_uncertain_query_makes_a_restated_goal_partial_not_failed() -> None:
    query = "Does Novo Nordisk pay dividends, and how safe is the payout?"

    result = check_query(REPORT, query, [query], DEFAULTS)

    assert [g.status for g in result.goals] == ["PARTIAL"]
    assert result.goal_decision == "APPROVE (partial)"
    assert [f.kind for f in result.findings] == ["query_uncertain"]


# ---------------------------------------------------------------- a query about the material


TRANSCRIPT = [
    EvidenceItem(
        source_ref="transcript",
        content=(
            "Good morning. Quarterly revenue grew to $4.1 billion, driven by strong demand "
            "for our cloud services. We are raising the dividend to $0.20 per share and "
            "expect margins to expand next year as data center costs decline."
        ),
    )
]


def test_a_summary_of_the_material_is_checked_against_the_material() -> None:
    own = "Revenue grew to $4.1 billion on cloud demand; the dividend rises to $0.20 per share."
    other = "Same-store sales of the restaurant chain fell as franchise traffic weakened."
    query = "Summarize the key points of this earnings call transcript."

    grounded = check_query(own, query, [query], DEFAULTS, evidence=TRANSCRIPT)
    elsewhere = check_query(other, query, [query], DEFAULTS, evidence=TRANSCRIPT)

    assert grounded.score >= GROUNDED and grounded.addressed and grounded.findings == []
    assert elsewhere.score < GROUNDED and not elsewhere.addressed
    assert [(f.kind, f.severity) for f in elsewhere.findings] == [("query_uncertain", "minor")]
    assert not elsewhere.unrelated  # unsure: never a RETRY signal
    assert [g.status for g in elsewhere.goals] == ["PARTIAL"]


def test_without_evidence_text_a_summary_cannot_be_grounded_and_passes() -> None:
    result = check_query("Revenue grew.", "Summarize this call.", [], DEFAULTS, evidence=[])

    assert (result.score, result.findings) == (1.0, [])


@pytest.mark.parametrize(
    "material",
    [
        "news article",
        "podcast transcript",
        "meeting transcript",
        "sales call transcript",
        "sales email",
        "conversation",
        "scientific paper",
    ],
)
def test_summarize_this_kind_of_material_has_no_topic_terms(material: str) -> None:
    assert topic_terms(f"Summarize the key points of this {material}.") == {}


def test_a_kind_word_alone_is_still_a_topic() -> None:
    assert list(topic_terms("What drove these sales?")) == ["driv", "sell"]
