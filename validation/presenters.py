"""What the queue and review templates show, built from the rows the selectors read
(fix cards: ``validation.fix_cards``).

Flags (which buttons a person sees), rendered HTML, diffs, URLs of the fix actions: view
models, no writes and no queries of their own beyond the selectors they call. The services
have the last word on every action; these only decide what to offer.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.utils import timezone
from django.utils.safestring import SafeString

from analyses.models import Analysis, Evidence, Revision
from validation import selectors
from validation.diffs import DiffLine, line_diff
from validation.engine.types import CHECK_LABELS
from validation.fix_cards import FixCard, fix_action_urls, fix_card, fix_counts_of
from validation.loops import REVISE, LoopState
from validation.models import Attempt, AuditEvent, Finding, Fix, Policy
from validation.rendering import Highlight, render_markdown, render_report
from validation.selectors import FixCounts

TABS = ("report", "evidence", "revisions", "attempts", "audit")

OPEN_ATTEMPT = (Attempt.Status.QUEUED, Attempt.Status.RUNNING)

AnyUser = User | AnonymousUser


# ---------------------------------------------------------------- claims


@dataclass(frozen=True)
class Claim:
    holder: str
    mine: bool
    minutes_left: int

    @property
    def label(self) -> str:
        who = "you" if self.mine else self.holder
        return f"claimed by {who} · {self.minutes_left} min left"


def claim_of(analysis: Analysis, user: AnyUser | None, now: datetime | None = None) -> Claim | None:
    """The live claim on `analysis`, or None when unclaimed or expired. Needs
    ``claimed_by`` selected with the analysis (no query here)."""
    if analysis.claimed_by_id is None or analysis.claimed_until is None:
        return None
    now = now or timezone.now()
    if analysis.claimed_until <= now:
        return None
    seconds = (analysis.claimed_until - now).total_seconds()
    mine = user is not None and analysis.claimed_by_id == user.pk
    if mine and user is not None:
        holder = user.get_username()
    else:
        holder = analysis.claimed_by.get_username() if analysis.claimed_by else "someone"
    return Claim(
        holder=holder,
        mine=mine,
        minutes_left=max(1, int((seconds + 59) // 60)),
    )


# ---------------------------------------------------------------- review page


@dataclass(frozen=True)
class CheckResult:
    name: str
    label: str
    passed: bool
    why: str = ""  # for a failed check: what made it fail


@dataclass(frozen=True)
class FindingGroup:
    check: str
    label: str
    findings: list[Finding]


@dataclass
class ReviewState:
    """What the header, footer and card buttons need: statuses, counts, permissions."""

    analysis: Analysis
    policy: Policy
    revisions: list[Revision]
    current_revision: Revision
    attempts: list[Attempt]
    current_attempt: Attempt | None  # the attempt of the current revision (may be running)
    verdict_attempt: Attempt | None  # the last finished attempt: what the header shows
    fix_revision: Revision | None  # the revision whose fixes the cards show
    counts: FixCounts
    claim: Claim | None
    reviewer: bool
    final_event: AuditEvent | None = None  # who signed off / rejected / why it failed

    @property
    def loops(self) -> LoopState:
        return LoopState.of(self.analysis, self.policy)

    @property
    def verdict_is_current(self) -> bool:
        attempt = self.verdict_attempt
        return attempt is not None and attempt.revision_id == self.current_revision.pk

    @property
    def verdict_revision_number(self) -> int | None:
        attempt = self.verdict_attempt
        if attempt is None:
            return None
        return next((r.number for r in self.revisions if r.pk == attempt.revision_id), None)

    @property
    def limit_reason(self) -> str:
        """At a loop limit: why no new revision can be made (the banner), else ""."""
        if self.analysis.status != Analysis.Status.IN_REVIEW or not self.verdict_is_current:
            return ""
        assert self.verdict_attempt is not None
        return self.loops.blocked_reason(self.verdict_attempt.decision)

    @property
    def apply_warning(self) -> str:
        return self.loops.last_loop_warning(REVISE) if self.can_apply else ""

    @property
    def is_final(self) -> bool:
        return not self.analysis.is_open

    @property
    def undecided(self) -> int:
        """Fixes of the current revision nobody decided (to review, or conflicting)."""
        if not self.fixes_are_current:
            return 0
        return self.counts.proposed + self.counts.conflict

    @property
    def validating(self) -> bool:
        """Validation is queued or running: the page polls its status."""
        return self.current_attempt is not None and self.current_attempt.status in OPEN_ATTEMPT

    @property
    def checks(self) -> list[CheckResult]:
        if self.verdict_attempt is None:
            return []
        raw = self.verdict_attempt.checks if isinstance(self.verdict_attempt.checks, dict) else {}
        issues = (
            self.verdict_attempt.issues if isinstance(self.verdict_attempt.issues, list) else []
        )
        # A check that fails says why: its findings (listed under Findings), else the
        # verdict's issues, so a failed check never stands alone without a reason.
        why = "; ".join(str(issue) for issue in issues[:5]) or "no finding recorded"
        return [
            CheckResult(name, label, bool(raw.get(name)), "" if raw.get(name) else why)
            for name, label in CHECK_LABELS.items()
            if name in raw
        ]

    @property
    def fixes_are_current(self) -> bool:
        return self.fix_revision is not None and self.fix_revision.pk == self.current_revision.pk

    @property
    def claimed_by_other(self) -> bool:
        return self.claim is not None and not self.claim.mine

    @property
    def can_act(self) -> bool:
        """Fix actions make sense: a reviewer, an analysis in review that nobody else holds,
        fixes of the current revision, no validation in flight. The services have the last
        word; this only decides which buttons to show."""
        return (
            self.reviewer
            and self.analysis.status == Analysis.Status.IN_REVIEW
            and self.fixes_are_current
            and not self.validating
            and not self.claimed_by_other
        )

    @property
    def can_apply(self) -> bool:
        return self.can_act and self.counts.accepted > 0 and self.loops.revise_remaining > 0

    @property
    def can_sign_off(self) -> bool:
        """As the sign-off service demands: in review, the latest attempt done, no accepted
        fix waiting to be applied while a REVISE loop remains. Undecided fixes need an
        override with a comment (the form asks for both)."""
        return (
            self.reviewer
            and self.analysis.status == Analysis.Status.IN_REVIEW
            and self.current_attempt is not None
            and self.current_attempt.status == Attempt.Status.DONE
            and (self.counts.accepted == 0 or self.loops.revise_remaining == 0)
            and not self.claimed_by_other
        )

    @property
    def can_reject(self) -> bool:
        return self.reviewer and self.analysis.is_open and not self.claimed_by_other

    @property
    def can_claim(self) -> bool:
        return self.reviewer and self.analysis.is_open and self.claim is None

    @property
    def can_release(self) -> bool:
        return self.reviewer and self.claim is not None and self.claim.mine

    @property
    def errored(self) -> bool:
        attempt = self.current_attempt
        return attempt is not None and attempt.status == Attempt.Status.ERRORED

    @property
    def validator_failed_checks(self) -> list[str]:
        """The failed checks of a current verdict the validator did not approve: signing
        it off overrides the validator, which needs a comment (the sign-off form says so)."""
        attempt = self.verdict_attempt
        if attempt is None or not self.verdict_is_current:
            return []
        if attempt.decision == Attempt.Decision.APPROVE:
            return []
        return Attempt.failed_checks(attempt.checks)

    @property
    def sign_off_needs_comment(self) -> bool:
        return bool(self.undecided or self.limit_reason or self.validator_failed_checks)

    @property
    def llm_failure(self) -> str:
        """Why the LLM path of the current revision's finished attempt errored ("" when it
        did not): its findings and fixes are then the engine's alone, shown beside this."""
        attempt = self.current_attempt
        if attempt is None or attempt.status != Attempt.Status.DONE:
            return ""
        if getattr(attempt, "llm_status", None) != "errored":
            return ""
        return str(getattr(attempt, "llm_error", "") or "the LLM judge gave no valid answer")

    @property
    def can_revalidate(self) -> bool:
        """An errored attempt, or one whose LLM path errored before any of its fixes was
        decided, can be run again (the service has the last word)."""
        if not self.reviewer or self.analysis.status != Analysis.Status.IN_REVIEW:
            return False
        if self.claimed_by_other:
            return False
        if self.errored:
            return True
        counts = self.counts
        undecided = counts.accepted + counts.applied + counts.conflict == 0
        return bool(self.llm_failure) and undecided and counts.rejected == counts.carried

    @property
    def validated_ms(self) -> float | None:
        attempt = self.verdict_attempt
        if attempt is None:
            return None
        timings = attempt.timings if isinstance(attempt.timings, dict) else {}
        for key in ("total_ms", "total"):
            value = timings.get(key)
            if isinstance(value, int | float):
                return float(value)
        if attempt.started_at and attempt.finished_at:
            return (attempt.finished_at - attempt.started_at).total_seconds() * 1000
        return None


@dataclass
class ReviewPage(ReviewState):
    cards: list[FixCard] = field(default_factory=list)
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

    @property
    def failed_without_findings(self) -> list[CheckResult]:
        """Failed checks with no finding under them on the report tab: their reason is said."""
        if self.tab != "report" or not self.verdict_is_current:
            return []
        listed = {group.check for group in self.finding_groups}
        return [check for check in self.checks if not check.passed and check.name not in listed]

    @property
    def evidence_count(self) -> int:
        return int(getattr(self.analysis, "evidence_count", 0))

    @property
    def audit_count(self) -> int:
        return int(getattr(self.analysis, "audit_count", 0))


@dataclass(frozen=True)
class _StateParts:
    policy: Policy
    revisions: list[Revision]
    attempts: list[Attempt]
    current_attempt: Attempt | None
    verdict_attempt: Attempt | None
    fix_revision: Revision | None


def _state_parts(analysis: Analysis, *, bodies: bool, full_attempts: bool) -> _StateParts:
    policy = Policy.load()
    revisions = selectors.revisions_of(analysis, bodies=bodies)
    if not revisions:
        raise Revision.DoesNotExist(f"Analysis {analysis.pk} has no revision.")
    attempts = selectors.attempts_of(analysis, full=full_attempts)
    current_revision = revisions[-1]
    current_attempt = next((a for a in attempts if a.revision_id == current_revision.pk), None)
    done = [a for a in attempts if a.status == Attempt.Status.DONE]
    # While the current revision is being validated, the cards show the previous
    # revision's fixes: what was just applied, and what conflicted and why.
    fix_revision: Revision | None = current_revision
    if (current_attempt is None or current_attempt.status in OPEN_ATTEMPT) and len(revisions) > 1:
        fix_revision = revisions[-2]
    return _StateParts(
        policy=policy,
        revisions=revisions,
        attempts=attempts,
        current_attempt=current_attempt,
        verdict_attempt=done[-1] if done else None,
        fix_revision=fix_revision,
    )


def review_state(*, analysis: Analysis, user: AnyUser, reviewer: bool) -> ReviewState:
    """The light state for htmx action responses (4 queries)."""
    parts = _state_parts(analysis, bodies=False, full_attempts=False)
    counts = (
        selectors.fix_counts(
            revision_id=parts.fix_revision.pk, threshold=parts.policy.fix_confidence_threshold
        )
        if parts.fix_revision is not None
        else FixCounts()
    )
    return ReviewState(
        analysis=analysis,
        policy=parts.policy,
        revisions=parts.revisions,
        current_revision=parts.revisions[-1],
        attempts=parts.attempts,
        current_attempt=parts.current_attempt,
        verdict_attempt=parts.verdict_attempt,
        fix_revision=parts.fix_revision,
        counts=counts,
        claim=claim_of(analysis, user),
        reviewer=reviewer,
        final_event=selectors.final_event_of(analysis),
    )


def review_page(
    *,
    analysis: Analysis,
    user: AnyUser,
    reviewer: bool,
    tab: str = "report",
    diff_a: str | None = None,
    diff_b: str | None = None,
) -> ReviewPage:
    """The review page of `analysis` (fetched with `selectors.review_analysis_queryset`).

    Queries: policy, revisions, attempts, fixes, tool calls, plus one for the tab
    (findings, evidence or audit): constant in the number of fixes and findings.
    """
    tab = tab if tab in TABS else "report"
    parts = _state_parts(analysis, bodies=True, full_attempts=tab == "attempts")
    revisions = parts.revisions
    revision_numbers = {revision.pk: revision.number for revision in revisions}
    fixes: list[Fix] = []
    cards: list[FixCard] = []
    if parts.fix_revision is not None:
        fixes = selectors.fixes_of_revision(parts.fix_revision)
        patterns = fix_action_urls(analysis.pk)
        cards = [
            fix_card(
                fix,
                number=index,
                body=parts.fix_revision.body,
                revision_numbers=revision_numbers,
                url_patterns=patterns,
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
    if tab == "report":
        _load_report(page)
    elif tab == "evidence":
        page.evidence = selectors.evidence_of(analysis)
    elif tab == "revisions":
        _load_revision_diff(page, diff_a, diff_b)
    elif tab == "attempts":
        page.attempt_records = [
            (
                attempt,
                revision_numbers.get(attempt.revision_id, 0),
                render_markdown(attempt.markdown),
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
        rows.append((str(model_field.verbose_name).capitalize(), shown, str(model_field.help_text)))
    return rows
