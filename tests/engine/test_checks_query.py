"""Query addressed (seed §4.3) and multi-goal scoring (seed §8)."""

from __future__ import annotations

import pytest

from validation.engine.checks.query import (
    QUERY_PASS,
    check_query,
    goal_matrix,
    goal_status,
    score_terms,
    stem,
    terms,
)
from validation.engine.types import EngineSettings, GoalStatus

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
    result = check_query(REPORT, "Is Novo Nordisk a buy below $110? Show owner earnings.", [])

    assert result.addressed
    assert result.findings == []
    assert result.goals == []
    assert result.goal_decision is None


def test_coverage_below_one_half_fails_query_addressed() -> None:
    assert QUERY_PASS == 0.5
    result = check_query(REPORT, "Compare dividend yield, payout ratio and buyback history", [])

    assert not result.addressed
    assert result.score < 0.5
    (finding,) = result.findings
    assert (finding.check, finding.kind, finding.severity) == (
        "query_addressed",
        "query_not_addressed",
        "major",
    )
    assert '"dividend"' in finding.message


def test_exactly_one_half_passes() -> None:
    result = check_query("owner earnings", "owner earnings dividend yield", [])

    assert result.score == 0.5
    assert result.addressed


def test_a_report_sharing_no_term_with_the_query_is_unrelated() -> None:
    result = check_query(REPORT, "Best mechanical keyboard under 100 euros", [])

    assert result.score == 0.0
    assert result.unrelated


@pytest.mark.parametrize(
    ("score", "status"),
    [(1.0, "PASS"), (0.75, "PASS"), (0.7499, "PARTIAL"), (0.5, "PARTIAL"), (0.4999, "FAIL")],
)
def test_goal_bands_follow_seed_8_1(score: float, status: GoalStatus) -> None:
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
def test_the_aggregate_matrix_of_seed_8_2(statuses: list[GoalStatus], decision: str) -> None:
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
        '(score 0.00; missing: "dividend", "history", "buyback", "yield")'
    )
