"""Every failed check says why (issue 28): its own findings, another check's findings that
fail it too (a number found in no evidence is an unsupported claim), or that none did."""

from __future__ import annotations

from validation.engine.decision import check_reasons, checks_from
from validation.engine.report import render_attempt_markdown
from validation.engine.types import Checks, EngineSettings, Finding, Verdict


def _finding(check: str, kind: str, message: str, text: str = "") -> Finding:
    return Finding(
        check=check, kind=kind, severity="major", message=message, start=0, end=0, text=text
    )


def test_a_check_failed_by_another_checks_orphans_names_them() -> None:
    findings = [_finding("no_hallucinations", "orphan", "$482.3 million is in no evidence.")]
    settings = EngineSettings()
    checks = checks_from(findings, settings)

    reasons = check_reasons(findings, checks, settings)

    assert set(reasons) == {"claims_supported", "no_hallucinations"}
    assert reasons["no_hallucinations"].startswith("1 finding, e.g. $482.3 million is in no")
    assert (
        "found in no evidence (orphan, listed under no hallucinations)"
        in reasons["claims_supported"]
    )


def test_a_check_failed_with_no_finding_says_so() -> None:
    reasons = check_reasons([], Checks(query_addressed=False), EngineSettings())
    assert reasons == {"query_addressed": "no finding recorded this failure"}


def test_the_record_says_why_each_check_failed() -> None:
    verdict = Verdict(
        decision="FAIL",
        confidence=0.2,
        checks=Checks(claims_supported=False),
        check_reasons={"claims_supported": "2 numbers found in no evidence"},
    )
    text = render_attempt_markdown(verdict)
    assert "Why checks failed:\n- Claims Supported: 2 numbers found in no evidence" in text


def test_no_hint_ends_a_quoted_message_with_two_periods() -> None:
    from validation.engine.decision import revision_hints

    findings = [
        _finding("claims_supported", "close_but_wrong", "$482.3 million differs from $472.3."),
        _finding("claims_supported", "arithmetic", "15.5 - 0.7 is 14.8, not 15.8."),
    ]

    hints = revision_hints(findings)

    assert hints and ".." not in hints
