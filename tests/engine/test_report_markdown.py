"""The attempt record laid out as a context.md section 7 (docs/spec.md §9)."""

from __future__ import annotations

from validation.engine.report import (
    format_confidence,
    render_attempt_markdown,
    render_details_markdown,
)
from validation.engine.types import Checks, Finding, FixProposal, GoalScore, Verdict


def test_an_approve_attempt_matches_spec_9_1() -> None:
    verdict = Verdict(decision="APPROVE", confidence=0.92)

    assert render_attempt_markdown(verdict) == (
        "## 7. Validation\n"
        "\n"
        "**Decision:** APPROVE\n"
        "**Confidence:** 0.92\n"
        "\n"
        "### Checks\n"
        "| Check | Result |\n"
        "|-------|--------|\n"
        "| Claims Supported | PASS |\n"
        "| No Hallucinations | PASS |\n"
        "| Query Addressed | PASS |\n"
        "| Coherent Format | PASS |\n"
        "| Source Metadata Present | PASS |\n"
        "\n"
        "### Issues\n"
        "None\n"
        "\n"
        "### Notes\n"
        "All five checks pass.\n"
    )


def test_a_revise_attempt_has_hints_as_in_spec_9_1() -> None:
    verdict = Verdict(
        decision="REVISE",
        confidence=0.65,
        checks=Checks(claims_supported=False, source_metadata_present=False),
        issues=[
            'The price "$104.20" cites no evidence',
            '"Free delivery" appears in no evidence item',
        ],
        revision_hints="Cite the quote for the price; drop the delivery claim.",
    )

    assert render_attempt_markdown(verdict, attempt_number=1) == (
        "## 7. Validation (Attempt 1)\n"
        "\n"
        "**Decision:** REVISE\n"
        "**Confidence:** 0.65\n"
        "\n"
        "### Checks\n"
        "| Check | Result |\n"
        "|-------|--------|\n"
        "| Claims Supported | FAIL |\n"
        "| No Hallucinations | PASS |\n"
        "| Query Addressed | PASS |\n"
        "| Coherent Format | PASS |\n"
        "| Source Metadata Present | FAIL |\n"
        "\n"
        "### Issues\n"
        '1. The price "$104.20" cites no evidence\n'
        '2. "Free delivery" appears in no evidence item\n'
        "\n"
        "### Revision Hints\n"
        "Cite the quote for the price; drop the delivery claim.\n"
    )


def test_a_retry_attempt_has_suggested_fixes_as_in_spec_9_1() -> None:
    verdict = Verdict(
        decision="RETRY",
        confidence=0.32,
        checks=Checks(claims_supported=False, no_hallucinations=False, query_addressed=False),
        issues=["Query asked for keyboards"],
        suggested_fixes="Search for keyboards, not mice, and gather their prices.",
    )

    text = render_attempt_markdown(verdict, attempt_number=2)

    assert text.startswith("## 7. Validation (Attempt 2)\n\n**Decision:** RETRY\n")
    assert "**Confidence:** 0.32\n" in text
    assert "### Revision Hints" not in text
    assert "### Notes" not in text
    assert text.endswith(
        "### Issues\n1. Query asked for keyboards\n\n"
        "### Suggested Fixes\nSearch for keyboards, not mice, and gather their prices.\n"
    )


def test_confidence_has_two_decimals_rounded_down() -> None:
    assert format_confidence(1.0) == "1.00"
    assert format_confidence(0.5) == "0.50"
    assert format_confidence(0.29) == "0.29"
    assert format_confidence(0.7999) == "0.79"  # never shows 0.80 for a REVISE
    assert format_confidence(0.4219) == "0.42"


def test_goals_are_shown_with_the_aggregate() -> None:
    verdict = Verdict(
        decision="APPROVE",
        confidence=0.9,
        goals=[
            GoalScore(goal="Owner earnings | OCF", score=1.0, status="PASS"),
            GoalScore(goal="Dividend yield", score=0.5, status="PARTIAL"),
        ],
        goal_decision="APPROVE (partial)",
    )

    text = render_attempt_markdown(verdict)

    assert (
        "### Goals\n| Goal | Score | Status |\n|------|-------|--------|\n"
        "| Owner earnings \\| OCF | 1.00 | PASS |\n| Dividend yield | 0.50 | PARTIAL |\n\n"
        "**Goal decision:** APPROVE (partial)\n"
    ) in text
    assert text.endswith(
        "### Notes\nAll five checks pass. "
        'Partial completion: "Dividend yield" is only partly met.\n'
    )


def test_details_list_findings_and_fixes() -> None:
    verdict = Verdict(
        decision="REVISE",
        confidence=0.93,
        findings=[
            Finding(
                check="coherent_format",
                kind="raw_url",
                severity="minor",
                message="raw URL https://a.example.com should be a markdown link",
                start=4,
                end=25,
            ),
            Finding(
                check="query_addressed",
                kind="goal_partial",
                severity="info",
                message="goal partly met",
                start=0,
                end=0,
            ),
        ],
        fixes=[
            FixProposal(
                find="https://a.example.com",
                replace="[a.example.com](https://a.example.com)",
                verified_with="format: raw URL wrapped as a markdown link",
                confidence=0.97,
                kind="raw_url",
                offset=4,
                finding_index=0,
            )
        ],
    )

    assert render_details_markdown(verdict) == (
        "### Findings\n"
        "1. **minor** `coherent_format` / `raw_url` (chars 4-25): "
        "raw URL https://a.example.com should be a markdown link\n"
        "2. **info** `query_addressed` / `goal_partial` (report): goal partly met\n"
        "\n"
        "### Proposed Fixes\n"
        "1. `raw_url`, confidence 0.97 (finding 1)\n"
        "   - FIND: `https://a.example.com`\n"
        "   - REPLACE: `[a.example.com](https://a.example.com)`\n"
        "   - VERIFIED_WITH: format: raw URL wrapped as a markdown link\n"
    )


def test_details_of_a_clean_verdict_say_none() -> None:
    assert render_details_markdown(Verdict(decision="APPROVE", confidence=1.0)) == (
        "### Findings\nNone\n\n### Proposed Fixes\nNone\n"
    )
