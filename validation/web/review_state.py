"""The review state: what the header, the footer and the card buttons of the review screen
need -- statuses, counts, the claim, which actions a person is offered -- built from the
rows the selectors read (the page around it: ``validation.web.presenters``).

The services have the last word on every action; these only decide what to offer.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import AnonymousUser, User
from django.utils import timezone
from django.utils.safestring import SafeString

from analyses.models import Analysis, Revision
from validation import selectors
from validation.engine.types import CHECK_LABELS
from validation.loops import REVISE, LoopState
from validation.models import Attempt, AuditEvent, Policy
from validation.review_read import FixUnderReview
from validation.selectors import FixCounts
from validation.web.fix_cards import CardFlags, FixCard, fix_action_urls, review_html, urls_for

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


# An open review page asks this often whether a new revision arrived (a new draft or new
# evidence from the pipeline): one cheap query set per page, and the reviewer learns of it
# before signing off (the sign-off itself is refused for a revision they did not read).
WATCH_SECONDS = 5


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
    def watch_seconds(self) -> int:
        """How often an open page asks whether its revision is still the current one."""
        return WATCH_SECONDS

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
        reasons = self.verdict_attempt.check_reasons
        reasons = reasons if isinstance(reasons, dict) else {}
        # A check that fails says why: the verdict's reason for it (an attempt recorded before
        # verdicts carried reasons: its issues), so a failed check never stands unexplained.
        issues_said = "; ".join(str(issue) for issue in issues[:5]) or "no finding recorded"
        return [
            CheckResult(
                name,
                label,
                bool(raw.get(name)),
                "" if raw.get(name) else str(reasons.get(name) or issues_said),
            )
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
        """Accepted fixes to apply. Past the REVISE limit only a reviewer's own fixes are
        applied (the service refuses the validator's, and says so)."""
        return self.can_act and self.counts.accepted > 0

    @property
    def can_write_fix(self) -> bool:
        """A reviewer may add a fix of their own: whenever fix actions are offered."""
        return self.can_act

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

    def card_flags(self, csrf_token: str) -> CardFlags:
        return CardFlags(
            can_act=self.can_act,
            is_final=self.is_final,
            reason_required=self.policy.require_reject_reason,
            csrf_token=csrf_token,
        )


@dataclass(frozen=True)
class _StateParts:
    policy: Policy
    revisions: list[Revision]
    attempts: list[Attempt]
    current_attempt: Attempt | None
    verdict_attempt: Attempt | None
    fix_revision: Revision | None


def state_parts(analysis: Analysis, *, bodies: bool, full_attempts: bool) -> _StateParts:
    policy = Policy.for_pipeline(analysis.pipeline_id)
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
    parts = state_parts(analysis, bodies=False, full_attempts=False)
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


def review_state_of(target: FixUnderReview, *, user: AnyUser) -> ReviewState:
    """The state a review action's htmx answer shows (footer, bulk accept, claim), from the
    action's own read (:class:`validation.review_read.FixUnderReview`): no query for an open
    analysis."""
    attempt = target.attempt
    current = target.current_revision
    current_attempt = attempt if attempt is not None and attempt.revision_id == current.pk else None
    done = current_attempt is not None and current_attempt.status == Attempt.Status.DONE
    return ReviewState(
        analysis=target.analysis,
        policy=target.policy,
        revisions=[current],
        current_revision=current,
        attempts=[attempt] if attempt is not None else [],
        current_attempt=current_attempt,
        verdict_attempt=current_attempt if done else None,
        fix_revision=target.fix.revision,
        counts=target.counts,
        claim=claim_of(target.analysis, user),
        reviewer=True,
        final_event=selectors.final_event_of(target.analysis),
    )


def fix_review_html(
    target: FixUnderReview, state: ReviewState, *, csrf_token: str, error: str = ""
) -> SafeString:
    """The review part of the card of the fix a review action read, as its answer swaps."""
    card = FixCard(
        fix=target.fix,
        number=0,
        diff=SafeString(""),
        excerpts=[],
        tool_calls=[],
        applied_in_number=target.applied_in_number,
        error=error,
        urls=urls_for(target.fix.pk, fix_action_urls(target.analysis.pk)),
    )
    return review_html(card, state.card_flags(csrf_token))
