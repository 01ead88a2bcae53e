"""Merging the judge's answer into the deterministic verdict.

Rules (issue 9):

* The engine's findings are never erased. The LLM *adds* findings: its unsupported prose
  claims, anchored to the quoted span (``llm_unsupported_claim``), and one
  ``llm_judgement`` finding for a check it fails without a claim of its own to show.
* ``query_addressed`` and the goal scores (§8) are the LLM's to decide. When it finds the
  query addressed, the engine's term-coverage findings of that check are kept but
  overruled: severity ``info`` and a note in the message (they no longer fail the check).
* Numbers stay with the engine: a "claim" that is only a number is refused.
* The decision is recomputed from the merged findings (same confidence formula, same
  table), then made at least as strict as the LLM's own decision, and never less strict
  than what the engine's findings outside ``query_addressed`` allow. So the LLM can lower a
  decision, and can raise it only by overruling the query check. It lowers it to REVISE or
  RETRY on its judgement, but to FAIL (which ends the analysis) only with an unsupported
  claim it quoted from the report: without one, its FAIL stops at RETRY (an engine FAIL
  stays FAIL).
* :class:`validation.engine.types.LLMChanges` records what changed.
"""

from __future__ import annotations

import re

from validation.engine.checks.query import goal_matrix, goal_status
from validation.engine.decision import (
    check_reasons,
    checks_from,
    confidence_from,
    decide,
    fails_check,
    issues_from,
    revision_hints,
    stricter,
)
from validation.engine.llm.answer import JudgeAnswer, JudgeClaim, locate
from validation.engine.llm.view import ReportPart
from validation.engine.types import (
    CHECK_NAMES,
    Bundle,
    EngineSettings,
    Finding,
    GoalScore,
    LLMChanges,
    LLMChecksFlip,
    Verdict,
)

OVERRULED = "overruled by the LLM judge: "
_NUMBER = re.compile(r"[-+(]?[$€£¥]?\d[\d,]*(?:\.\d+)?%?\)?")
_WORDS = re.compile(r"[A-Za-z]{3,}")
_NUMBER_WORDS = frozenset(
    {"thousand", "million", "billion", "trillion", "percent", "per", "cent", "usd", "eur"}
)


def merge_judgement(
    bundle: Bundle,
    verdict: Verdict,
    answer: JudgeAnswer,
    parts: list[ReportPart],
    settings: EngineSettings,
) -> tuple[Verdict, LLMChanges]:
    body = bundle.body
    changes = LLMChanges(decision_before=verdict.decision, confidence_before=verdict.confidence)
    findings = [finding.model_copy() for finding in verdict.findings]
    engine_count = len(findings)

    # query_addressed: the LLM decides.
    if answer.checks.query_addressed:
        for index, finding in enumerate(findings):
            if finding.check == "query_addressed" and finding.severity != "info":
                finding.severity = "info"
                finding.message = OVERRULED + finding.message
                changes.findings_overruled.append(index)
    elif verdict.checks.query_addressed:
        findings.append(
            Finding(
                check="query_addressed",
                kind="llm_judgement",
                severity="major",
                message="the LLM judge finds that the report does not answer the query"
                + _first_issue(answer),
                start=0,
                end=0,
            )
        )

    # Prose claims, anchored to their quotes.
    for claim in answer.unsupported_claims:
        refused = _refusal(claim)
        span = None
        if refused is None:
            span = locate(body, claim.quote, _part_of(parts, claim, body))
            if span is None:
                refused = "its quote is not in the report"
        if refused is not None or span is None:
            changes.claims_refused.append(f"{claim.quote[:120]!r}: {refused}")
            continue
        start, end = span
        duplicate = any(
            f.start == start and f.end == end and f.check == claim.check for f in findings
        )
        if duplicate:
            continue
        findings.append(
            Finding(
                check=claim.check,
                kind="llm_unsupported_claim",
                severity=claim.severity,
                message=claim.problem,
                start=start,
                end=end,
                text=body[start:end],
            )
        )

    # A check the LLM fails without a finding of its own to show.
    for name in CHECK_NAMES:
        if name == "query_addressed" or getattr(answer.checks, name):
            continue
        if any(f.check == name and f.kind.startswith("llm_") for f in findings[engine_count:]):
            continue
        if any(f.check == name and fails_check(f, settings) for f in findings):
            continue  # already failing on the engine's findings
        findings.append(
            Finding(
                check=name,
                kind="llm_judgement",
                severity="major",
                message=f"the LLM judge fails {name}" + _first_issue(answer),
                start=0,
                end=0,
            )
        )
    changes.findings_added = list(range(engine_count, len(findings)))

    # Goals (§8): the LLM's scores.
    goals = verdict.goals
    goal_decision = verdict.goal_decision
    if bundle.goals and len(answer.goals) == len(bundle.goals):
        goals = [
            GoalScore(goal=goal, score=scored.score, status=goal_status(scored.score, settings))
            for goal, scored in zip(bundle.goals, answer.goals, strict=True)
        ]
        goal_decision = goal_matrix([goal.status for goal in goals])

    retry_signal = any(f.kind == "no_evidence" for f in findings)
    confidence = confidence_from(findings)
    checks = checks_from(findings, settings)
    decision = decide(confidence, checks, settings, goal_decision, retry_signal=retry_signal)
    decision = stricter(decision, answer.decision)
    engine_part = [f for f in verdict.findings if f.check != "query_addressed"]
    floor = decide(
        confidence_from(engine_part),
        checks_from(engine_part, settings),
        settings,
        None,
        retry_signal=retry_signal,
    )
    decision = stricter(decision, floor)
    quoted_claim = any(f.kind == "llm_unsupported_claim" for f in findings[engine_count:])
    if decision == "FAIL" and floor != "FAIL" and not quoted_claim:
        decision = "RETRY"

    for name in CHECK_NAMES:
        before, after = getattr(verdict.checks, name), getattr(checks, name)
        if before != after:
            changes.checks_flipped.append(LLMChecksFlip(check=name, engine=before, merged=after))
    changes.decision_after = decision
    changes.confidence_after = confidence

    issues = issues_from(findings)
    issues.extend(f"LLM judge: {issue}" for issue in answer.issues if issue.strip())
    hints = ""
    if decision == "REVISE":
        hints = " ".join(
            part
            for part in (revision_hints(findings, len(verdict.fixes)), answer.revision_hints)
            if part
        )
    suggestions = ""
    if decision in ("RETRY", "FAIL"):
        suggestions = " ".join(
            part for part in (verdict.suggested_fixes, answer.suggested_fixes) if part
        ) or "Re-plan the approach: " + "; ".join(issues[:3])
    merged = verdict.model_copy(
        update={
            "decision": decision,
            "confidence": confidence,
            "issues": issues,
            "checks": checks,
            # The engine's words where it failed the check (they count its uncapped
            # findings), the merged findings' for a check the judge failed.
            "check_reasons": {
                **check_reasons(findings, checks, settings),
                **{
                    name: why
                    for name, why in verdict.check_reasons.items()
                    if not getattr(checks, name)
                },
            },
            "findings": findings,
            "goals": goals,
            "goal_decision": goal_decision,
            "revision_hints": hints,
            "suggested_fixes": suggestions,
        }
    )
    return merged, changes


def _first_issue(answer: JudgeAnswer) -> str:
    for issue in answer.issues:
        if issue.strip():
            return ": " + " ".join(issue.split())[:200]
    return ""


def _refusal(claim: JudgeClaim) -> str | None:
    words = [w for w in _WORDS.findall(_NUMBER.sub(" ", claim.quote)) if w.lower()]
    words = [w for w in words if w.lower() not in _NUMBER_WORDS]
    if _NUMBER.search(claim.quote) and len(words) < 2:
        return "numbers are the engine's to judge"
    return None


def _part_of(parts: list[ReportPart], claim: JudgeClaim, body: str) -> tuple[int, int] | None:
    if len(parts) <= 1:
        return None
    for part in parts:  # the part whose text holds the quote, searched first
        if claim.quote.strip() in part.text:
            return part.start, part.start + len(part.text)
    return None
