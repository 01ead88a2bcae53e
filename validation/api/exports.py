"""What the REST API and the export command show of an analysis: plain JSON-ready dicts.

Reads only. ``analysis_detail`` is the status view (attempts, findings, fixes and their
review); ``analysis_export`` is an approved report as it leaves Redline, and
``export_markdown`` its Markdown form: the report plus a validation appendix in the
style of the context.md section 7 record (docs/spec.md §9).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.db.models import Exists, OuterRef, Prefetch, QuerySet, Subquery

from analyses.models import Analysis, Evidence, Revision
from validation.engine.readable import readable_text
from validation.engine.report import format_confidence
from validation.engine.visible import markdown_code, markdown_for_readers, markdown_text
from validation.models import Attempt, AuditEvent, Fix, ToolCall


def _when(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def _who(user: User | None) -> str | None:
    return user.get_username() if user else None


def analysis_summary(analysis: Analysis) -> dict[str, Any]:
    return {
        "id": analysis.pk,
        "url": f"/api/v1/analyses/{analysis.pk}",
        "external_id": analysis.external_id,
        "pipeline": analysis.pipeline.slug,
        "title": analysis.title,
        "status": analysis.status,
        "needs_new_input": analysis.needs_new_input,
        "decision": analysis.decision,
        "conviction": analysis.conviction,
        "revise_loops": analysis.revise_loops,
        "retry_loops": analysis.retry_loops,
        "created_at": _when(analysis.created_at),
        "updated_at": _when(analysis.updated_at),
    }


def _tool_call(call: ToolCall) -> dict[str, Any]:
    return {
        "tool": call.tool,
        "input": call.input,
        "output": call.output,
        "error": call.error,
        "duration_ms": call.duration_ms,
    }


def _fix(fix: Fix) -> dict[str, Any]:
    return {
        "id": fix.pk,
        "kind": fix.kind,
        "origin": fix.origin,
        "status": fix.status,
        "find": fix.find,
        "replace": fix.replace,
        "proposed_replace": fix.proposed_replace,
        "verified_with": fix.verified_with,
        "confidence": fix.confidence,
        "evidence": fix.evidence,
        "tool_calls": [_tool_call(call) for call in fix.tool_calls.all()],
        "reviewer": _who(fix.reviewer),
        "reviewed_at": _when(fix.reviewed_at),
        "reason": fix.reason,
        "revision": fix.revision.number,
        "applied_in": fix.applied_in.number if fix.applied_in else None,
    }


def _attempt(attempt: Attempt) -> dict[str, Any]:
    return {
        "number": attempt.number,
        "revision": attempt.revision.number,
        "loop_kind": attempt.loop_kind,
        "status": attempt.status,
        "decision": attempt.decision or None,
        "confidence": attempt.confidence,
        "checks": attempt.checks,
        "check_reasons": attempt.check_reasons,
        "issues": attempt.issues,
        "revision_hints": attempt.revision_hints,
        "suggested_fixes": attempt.suggested_fixes,
        "error": attempt.error,
        "queued_at": _when(attempt.queued_at),
        "finished_at": _when(attempt.finished_at),
        "findings": [
            {
                "check": finding.check_name,
                "kind": finding.kind,
                "severity": finding.severity,
                "message": finding.message,
                "start": finding.start,
                "end": finding.end,
                "text": finding.text,
                "evidence": finding.evidence,
            }
            for finding in attempt.findings.all()
        ],
        "fixes": [_fix(fix) for fix in attempt.fixes.all()],
    }


def _fixes_queryset() -> QuerySet[Fix]:
    return Fix.objects.select_related("reviewer", "revision", "applied_in").prefetch_related(
        Prefetch("tool_calls", queryset=ToolCall.objects.order_by("id"))
    )


def _current_revision(analysis: Analysis) -> Revision:
    return Revision.objects.filter(analysis=analysis).order_by("-number").first()  # type: ignore[return-value]


def analysis_detail(analysis: Analysis) -> dict[str, Any]:
    """Status, current revision, every attempt with its verdict, findings and fixes."""
    revision = _current_revision(analysis)
    attempts = (
        Attempt.objects.filter(analysis=analysis)
        .select_related("revision")
        .prefetch_related("findings", Prefetch("fixes", queryset=_fixes_queryset()))
        .order_by("number")
    )
    return {
        **analysis_summary(analysis),
        "query": analysis.query,
        "goals": analysis.goals,
        "fields": analysis.bundle_fields(),
        "current_revision": {
            "number": revision.number,
            "reason": revision.reason,
            "body": revision.body,
            "created_at": _when(revision.created_at),
        },
        "attempts": [_attempt(attempt) for attempt in attempts],
    }


def _sign_off(analysis: Analysis) -> AuditEvent | None:
    return (
        AuditEvent.objects.filter(analysis=analysis, action=AuditEvent.Action.APPROVED)
        .select_related("actor")
        .order_by("-id")
        .first()
    )


def analysis_export(analysis: Analysis) -> dict[str, Any]:
    """An approved report as it leaves Redline: final body, fields, applied fixes with who
    accepted them and their proof, the validation summary and the sign-off."""
    revision = _current_revision(analysis)
    latest = (
        Attempt.objects.filter(analysis=analysis, status=Attempt.Status.DONE)
        .order_by("-number")
        .first()
    )
    applied = _fixes_queryset().filter(revision__analysis=analysis, status=Fix.Status.APPLIED)
    sign_off = _sign_off(analysis)
    return {
        **analysis_summary(analysis),
        "query": analysis.query,
        "goals": analysis.goals,
        "fields": analysis.bundle_fields(),
        "revision": revision.number,
        "body": revision.body,
        "evidence": [
            {"source_ref": item.source_ref, "kind": item.kind, "url": item.url}
            for item in Evidence.objects.filter(analysis=analysis).order_by("id")
        ],
        "applied_fixes": [_fix(fix) for fix in applied.order_by("applied_in__number", "offset")],
        "validation": None
        if latest is None
        else {
            "attempt": latest.number,
            "attempts": Attempt.objects.filter(analysis=analysis).count(),
            "decision": latest.decision,
            "confidence": latest.confidence,
            "checks": latest.checks,
            "check_reasons": latest.check_reasons,
            "issues": latest.issues,
            "markdown": latest.markdown,
        },
        "sign_off": None
        if sign_off is None
        else {
            "by": _who(sign_off.actor) or "validator",
            "at": _when(sign_off.created_at),
            "comment": sign_off.comment,
        },
    }


def _reason(ok: bool, reason: object) -> str:
    """Why a check failed, for its table cell: inert text, numbers for people."""
    if ok or not reason:
        return ""
    return ": " + markdown_text(readable_text(str(reason)))


def export_markdown(export: dict[str, Any]) -> str:
    """The report, then a §7-style validation appendix.

    The body is written as the review page showed it (engine.visible: raw HTML as text,
    invisible characters marked). Every value of the appendix is inert Markdown: a
    comment with line breaks cannot start a line of its own ("**Decision:** …"), and a
    backtick in a fix cannot close its code span."""
    text, code = markdown_text, markdown_code
    lines = [markdown_for_readers(export["body"]).rstrip(), "", "---", "", "## Validation appendix"]
    lines.append("")
    validation = export["validation"]
    if validation:
        confidence = validation["confidence"]
        lines += [
            f"- **Decision:** {text(validation['decision'])}",
            f"- **Confidence:** {format_confidence(confidence)}" if confidence is not None else "",
            f"- **Attempts:** {validation['attempts']}",
            f"- **Loops:** REVISE {export['revise_loops']}, RETRY {export['retry_loops']}",
        ]
        checks = validation["checks"] or {}
        if checks:
            reasons = validation.get("check_reasons") or {}
            lines += ["", "| check | result |", "| --- | --- |"]
            lines += [
                f"| {text(name)} | {'pass' if ok else 'fail'}{_reason(ok, reasons.get(name))} |"
                for name, ok in checks.items()
            ]
    sign_off = export["sign_off"]
    if sign_off:
        comment = f": {text(sign_off['comment'])}" if sign_off["comment"] else ""
        by, at = text(sign_off["by"]), text(sign_off["at"])
        lines += ["", f"**Signed off** by {by} at {at}{comment}"]
    if export["applied_fixes"]:
        lines += ["", "### Applied fixes", ""]
        for number, fix in enumerate(export["applied_fixes"], 1):
            reviewer = text(fix["reviewer"] or "nobody")
            lines += [
                f"{number}. {code(fix['find'])} → {code(fix['replace'])} ({text(fix['kind'])}, "
                f"{text(fix['origin'])}; accepted by {reviewer} at {text(fix['reviewed_at'])})",
                f"   VERIFIED_WITH: {text(readable_text(fix['verified_with']))}",
            ]
    return "\n".join(line for line in lines if line is not None) + "\n"


# Line ends JSON leaves raw inside strings, which a consumer splitting on lines (Python's
# str.splitlines, JavaScript's line terminators) would cut a record at.
_LINE_ENDS_IN_JSON = {"\u2028": "\\u2028", "\u2029": "\\u2029", "\u0085": "\\u0085"}
_LINE_ENDS_RE = re.compile("[\u2028\u2029\u0085]")


def ndjson_line(record: dict[str, Any]) -> str:
    """One NDJSON record: JSON on one line whose only line end is the final ``\\n``."""
    text = json.dumps(record, ensure_ascii=False)
    return _LINE_ENDS_RE.sub(lambda m: _LINE_ENDS_IN_JSON[m.group()], text) + "\n"


def approved_exports(
    *,
    visible: QuerySet[Analysis],
    since: datetime | None,
    after: int,
    limit: int,
    pipeline: str | None = None,
) -> Iterator[tuple[int, dict[str, Any]]]:
    """(cursor, export) of the approved analyses among `visible` (of the pipeline with the
    slug `pipeline`, when given), in order of approval.

    The cursor is the id of the approval's audit record: pass the last one back to resume.
    """
    if pipeline:
        visible = visible.filter(pipeline__slug=pipeline)
    events = AuditEvent.objects.filter(
        action=AuditEvent.Action.APPROVED,
        analysis__status=Analysis.Status.APPROVED,
        analysis__in=visible,
        id__gt=after,
    )
    if since is not None:
        events = events.filter(created_at__gte=since)
    for event in events.select_related("analysis__pipeline").order_by("id")[:limit]:
        yield event.pk, analysis_export(event.analysis)


def analyses_page(
    *,
    visible: QuerySet[Analysis],
    after: int | None,
    limit: int,
    pipeline: str | None = None,
    status: str | None = None,
    decision: str | None = None,
    verdict: str | None = None,
    external_id: str | None = None,
    received_after: datetime | None = None,
    received_before: datetime | None = None,
    approved_after: datetime | None = None,
    approved_before: datetime | None = None,
) -> list[Analysis]:
    """One page of the `visible` analyses, newest first, after the cursor id `after`.

    `pipeline` is a pipeline's slug; `decision` is the report's own (BUY, WATCH...);
    `verdict` the latest validator decision.
    """
    analyses = visible.select_related("pipeline").order_by("-id")
    if pipeline:
        analyses = analyses.filter(pipeline__slug=pipeline)
    if after is not None:
        analyses = analyses.filter(id__lt=after)
    if status:
        analyses = analyses.filter(status=status)
    if decision:
        analyses = analyses.filter(decision=decision)
    if external_id:
        analyses = analyses.filter(external_id=external_id)
    if received_after:
        analyses = analyses.filter(created_at__gte=received_after)
    if received_before:
        analyses = analyses.filter(created_at__lt=received_before)
    if verdict:
        latest = Attempt.objects.filter(analysis=OuterRef("pk"), status=Attempt.Status.DONE)
        analyses = analyses.annotate(
            verdict=Subquery(latest.order_by("-number").values("decision")[:1])
        ).filter(verdict=verdict)
    if approved_after or approved_before:
        approvals = AuditEvent.objects.filter(
            analysis=OuterRef("pk"), action=AuditEvent.Action.APPROVED
        )
        if approved_after:
            approvals = approvals.filter(created_at__gte=approved_after)
        if approved_before:
            approvals = approvals.filter(created_at__lt=approved_before)
        analyses = analyses.filter(Exists(approvals), status=Analysis.Status.APPROVED)
    return list(analyses[:limit])
