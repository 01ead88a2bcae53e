from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import F, Q

from analyses.models import Analysis, Revision
from validation.engine.types import CHECK_LABELS, CHECK_NAMES

_UNIT = [MinValueValidator(0.0), MaxValueValidator(1.0)]
# Sane ranges for the Policy's counts and delays; the database holds the same bounds
# (validation_policy_field_ranges), so neither a form nor a script can store 99999999 loops
# or a 1e308-second retry delay.
MAX_LOOPS = 10
MAX_TOTAL_LOOPS = 20
MAX_RETRY_DELAY_SECONDS = 60.0
MAX_CLAIM_MINUTES = 24 * 60


CHECK_CHOICES = [(name, CHECK_LABELS[name].capitalize()) for name in CHECK_NAMES]


class Policy(models.Model):
    """The admin-tuned settings. A single row (pk=1), edited in Django admin."""

    approve_threshold = models.FloatField(default=0.80, validators=_UNIT)
    revise_threshold = models.FloatField(default=0.50, validators=_UNIT)
    retry_threshold = models.FloatField(default=0.30, validators=_UNIT)

    max_revise_loops = models.PositiveSmallIntegerField(
        default=2, validators=[MaxValueValidator(MAX_LOOPS)]
    )
    max_retry_loops = models.PositiveSmallIntegerField(
        default=1, validators=[MaxValueValidator(MAX_LOOPS)]
    )
    max_total_loops = models.PositiveSmallIntegerField(
        default=3, validators=[MaxValueValidator(MAX_TOTAL_LOOPS)]
    )

    retry_enabled = models.BooleanField(
        default=True, help_text="Re-ask the LLM judge with its errors."
    )
    retry_max_attempts = models.PositiveSmallIntegerField(
        default=3, validators=[MinValueValidator(1), MaxValueValidator(10)]
    )
    retry_delay_seconds = models.FloatField(
        default=0.0,
        validators=[MinValueValidator(0.0), MaxValueValidator(MAX_RETRY_DELAY_SECONDS)],
    )
    retry_abort_on_identical_errors = models.BooleanField(default=True)

    relative_tolerance = models.FloatField(
        default=0.05,
        validators=_UNIT,
        help_text="A number this close (relative) to an evidence number, but not equal at the "
        "precision shown, is close-but-wrong rather than orphan.",
    )

    class Citations(models.TextChoices):
        NONE = "none", "None: reports need not cite their sources"
        REPORT = "report", "Report: the report cites its sources somewhere"
        CLAIMS = "claims", "Claims: every numeric claim carries a source reference"

    class FailingSeverity(models.TextChoices):
        CRITICAL = "critical", "Critical"
        MAJOR = "major", "Major"
        MINOR = "minor", "Minor"

    citations = models.CharField(
        max_length=10,
        choices=Citations.choices,
        default=Citations.CLAIMS,
        help_text="How strictly a report must cite its evidence (source metadata check).",
    )
    failing_severity = models.CharField(
        max_length=10,
        choices=FailingSeverity.choices,
        default=FailingSeverity.MAJOR,
        help_text="A check fails on a finding at least this severe; less severe findings "
        "are shown and only lower the confidence.",
    )
    fix_confidence_threshold = models.FloatField(
        default=0.90, validators=_UNIT, help_text="Default for bulk-accept on the review screen."
    )
    require_reject_reason = models.BooleanField(default=True)
    allow_validator_only_approval = models.BooleanField(
        default=False, help_text="APPROVE by the validator alone approves, without a sign-off."
    )
    claim_minutes = models.PositiveSmallIntegerField(
        default=30, validators=[MinValueValidator(1), MaxValueValidator(MAX_CLAIM_MINUTES)]
    )
    api_rate_per_minute = models.PositiveIntegerField(
        default=60_000,
        validators=[MinValueValidator(1)],
        help_text="Requests one API token may make per minute; more are answered 429.",
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "policy"
        constraints = [
            models.CheckConstraint(condition=Q(id=1), name="validation_policy_singleton"),
            models.CheckConstraint(
                condition=Q(retry_threshold__gte=0)
                & Q(revise_threshold__gte=F("retry_threshold"))
                & Q(approve_threshold__gte=F("revise_threshold"))
                & Q(approve_threshold__lte=1),
                name="validation_policy_thresholds_ordered",
            ),
            models.CheckConstraint(
                condition=Q(citations__in=["none", "report", "claims"]),
                name="validation_policy_citations_valid",
            ),
            models.CheckConstraint(
                condition=Q(failing_severity__in=["critical", "major", "minor"]),
                name="validation_policy_failing_severity_valid",
            ),
            models.CheckConstraint(
                condition=Q(max_total_loops__gte=F("max_revise_loops"))
                & Q(max_total_loops__gte=F("max_retry_loops")),
                name="validation_policy_loop_limits_consistent",
            ),
            models.CheckConstraint(
                condition=Q(max_revise_loops__lte=MAX_LOOPS)
                & Q(max_retry_loops__lte=MAX_LOOPS)
                & Q(max_total_loops__lte=MAX_TOTAL_LOOPS)
                & Q(retry_max_attempts__gte=1)
                & Q(retry_max_attempts__lte=10)
                & Q(retry_delay_seconds__gte=0)
                & Q(retry_delay_seconds__lte=MAX_RETRY_DELAY_SECONDS)
                & Q(relative_tolerance__gte=0)
                & Q(relative_tolerance__lte=1)
                & Q(fix_confidence_threshold__gte=0)
                & Q(fix_confidence_threshold__lte=1)
                & Q(claim_minutes__gte=1)
                & Q(claim_minutes__lte=MAX_CLAIM_MINUTES),
                name="validation_policy_field_ranges",
            ),
        ]

    def __str__(self) -> str:
        return "Validation policy"

    def save(self, *args: object, **kwargs: object) -> None:
        self.pk = 1
        super().save(*args, **kwargs)  # type: ignore[arg-type]

    def clean(self) -> None:
        errors: dict[str, str] = {}
        for name in (
            "approve_threshold",
            "revise_threshold",
            "retry_threshold",
            "relative_tolerance",
            "fix_confidence_threshold",
        ):
            value = getattr(self, name)
            if value is not None and not 0.0 <= value <= 1.0:
                errors[name] = f"Must be between 0 and 1 (got {value})."
        if not errors:
            if self.revise_threshold < self.retry_threshold:
                errors["revise_threshold"] = (
                    f"The REVISE threshold ({self.revise_threshold}) must not be below the "
                    f"RETRY threshold ({self.retry_threshold})."
                )
            if self.approve_threshold < self.revise_threshold:
                errors["approve_threshold"] = (
                    f"The APPROVE threshold ({self.approve_threshold}) must not be below the "
                    f"REVISE threshold ({self.revise_threshold})."
                )
        if self.max_total_loops < max(self.max_revise_loops, self.max_retry_loops):
            errors["max_total_loops"] = (
                "The total loop limit must be at least the larger of the REVISE and RETRY limits."
            )
        if errors:
            raise ValidationError(errors)

    @classmethod
    def load(cls) -> Policy:
        policy, _ = cls.objects.get_or_create(pk=1)
        return policy


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
    issues = models.JSONField(default=list, blank=True)
    revision_hints = models.TextField(blank=True)
    suggested_fixes = models.TextField(blank=True)
    numbers = models.JSONField(default=dict, blank=True)
    goal_scores = models.JSONField(default=list, blank=True)
    goal_decision = models.CharField(max_length=40, blank=True)
    markdown = models.TextField(blank=True, help_text="The seed §7 record of this attempt.")
    timings = models.JSONField(default=dict, blank=True)
    llm_call_count = models.PositiveIntegerField(default=0)
    tool_call_count = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)

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
        ]

    def __str__(self) -> str:
        return f"{self.analysis} · attempt {self.number}"


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

    class EditCheck(models.TextChoices):
        NONE = "", "As proposed"
        VERIFIED = "verified", "Edited — re-verified"
        UNVERIFIED = "unverified", "Edited — unverified"

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
        max_length=12, choices=EditCheck.choices, default=EditCheck.NONE, blank=True
    )
    edit_note = models.TextField(blank=True, help_text="What the re-verification of an edit found.")
    proposed_confidence = models.FloatField(
        null=True, blank=True, validators=_UNIT, help_text="The confidence as proposed."
    )

    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PROPOSED)
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    reviewed_at = models.DateTimeField(null=True, blank=True)
    reason = models.TextField(blank=True, help_text="Why it was rejected, or why it conflicts.")
    applied_in = models.ForeignKey(
        Revision, null=True, blank=True, on_delete=models.SET_NULL, related_name="applied_fixes"
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


class ApiToken(models.Model):
    """A REST API token. Only its sha256 is stored; the token itself is shown once."""

    class Scope(models.TextChoices):
        READ = "read", "Read"
        WRITE = "write", "Read and write"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=100, blank=True)
    scope = models.CharField(max_length=10, choices=Scope.choices, default=Scope.READ)
    # The first characters of the token, to tell tokens apart in the admin without the secret.
    prefix = models.CharField(max_length=12, editable=False)
    token_sha256 = models.CharField(max_length=64, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = "API token"
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["token_sha256"], name="validation_apitoken_hash_unique"
            ),
            models.CheckConstraint(
                condition=Q(scope__in=["read", "write"]), name="validation_apitoken_scope_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.user}, {self.scope})"

    @property
    def can_write(self) -> bool:
        return self.scope == self.Scope.WRITE
