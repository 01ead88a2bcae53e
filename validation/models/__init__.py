"""What happens to a submitted analysis: attempts, findings, fixes, tool and LLM calls,
the audit trail, the Policy (``validation.models.policy``), API tokens
(``validation.models.tokens``) and the sessions of people (``validation.models.sessions``)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q

from analyses.models import Analysis, Revision
from validation.models.policy import (
    _UNIT,
    CHECK_CHOICES,
    MAX_CLAIM_MINUTES,
    MAX_LOOPS,
    MAX_RETRY_DELAY_SECONDS,
    MAX_TOTAL_LOOPS,
    Policy,
)
from validation.models.sessions import Session
from validation.models.tokens import ApiToken, ApiTokenEvent
from validation.models.webhooks import (
    WEBHOOK_EVENTS,
    WebhookAttempt,
    WebhookDelivery,
    WebhookEndpoint,
)

__all__ = [
    "CHECK_CHOICES",
    "MAX_CLAIM_MINUTES",
    "MAX_LOOPS",
    "MAX_RETRY_DELAY_SECONDS",
    "MAX_TOTAL_LOOPS",
    "WEBHOOK_EVENTS",
    "ApiToken",
    "ApiTokenEvent",
    "Attempt",
    "AuditEvent",
    "Finding",
    "Fix",
    "LLMCall",
    "Policy",
    "Session",
    "ToolCall",
    "WebhookAttempt",
    "WebhookDelivery",
    "WebhookEndpoint",
]


class Attempt(models.Model):
    """One run of the validator on one revision."""

    class LoopKind(models.TextChoices):
        INITIAL = "initial", "Initial"
        REVISE = "revise", "REVISE loop"
        RETRY = "retry", "RETRY loop"

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        ERRORED = "errored", "Errored"

    class Decision(models.TextChoices):
        APPROVE = "APPROVE", "Approve"
        REVISE = "REVISE", "Revise"
        RETRY = "RETRY", "Retry"
        FAIL = "FAIL", "Fail"

    analysis = models.ForeignKey(Analysis, on_delete=models.CASCADE, related_name="attempts")
    revision = models.ForeignKey(Revision, on_delete=models.CASCADE, related_name="attempts")
    number = models.PositiveIntegerField()
    loop_kind = models.CharField(max_length=10, choices=LoopKind.choices, default=LoopKind.INITIAL)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)

    decision = models.CharField(max_length=10, choices=Decision.choices, blank=True)
    confidence = models.FloatField(null=True, blank=True)
    checks = models.JSONField(default=dict, blank=True)
    check_reasons = models.JSONField(
        default=dict, blank=True, help_text="Why each failed check failed, in words."
    )
    issues = models.JSONField(default=list, blank=True)
    revision_hints = models.TextField(blank=True)
    suggested_fixes = models.TextField(blank=True)
    numbers = models.JSONField(default=dict, blank=True)
    goal_scores = models.JSONField(default=list, blank=True)
    goal_decision = models.CharField(max_length=40, blank=True)
    markdown = models.TextField(
        blank=True,
        help_text="The validation record of this attempt (docs/spec.md §9).",
    )
    timings = models.JSONField(default=dict, blank=True)
    llm_call_count = models.PositiveIntegerField(default=0)
    llm = models.JSONField(
        default=dict,
        blank=True,
        help_text="The LLM path of this attempt: status, error, what it changed, retries, fixer.",
    )
    tool_call_count = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    # The Policy that judged it (its pipeline's, or the default) and the settings it ran with.
    policy = models.ForeignKey(
        Policy, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    policy_settings = models.JSONField(default=dict, blank=True)

    queued_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # A running attempt whose lease has passed was lost with its worker; the sweeper re-enqueues it.
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    run_token = models.CharField(max_length=40, blank=True)
    runs = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["analysis_id", "number"]
        constraints = [
            models.UniqueConstraint(
                fields=["revision"], name="validation_attempt_one_per_revision"
            ),
            models.UniqueConstraint(
                fields=["analysis", "number"], name="validation_attempt_number_unique"
            ),
            models.CheckConstraint(
                condition=Q(confidence__isnull=True)
                | (Q(confidence__gte=0) & Q(confidence__lte=1)),
                name="validation_attempt_confidence_range",
            ),
            models.CheckConstraint(
                condition=~Q(status="done") | ~Q(decision=""),
                name="validation_attempt_done_has_decision",
            ),
        ]
        indexes = [
            # The sweeper: unfinished attempts by lease deadline.
            models.Index(
                fields=["lease_expires_at"],
                condition=Q(status__in=["queued", "running"]),
                name="validation_attempt_open_idx",
            ),
            # Readiness (services.backlog.queue_state): was any attempt started lately.
            models.Index(fields=["started_at"], name="validation_attempt_started_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.analysis} · attempt {self.number}"

    @staticmethod
    def failed_checks(checks: object) -> list[str]:
        """The labels of the checks a verdict's ``checks`` record as failed, in check order
        (the sign-off, the review header and the queue say which)."""
        if not isinstance(checks, dict):
            return []
        return [label for name, label in CHECK_CHOICES if checks.get(name) is False]


class Finding(models.Model):
    class Severity(models.TextChoices):
        CRITICAL = "critical", "Critical"
        MAJOR = "major", "Major"
        MINOR = "minor", "Minor"
        INFO = "info", "Info"

    attempt = models.ForeignKey(Attempt, on_delete=models.CASCADE, related_name="findings")
    check_name = models.CharField("check", max_length=30, choices=CHECK_CHOICES)
    kind = models.CharField(max_length=40)
    severity = models.CharField(max_length=10, choices=Severity.choices)
    message = models.TextField()
    start = models.PositiveIntegerField(default=0)
    end = models.PositiveIntegerField(default=0)
    text = models.TextField(blank=True)
    evidence = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["attempt_id", "start", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(end__gte=F("start")), name="validation_finding_span_ordered"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind}: {self.message[:60]}"


class Fix(models.Model):
    """A FIND / REPLACE / VERIFIED_WITH proposal and its review."""

    class Status(models.TextChoices):
        PROPOSED = "proposed", "Proposed"
        ACCEPTED = "accepted", "Accepted"
        REJECTED = "rejected", "Rejected"
        APPLIED = "applied", "Applied"
        CONFLICT = "conflict", "Conflict"
        STALE = "stale", "Stale"

    class Origin(models.TextChoices):
        DETERMINISTIC = "deterministic", "Deterministic"
        LLM = "llm", "LLM fixer"
        REVIEWER = "reviewer", "Reviewer"

    class EditCheck(models.TextChoices):
        NONE = "", "As proposed"
        VERIFIED = "verified", "Edited — re-verified"
        UNVERIFIED = "unverified", "Edited — unverified"
        REVIEWERS_WORD = "reviewers_word", "Reviewer's word"

    attempt = models.ForeignKey(Attempt, on_delete=models.CASCADE, related_name="fixes")
    revision = models.ForeignKey(Revision, on_delete=models.CASCADE, related_name="proposed_fixes")
    finding = models.ForeignKey(
        Finding, null=True, blank=True, on_delete=models.SET_NULL, related_name="fixes"
    )
    kind = models.CharField(max_length=40)
    origin = models.CharField(max_length=20, choices=Origin.choices, default=Origin.DETERMINISTIC)
    find = models.TextField()
    replace = models.TextField(blank=True)
    proposed_replace = models.TextField(blank=True, help_text="The replacement as proposed.")
    verified_with = models.TextField(blank=True)
    confidence = models.FloatField(validators=_UNIT)
    offset = models.PositiveIntegerField(default=0)
    evidence = models.JSONField(default=list, blank=True)
    # An edited replacement is re-verified against the fix's proof on save; one the proof
    # contradicts is "unverified", its confidence dropped, and never bulk-accepted.
    edit_check = models.CharField(
        max_length=20, choices=EditCheck.choices, default=EditCheck.NONE, blank=True
    )
    edit_note = models.TextField(blank=True, help_text="What the re-verification of an edit found.")
    proposed_confidence = models.FloatField(
        null=True, blank=True, validators=_UNIT, help_text="The confidence as proposed."
    )
    verified = models.BooleanField(
        default=True, help_text="False: an LLM fix no tool call supports; never bulk-accepted."
    )

    # A reviewer's own fix (origin "reviewer"): who wrote it and when. The validator's and the
    # LLM fixer's proposals have none.
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The reviewer who wrote this fix (a reviewer's own fix).",
    )
    authored_at = models.DateTimeField(null=True, blank=True)

    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PROPOSED)
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    reviewed_at = models.DateTimeField(null=True, blank=True)
    reason = models.TextField(blank=True, help_text="Why it was rejected, or why it conflicts.")
    applied_in = models.ForeignKey(
        Revision, null=True, blank=True, on_delete=models.SET_NULL, related_name="applied_fixes"
    )
    # A proposal a person already rejected on an earlier revision arrives rejected again: it
    # is that same review carried over, not a second one (metrics and the dashboard count it
    # once). Undo makes it an ordinary proposal.
    carried_from = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The rejected fix of an earlier revision whose rejection this one carries.",
    )

    class Meta:
        verbose_name_plural = "fixes"
        ordering = ["revision_id", "offset", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(confidence__gte=0) & Q(confidence__lte=1),
                name="validation_fix_confidence_range",
            ),
            models.CheckConstraint(condition=~Q(find=""), name="validation_fix_find_not_empty"),
            models.CheckConstraint(
                condition=~Q(status="applied") | Q(applied_in__isnull=False),
                name="validation_fix_applied_has_revision",
            ),
            models.CheckConstraint(
                condition=~Q(origin="reviewer") | Q(authored_at__isnull=False),
                name="validation_fix_reviewer_fix_has_author",
            ),
        ]
        indexes = [
            # The review screen and apply: fixes of one revision by status.
            models.Index(fields=["revision", "status"], name="validation_fix_rev_status_idx"),
        ]

    def __str__(self) -> str:
        return f"Fix {self.pk} ({self.kind}, {self.status})"

    @property
    def edited(self) -> bool:
        return self.replace != self.proposed_replace

    @property
    def unverified(self) -> bool:
        return self.edit_check == Fix.EditCheck.UNVERIFIED

    @property
    def by_reviewer(self) -> bool:
        return self.origin == Fix.Origin.REVIEWER


class ToolCall(models.Model):
    """A recorded call of calculator, evidence_search or another tool: the proof a reviewer sees."""

    attempt = models.ForeignKey(Attempt, on_delete=models.CASCADE, related_name="tool_calls")
    fix = models.ForeignKey(
        Fix, null=True, blank=True, on_delete=models.CASCADE, related_name="tool_calls"
    )
    tool = models.CharField(max_length=60)
    input = models.JSONField(default=dict)
    output = models.TextField(blank=True)
    error = models.TextField(blank=True)
    duration_ms = models.FloatField(default=0.0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.tool}({self.input})"


class LLMCall(models.Model):
    attempt = models.ForeignKey(Attempt, on_delete=models.CASCADE, related_name="llm_calls")
    purpose = models.CharField(max_length=20)  # judge, fixer
    model = models.CharField(max_length=200)
    prompt = models.JSONField(default=list)
    response = models.TextField(blank=True)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    latency_ms = models.FloatField(default=0.0)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        verbose_name = "LLM call"

    def __str__(self) -> str:
        return f"{self.purpose} · {self.model}"


class AuditEvent(models.Model):
    """Who did what, when, with what comment. Never edited."""

    class Action(models.TextChoices):
        INGESTED = "ingested", "Ingested"
        CLAIMED = "claimed", "Claimed"
        RELEASED = "released", "Released claim"
        FIX_ACCEPTED = "fix_accepted", "Accepted fix"
        FIX_REJECTED = "fix_rejected", "Rejected fix"
        FIX_EDITED = "fix_edited", "Edited fix"
        FIX_UNDONE = "fix_undone", "Undid review of fix"
        FIX_AUTHORED = "fix_authored", "Wrote a fix"
        BULK_ACCEPTED = "bulk_accepted", "Bulk-accepted fixes"
        APPLIED = "applied", "Applied fixes"
        VALIDATED = "validated", "Validated"
        APPROVED = "approved", "Signed off"
        REJECTED = "rejected", "Rejected analysis"
        FAILED = "failed", "Failed"
        LOOP_LIMIT = "loop_limit", "Loop limit reached"
        NEW_EVIDENCE = "new_evidence", "New evidence"
        NEW_DRAFT = "new_draft", "New draft"

    analysis = models.ForeignKey(Analysis, on_delete=models.CASCADE, related_name="audit_events")
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    action = models.CharField(max_length=20, choices=Action.choices)
    fix = models.ForeignKey(Fix, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    revision = models.ForeignKey(
        Revision, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    comment = models.TextField(blank=True)
    data = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [
            models.Index(fields=["analysis", "created_at"], name="validation_audit_analysis_idx")
        ]

    def __str__(self) -> str:
        return f"{self.get_action_display()} by {self.actor or 'system'}"
