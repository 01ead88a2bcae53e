"""How ``redline submit`` writes a result: JSON for programs, Markdown for people."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

from redline_client.results import SubmitResult, Verdict

STATUS_WORDS = {
    "validating": "validating",
    "in_review": "in review",
    "approved": "approved",
    "rejected": "rejected",
    "failed": "failed",
}


def result_json(result: SubmitResult, server: str) -> str:
    data: dict[str, Any] = {
        "analysis": asdict(result.analysis),
        "review_url": review_url(result, server),
        "created": result.created,
        "outcome": result.outcome,
        "verdict": asdict(result.verdict) if result.verdict else None,
    }
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def approved_json(result: SubmitResult) -> str:
    assert result.approved is not None
    return json.dumps(result.approved.export, indent=2, ensure_ascii=False) + "\n"


def review_url(result: SubmitResult, server: str) -> str:
    return f"{server}/analyses/{result.analysis.id}/"


def result_markdown(result: SubmitResult, server: str) -> str:
    analysis = result.analysis
    status = STATUS_WORDS.get(analysis.status, analysis.status)
    lines = [
        f"# {analysis.title or f'Analysis {analysis.id}'}",
        "",
        f"Analysis {analysis.id} is **{status}** ({review_url(result, server)}).",
    ]
    if analysis.decision or analysis.conviction:
        lines.append(
            f"Report's decision: {analysis.decision or '-'}, conviction: "
            f"{analysis.conviction or '-'}."
        )
    verdict = result.verdict
    if verdict is None:
        lines += ["", "No validation attempt has finished."]
        return "\n".join(lines) + "\n"
    lines += ["", *_verdict_lines(verdict)]
    return "\n".join(lines) + "\n"


def _verdict_lines(verdict: Verdict) -> list[str]:
    confidence = "-" if verdict.confidence is None else f"{verdict.confidence:.2f}"
    lines = [
        f"## Verdict: {verdict.decision or verdict.status.upper()}",
        "",
        f"Confidence {confidence} (attempt {verdict.attempt}, revision {verdict.revision}).",
    ]
    if verdict.error:
        lines += ["", f"Error: {verdict.error}"]
    if verdict.checks:
        lines += ["", "| check | result |", "| --- | --- |"]
        lines += [
            f"| {name} | {'pass' if passed else 'FAIL'} |"
            for name, passed in verdict.checks.items()
        ]
    if verdict.issues:
        lines += ["", "### Issues", ""]
        lines += [f"- {issue}" for issue in verdict.issues]
    lines += ["", f"### Findings ({len(verdict.findings)})", ""]
    lines += [
        f"- **{finding.severity}** {finding.check}/{finding.kind}: {finding.message}"
        + (f" (`{_inline(finding.text)}`)" if finding.text else "")
        for finding in verdict.findings
    ] or ["None."]
    lines += ["", f"### Fixes ({len(verdict.fixes)})", ""]
    for fix in verdict.fixes:
        confidence = "-" if fix.confidence is None else f"{fix.confidence:.2f}"
        lines.append(
            f"- `{_inline(fix.find)}` → `{_inline(fix.replace)}` "
            f"({fix.status}, confidence {confidence})"
        )
        if fix.verified_with:
            lines.append(f"  VERIFIED_WITH: {_inline(fix.verified_with)}")
    if not verdict.fixes:
        lines.append("None.")
    return lines


def _inline(text: str) -> str:
    """One line, no backtick to break the code span."""
    return " ".join(text.replace("`", "'").split())[:500]
