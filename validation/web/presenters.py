"""What the review page shows, built from the rows the selectors read: its tabs, the
rendered report, the fix cards (``validation.web.fix_cards``) over the review state
(``validation.web.review_state``: which buttons a person sees), the Policy page.

View models: no writes and no queries of their own beyond the selectors they call.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from django.utils.safestring import SafeString, mark_safe
from django.utils.text import capfirst

from analyses.models import Analysis, Evidence, Revision
from validation import selectors
from validation.engine.readable import readable_text
from validation.engine.types import CHECK_LABELS
from validation.models import Attempt, AuditEvent, Finding, Fix, Policy
from validation.services.llm import llm_settings
from validation.web.diffs import DiffLine, line_diff
from validation.web.display import esc, finding_class, humanize_key, truncate
from validation.web.fix_cards import (
    FixCard,
    card_html,
    fix_action_urls,
    fix_card,
    fix_counts_of,
)
from validation.web.rendering import Highlight, render_markdown, render_report
from validation.web.review_state import AnyUser, CheckResult, ReviewState, claim_of, state_parts

TABS = ("report", "evidence", "revisions", "attempts", "audit")


@dataclass(frozen=True)
class FindingGroup:
    check: str
    label: str
    findings: list[Finding]

    @property
    def items_html(self) -> SafeString:
        """The group's list items, written here for the reason the fix cards are: a hundred
        template renders cost more than the rest of the report tab."""
        return mark_safe("".join(_finding_item(finding) for finding in self.findings))


def _finding_item(finding: Finding) -> str:
    text = finding.text
    code = f'<code class="finding-text">{esc(truncate(text, 80))}</code>' if text else ""
    return (
        f'<li class="finding-item"><a class="swatch {finding_class(finding.kind)}" '
        f'href="#finding-{finding.pk}" aria-label="Show in report"></a>'
        f'<span class="sev sev--{esc(finding.severity)}">{esc(finding.severity)}</span>'
        f'<span class="finding-kind">{esc(humanize_key(finding.kind))}</span>{code}'
        f'<span class="finding-msg">{esc(finding.message)}</span>'
        f'<button type="button" class="btn btn--small btn--link own-fix-open" '
        f'data-own-fix-finding="{finding.pk}" data-text="{esc(finding.text)}">write a fix</button>'
        "</li>"
    )  # every value escaped


@dataclass
class ReviewPage(ReviewState):
    cards: list[FixCard] = field(default_factory=list)
    cards_html: SafeString = field(default_factory=lambda: SafeString(""))
    tab: str = "report"
    findings: list[Finding] = field(default_factory=list)
    report_html: SafeString | None = None
    finding_groups: list[FindingGroup] = field(default_factory=list)
    evidence: list[Evidence] = field(default_factory=list)
    audit: list[tuple[AuditEvent, int | None, str]] = field(default_factory=list)
    diff_a: Revision | None = None
    diff_b: Revision | None = None
    diff_rows: list[DiffLine] = field(default_factory=list)
    attempt_records: list[tuple[Attempt, int, SafeString]] = field(default_factory=list)
    llm_endpoint: dict[str, str] = field(default_factory=dict)

    @property
    def failed_checks(self) -> list[CheckResult]:
        """The current verdict's failed checks, each with why, under the findings."""
        if self.tab != "report" or not self.verdict_is_current:
            return []
        assert self.verdict_attempt is not None
        recorded = self.verdict_attempt.check_reasons
        recorded = recorded if isinstance(recorded, dict) else {}
        listed = {group.check: len(group.findings) for group in self.finding_groups}
        failed = []
        for check in self.checks:
            if check.passed:
                continue
            if check.name not in recorded and check.name in listed:
                # An attempt from before verdicts said why: its findings, listed above.
                n = listed[check.name]
                why = f"{n} finding{'s' if n != 1 else ''} listed above"
                check = CheckResult(check.name, check.label, False, why)
            failed.append(check)
        return failed

    @property
    def evidence_count(self) -> int:
        return int(getattr(self.analysis, "evidence_count", 0))

    @property
    def audit_count(self) -> int:
        return int(getattr(self.analysis, "audit_count", 0))


def review_page(
    *,
    analysis: Analysis,
    user: AnyUser,
    reviewer: bool,
    tab: str = "report",
    diff_a: str | None = None,
    diff_b: str | None = None,
    csrf_token: str = "",
) -> ReviewPage:
    """The review page of `analysis` (fetched with `selectors.review_analysis_queryset`).

    Queries: policy, revisions, attempts, fixes, tool calls, plus one for the tab
    (findings, evidence or audit): constant in the number of fixes and findings.
    """
    tab = tab if tab in TABS else "report"
    parts = state_parts(analysis, bodies=True, full_attempts=tab == "attempts")
    revisions = parts.revisions
    revision_numbers = {revision.pk: revision.number for revision in revisions}
    fixes: list[Fix] = []
    cards: list[FixCard] = []
    if parts.fix_revision is not None:
        fixes, calls = selectors.fixes_of_revision(parts.fix_revision)
        patterns = fix_action_urls(analysis.pk)
        cards = [
            fix_card(
                fix,
                number=index,
                body=parts.fix_revision.body,
                revision_numbers=revision_numbers,
                url_patterns=patterns,
                tool_calls=calls.get(fix.pk, []),
            )
            for index, fix in enumerate(fixes, start=1)
        ]
    page = ReviewPage(
        analysis=analysis,
        policy=parts.policy,
        revisions=revisions,
        current_revision=revisions[-1],
        attempts=parts.attempts,
        current_attempt=parts.current_attempt,
        verdict_attempt=parts.verdict_attempt,
        fix_revision=parts.fix_revision,
        counts=fix_counts_of(fixes, parts.policy.fix_confidence_threshold),
        claim=claim_of(analysis, user),
        reviewer=reviewer,
        final_event=selectors.final_event_of(analysis),
        cards=cards,
        tab=tab,
    )
    flags = page.card_flags(csrf_token)
    page.cards_html = mark_safe("".join(card_html(card, flags) for card in cards))  # escaped
    if tab == "report":
        _load_report(page)
    elif tab == "evidence":
        page.evidence = selectors.evidence_of(analysis)
    elif tab == "revisions":
        _load_revision_diff(page, diff_a, diff_b)
    elif tab == "attempts":
        page.llm_endpoint = llm_endpoint_shown(parts.policy)
        page.attempt_records = [
            (
                attempt,
                revision_numbers.get(attempt.revision_id, 0),
                render_markdown(readable_text(attempt.markdown)),
            )
            for attempt in reversed(parts.attempts)
        ]
    elif tab == "audit":
        page.audit = [
            (event, revision_numbers.get(event.revision_id or 0), audit_note(event))
            for event in selectors.audit_events_of(analysis)
        ]
    return page


def audit_note(event: AuditEvent) -> str:
    """What an audit row adds to its action: a sign-off that overrode something says what
    ("override: 2 undecided fixes", "against the validator's RETRY: failed ...")."""
    if event.action != AuditEvent.Action.APPROVED or not isinstance(event.data, dict):
        return ""
    data = event.data
    notes = []
    undecided = data.get("undecided_fixes") or []
    if data.get("override") and undecided:
        notes.append(f"{len(undecided)} undecided fix{'es' if len(undecided) != 1 else ''}")
    failed = data.get("failed_checks") or []
    if data.get("against_validator") and failed:
        notes.append(
            f"against the validator's {data.get('decision', '')} (failed: "
            + ", ".join(str(check) for check in failed)
            + ")"
        )
    if data.get("loop_limit"):
        notes.append("at a loop limit")
    return "override: " + "; ".join(notes) if notes else ""


def _load_report(page: ReviewPage) -> None:
    attempt = page.current_attempt
    body = page.current_revision.body
    if attempt is not None and attempt.status == Attempt.Status.DONE:
        page.findings = selectors.findings_of(attempt)
    highlights = [
        Highlight(id=f.pk, start=f.start, end=f.end, kind=f.kind, message=f.message)
        for f in page.findings
        # A span that no longer holds its text (should not happen) is listed, not marked.
        if f.end > f.start and (not f.text or body[f.start : f.end] == f.text)
    ]
    page.report_html = render_report(body, highlights)
    groups = []
    for name, label in CHECK_LABELS.items():
        members = [f for f in page.findings if f.check_name == name]
        if members:
            groups.append(FindingGroup(name, label, members))
    page.finding_groups = groups


def _pick_revision(revisions: Sequence[Revision], raw: str | None) -> Revision | None:
    try:
        number = int(raw or "")
    except ValueError:
        return None
    return next((r for r in revisions if r.number == number), None)


def _load_revision_diff(page: ReviewPage, raw_a: str | None, raw_b: str | None) -> None:
    revisions = page.revisions
    b = _pick_revision(revisions, raw_b) or revisions[-1]
    default_a = revisions[-2] if len(revisions) > 1 else revisions[0]
    a = _pick_revision(revisions, raw_a) or default_a
    page.diff_a, page.diff_b = a, b
    page.diff_rows = line_diff(a.body, b.body)


def llm_endpoint_shown(policy: Policy) -> dict[str, str]:
    """``{"model": ..., "host": ...}`` of the LLM endpoint attempts use now, for the Attempts
    tab; {} when there is none (validation is deterministic) or its settings cannot be read."""
    try:
        settings = llm_settings(policy)
    except ValueError:
        return {}
    if settings is None:
        return {}
    return {"model": settings.model, "host": urlsplit(settings.base_url).netloc}


def pretty_json(value: Any) -> str:
    """Evidence content for display: JSON pretty-printed, text as is (templates escape)."""
    if isinstance(value, str):
        return value
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=False)


def policy_rows(policy: Policy) -> list[tuple[str, str, str]]:
    """(label, value, help) of every Policy setting, for the read-only Policy page."""
    rows = []
    for model_field in Policy._meta.concrete_fields:
        if model_field.name in ("id", "updated_at"):
            continue
        value = getattr(policy, model_field.name)
        if model_field.choices:
            shown = str(getattr(policy, f"get_{model_field.name}_display")())
        elif isinstance(value, bool):
            shown = "yes" if value else "no"
        else:
            shown = str(value)
        # capfirst, not capitalize: "LLM enabled" stays as written (not "Llm enabled").
        rows.append((capfirst(str(model_field.verbose_name)), shown, str(model_field.help_text)))
    return rows
