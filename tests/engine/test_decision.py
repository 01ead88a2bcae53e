"""Confidence from findings, the five checks, and the decision table (docs/spec.md §5)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from validation.engine.decision import (
    RetrySignals,
    checks_from,
    confidence_from,
    decide,
    issues_from,
    revision_hints,
    suggested_fixes,
)
from validation.engine.types import (
    CHECK_NAMES,
    CheckName,
    Checks,
    EngineSettings,
    Finding,
    Severity,
)

DEFAULTS = EngineSettings()  # resolved once, as validate() does

SEVERITIES: tuple[Severity, ...] = ("critical", "major", "minor", "info")
ALL_PASS = Checks()
ONE_FAILS = Checks(coherent_format=False)


def _finding(
    check: CheckName = "coherent_format",
    severity: Severity = "minor",
    kind: str = "raw_url",
    message: str = "raw URL https://x.example.com should be a markdown link",
    text: str = "https://x.example.com",
) -> Finding:
    return Finding(
        check=check, kind=kind, severity=severity, message=message, start=0, end=0, text=text
    )


# ---------------------------------------------------------------- confidence


def test_no_findings_is_full_confidence() -> None:
    assert confidence_from([]) == 1.0


@pytest.mark.parametrize(
    ("severity", "confidence"),
    [("critical", 0.40), ("major", 0.80), ("minor", 0.95), ("info", 1.0)],
)
def test_one_finding_costs_its_severity_factor(severity: Severity, confidence: float) -> None:
    assert confidence_from([_finding(severity=severity)]) == confidence


def test_findings_in_one_check_have_diminishing_weight() -> None:
    two_in_one_check = confidence_from([_finding(severity="major")] * 2)
    two_in_two_checks = confidence_from(
        [_finding(severity="major"), _finding(check="no_hallucinations", severity="major")]
    )

    assert two_in_one_check == round(0.80 * 0.80**0.5, 4)
    assert two_in_two_checks == 0.64
    assert two_in_two_checks < two_in_one_check < 0.80


def test_majors_in_most_checks_land_in_retry_territory() -> None:
    three = [_finding(check=check, severity="major") for check in CHECK_NAMES[:3]]
    four = [_finding(check=check, severity="major") for check in CHECK_NAMES[:4]]

    assert confidence_from(three) == 0.512
    assert decide(confidence_from(three), checks_from(three, DEFAULTS), DEFAULTS) == "REVISE"
    assert confidence_from(four) == 0.4096
    assert decide(confidence_from(four), checks_from(four, DEFAULTS), DEFAULTS) == "RETRY"


findings_strategy = st.lists(
    st.tuples(st.sampled_from(CHECK_NAMES), st.sampled_from(SEVERITIES)), max_size=12
)


@given(findings_strategy, st.sampled_from(CHECK_NAMES), st.sampled_from(SEVERITIES))
def test_adding_a_finding_never_raises_confidence(
    existing: list[tuple[CheckName, Severity]], check: CheckName, severity: Severity
) -> None:
    before = [_finding(check=c, severity=s) for c, s in existing]
    after = [*before, _finding(check=check, severity=severity)]

    assert confidence_from(after) <= confidence_from(before)


@given(findings_strategy.filter(bool), st.data())
def test_raising_a_severity_never_raises_confidence(
    existing: list[tuple[CheckName, Severity]], data: st.DataObject
) -> None:
    index = data.draw(st.integers(0, len(existing) - 1))
    check, severity = existing[index]
    raised = data.draw(st.sampled_from(SEVERITIES[: SEVERITIES.index(severity) + 1]))
    before = [_finding(check=c, severity=s) for c, s in existing]
    after = list(before)
    after[index] = _finding(check=check, severity=raised)

    assert confidence_from(after) <= confidence_from(before)


def test_confidence_never_goes_below_zero() -> None:
    assert confidence_from([_finding(severity="critical")] * 200) >= 0.0


# ---------------------------------------------------------------- checks


def test_a_check_fails_only_on_findings_at_or_above_the_failing_severity() -> None:
    assert EngineSettings().failing_severity == "major"
    checks = checks_from(
        [
            _finding(check="coherent_format", severity="minor"),
            _finding(check="query_addressed", severity="info", kind="goal_partial"),
            _finding(check="no_hallucinations", severity="major", kind="unknown_url"),
            _finding(check="claims_supported", severity="critical", kind="no_evidence"),
        ],
        DEFAULTS,
    )

    assert checks == Checks(no_hallucinations=False, claims_supported=False)


@pytest.mark.parametrize(
    ("failing_severity", "failing"),
    [
        ("critical", {"claims_supported"}),
        ("major", {"claims_supported", "no_hallucinations"}),
        ("minor", {"claims_supported", "no_hallucinations", "coherent_format"}),
    ],
)
def test_the_failing_severity_comes_from_the_settings(
    failing_severity: Severity, failing: set[str]
) -> None:
    findings = [
        _finding(check="claims_supported", severity="critical", kind="no_evidence"),
        _finding(check="no_hallucinations", severity="major", kind="unknown_url"),
        _finding(check="coherent_format", severity="minor"),
        _finding(check="query_addressed", severity="info", kind="goal_partial"),
    ]

    checks = checks_from(findings, EngineSettings(failing_severity=failing_severity))

    assert {name for name in CHECK_NAMES if not getattr(checks, name)} == failing


def test_info_never_fails_a_check_and_the_setting_refuses_it() -> None:
    with pytest.raises(ValueError, match="failing_severity"):
        EngineSettings(failing_severity="info")


def test_minor_findings_alone_approve_but_cost_confidence() -> None:
    findings = [
        _finding(check="coherent_format", severity="minor"),
        _finding(check="source_metadata_present", severity="minor", kind="missing_source"),
        _finding(check="query_addressed", severity="minor", kind="query_uncertain"),
    ]

    confidence = confidence_from(findings)
    checks = checks_from(findings, DEFAULTS)

    assert confidence == round(0.95**3, 4) < 1.0
    assert checks.all_pass()
    assert decide(confidence, checks, EngineSettings()) == "APPROVE"
    assert decide(
        confidence, checks_from(findings, EngineSettings(failing_severity="minor")), DEFAULTS
    ) == ("REVISE")


@given(
    st.lists(
        st.tuples(st.sampled_from(CHECK_NAMES), st.sampled_from(SEVERITIES)),
        max_size=12,
    ),
    st.sampled_from(CHECK_NAMES),
    st.sampled_from(SEVERITIES),
    st.sampled_from(("critical", "major", "minor")),
)
def test_adding_a_finding_never_makes_a_failing_check_pass_or_the_decision_laxer(
    existing: list[tuple[CheckName, Severity]],
    check: CheckName,
    severity: Severity,
    failing_severity: Severity,
) -> None:
    settings = EngineSettings(failing_severity=failing_severity)
    before = [_finding(check=c, severity=s) for c, s in existing]
    after = [*before, _finding(check=check, severity=severity)]
    strictness = {"APPROVE": 0, "REVISE": 1, "RETRY": 2, "FAIL": 3}

    checks_before, checks_after = checks_from(before, settings), checks_from(after, settings)
    decision_before = decide(confidence_from(before), checks_before, settings)
    decision_after = decide(confidence_from(after), checks_after, settings)

    assert all(getattr(checks_before, n) >= getattr(checks_after, n) for n in CHECK_NAMES)
    assert strictness[decision_after] >= strictness[decision_before]


def test_an_orphan_number_fails_claims_supported_as_well() -> None:
    checks = checks_from(
        [_finding(check="no_hallucinations", severity="major", kind="orphan")], DEFAULTS
    )

    assert not checks.no_hallucinations
    assert not checks.claims_supported
    assert checks.query_addressed and checks.coherent_format and checks.source_metadata_present


# ---------------------------------------------------------------- decision table


@pytest.mark.parametrize(
    ("confidence", "checks", "decision"),
    [
        (1.0, ALL_PASS, "APPROVE"),
        (0.80, ALL_PASS, "APPROVE"),
        (0.7999, ALL_PASS, "REVISE"),
        (0.80, ONE_FAILS, "REVISE"),
        (1.0, ONE_FAILS, "REVISE"),
        (0.50, ALL_PASS, "REVISE"),
        (0.4999, ALL_PASS, "RETRY"),
        (0.30, ONE_FAILS, "RETRY"),
        (0.2999, ALL_PASS, "FAIL"),
        (0.0, ALL_PASS, "FAIL"),
    ],
)
def test_the_spec_5_thresholds_at_their_exact_edges(
    confidence: float, checks: Checks, decision: str
) -> None:
    assert decide(confidence, checks, EngineSettings()) == decision


def test_thresholds_come_from_the_settings() -> None:
    lenient = EngineSettings(approve_threshold=0.6, revise_threshold=0.4, retry_threshold=0.2)

    assert decide(0.6, ALL_PASS, lenient) == "APPROVE"
    assert decide(0.45, ALL_PASS, lenient) == "REVISE"
    assert decide(0.2, ALL_PASS, lenient) == "RETRY"
    assert decide(0.19, ALL_PASS, lenient) == "FAIL"


@pytest.mark.parametrize(
    ("goal_decision", "decision"),
    [
        (None, "APPROVE"),
        ("APPROVE", "APPROVE"),
        ("APPROVE (partial)", "APPROVE"),
        ("REVISE", "REVISE"),
        ("RETRY", "RETRY"),
    ],
)
def test_the_goal_matrix_can_only_make_the_decision_stricter(
    goal_decision: str | None, decision: str
) -> None:
    assert decide(0.95, ALL_PASS, EngineSettings(), goal_decision) == decision
    assert decide(0.1, ALL_PASS, EngineSettings(), goal_decision) == "FAIL"


def test_an_unknown_goal_decision_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown goal decision"):
        decide(0.9, ALL_PASS, EngineSettings(), "MAYBE")


def test_a_retry_signal_means_retry_whatever_the_confidence() -> None:
    for confidence in (1.0, 0.6, 0.35, 0.1):
        assert decide(confidence, ONE_FAILS, EngineSettings(), retry_signal=True) == "RETRY"


def test_retry_signals_are_truthy_only_when_present() -> None:
    assert not RetrySignals()
    assert RetrySignals(claims_without_evidence=3)
    assert RetrySignals(unrelated_query_terms=("keyboard",))


# ---------------------------------------------------------------- issues and guidance


def test_issues_are_one_sentence_per_finding_most_severe_first() -> None:
    findings = [
        _finding(severity="minor", message="raw URL x should be a link"),
        _finding(check="no_hallucinations", severity="major", message="URL y is\nunknown"),
        _finding(check="query_addressed", severity="info", message="goal g is only partly met"),
    ]

    assert issues_from(findings) == [
        "URL y is unknown",
        "Raw URL x should be a link",
        "Goal g is only partly met",
    ]


def test_revision_hints_are_concrete_and_built_from_the_findings() -> None:
    findings = [
        _finding(
            check="source_metadata_present",
            kind="missing_source",
            message="sentence with numeric claim has no source reference",
            text="Price $104.20.",
        ),
        _finding(
            check="source_metadata_present",
            kind="unknown_ref",
            severity="major",
            message='"tool-7" is not a source_ref',
            text="[tool-7]",
        ),
        _finding(),
        _finding(kind="truncated", severity="major", message="ends mid-sentence", text="and"),
    ]

    hints = revision_hints(findings, fix_count=2)

    assert hints == (
        'Cite only evidence that exists: "[tool-7]" matches no source_ref. '
        "Add a source reference ([source_ref] or a link to the evidence URL) to 1 sentence "
        'with numeric claims, e.g. "Price $104.20.". '
        "Turn 1 raw URL into markdown links ([text](url)). "
        "Finish the report: it stops mid-sentence. "
        "2 proposed fixes with proof are ready to review."
    )


def test_suggested_fixes_name_the_missing_evidence_or_approach() -> None:
    signals = RetrySignals(claims_without_evidence=4, unrelated_query_terms=("keyboard",))

    text = suggested_fixes([], signals, failed_goals=["dividend history"])

    assert text == (
        "Gather evidence before synthesis: the report makes 4 numeric claims but no evidence "
        "was supplied. Re-plan for the query in §0: the report shares none of its terms "
        '("keyboard"). Re-plan the research for the failed goals: "dividend history".'
    )


def test_suggested_fixes_fall_back_to_the_main_problems() -> None:
    text = suggested_fixes(
        [_finding(severity="critical", message="the report is empty")], RetrySignals()
    )

    assert text == "Re-plan the approach; the main problems: The report is empty"


def test_every_severity_order_gives_the_same_confidence() -> None:
    findings = [_finding(severity=s) for s in ("minor", "major", "critical")]
    values = {confidence_from(list(order)) for order in itertools.permutations(findings)}

    assert len(values) == 1


@pytest.mark.parametrize(
    ("count", "expected"),
    [
        (1, "Correct 1 number that differs from the evidence"),
        (2, "Correct 2 numbers that differ from the evidence"),
    ],
)
def test_revision_hints_agree_in_number(count: int, expected: str) -> None:
    findings = [
        _finding(check="claims_supported", kind="close_but_wrong", severity="major", text="22.0%")
    ] * count

    assert revision_hints(findings).startswith(expected)


def test_one_wrong_calculation_does_not_add_up() -> None:
    findings = [_finding(check="claims_supported", kind="arithmetic", severity="major")]

    assert revision_hints(findings).startswith("Recompute 1 calculation that does not add up")
