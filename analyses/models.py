from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q


class Analysis(models.Model):
    """One report under validation."""

    class Status(models.TextChoices):
        VALIDATING = "validating", "Validating"
        IN_REVIEW = "in_review", "In review"
        APPROVED = "approved", "Approved"
        FAILED = "failed", "Failed"
        REJECTED = "rejected", "Rejected"

    title = models.CharField(max_length=300, blank=True)
    query = models.TextField()
    goals = models.JSONField(default=list, blank=True)
    # Structured fields re-read from the report; a field that cannot be re-read keeps its value.
    decision = models.CharField(max_length=20, blank=True)
    conviction = models.CharField(max_length=20, blank=True)
    numeric_fields = models.JSONField(default=dict, blank=True)
    extra_fields = models.JSONField(default=dict, blank=True)

    status = models.CharField(max_length=20, choices=Status.choices, default=Status.VALIDATING)
    # RETRY means the evidence or approach is wrong: the pipeline must send new evidence or a draft.
    needs_new_input = models.BooleanField(default=False)
    revise_loops = models.PositiveSmallIntegerField(default=0)
    retry_loops = models.PositiveSmallIntegerField(default=0)

    submitter = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="submitted_analyses",
    )
    external_id = models.CharField(max_length=200, blank=True)
    # sha256 of the bundle as ingested: a re-sent external_id is a no-op only for equal content.
    bundle_sha256 = models.CharField(max_length=64, blank=True, editable=False)

    claimed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="claimed_analyses",
    )
    claimed_until = models.DateTimeField(null=True, blank=True)

    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "analyses"
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["submitter", "external_id"],
                condition=~Q(external_id=""),
                name="analyses_analysis_external_id_unique_per_submitter",
            ),
            models.CheckConstraint(
                condition=Q(
                    status__in=["validating", "in_review", "approved", "failed", "rejected"]
                ),
                name="analyses_analysis_status_valid",
            ),
            models.CheckConstraint(
                condition=Q(claimed_by__isnull=True) | Q(claimed_until__isnull=False),
                name="analyses_analysis_claim_has_expiry",
            ),
        ]
        indexes = [
            # The queue: analyses by status, oldest first ("next" takes the oldest unclaimed).
            models.Index(fields=["status", "created_at"], name="analyses_status_created_idx"),
        ]

    def __str__(self) -> str:
        return self.title or f"Analysis {self.pk}"

    @property
    def is_open(self) -> bool:
        return self.status in (self.Status.VALIDATING, self.Status.IN_REVIEW)


class Evidence(models.Model):
    """What the report may rely on. Content is text or JSON, never both."""

    class Kind(models.TextChoices):
        TOOL_OUTPUT = "tool_output", "Tool output"
        WORKFLOW_RESULT = "workflow_result", "Workflow result"
        CONTEXT = "context", "Gathered context"
        SOURCE = "source", "Source document"
        TEXT = "text", "Text"

    analysis = models.ForeignKey(Analysis, on_delete=models.CASCADE, related_name="evidence")
    source_ref = models.CharField(max_length=200)
    kind = models.CharField(max_length=40, default=Kind.TEXT)
    url = models.URLField(max_length=2000, blank=True)
    content_text = models.TextField(blank=True)
    content_json = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "evidence"
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["analysis", "source_ref"], name="analyses_evidence_source_ref_unique"
            ),
            models.CheckConstraint(
                condition=Q(content_json__isnull=True) | Q(content_text=""),
                name="analyses_evidence_text_or_json",
            ),
        ]

    def __str__(self) -> str:
        return self.source_ref

    @property
    def content(self) -> Any:
        return self.content_json if self.content_json is not None else self.content_text


class ImmutableError(Exception):
    pass


class Revision(models.Model):
    """An immutable version of the report body. Revision 1 is the draft as received."""

    class Reason(models.TextChoices):
        DRAFT = "draft", "Draft as received"
        FIXES_APPLIED = "fixes_applied", "Accepted fixes applied"
        NEW_DRAFT = "new_draft", "New draft submitted"
        NEW_EVIDENCE = "new_evidence", "New evidence submitted"

    analysis = models.ForeignKey(Analysis, on_delete=models.CASCADE, related_name="revisions")
    number = models.PositiveIntegerField()
    body = models.TextField()
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    reason = models.CharField(max_length=20, choices=Reason.choices, default=Reason.DRAFT)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["analysis_id", "number"]
        constraints = [
            models.UniqueConstraint(
                fields=["analysis", "number"], name="analyses_revision_number_unique"
            ),
            models.CheckConstraint(
                condition=Q(number__gte=1), name="analyses_revision_number_positive"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.analysis} · revision {self.number}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise ImmutableError("A revision is immutable; create the next one instead.")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> Any:
        raise ImmutableError("A revision is never deleted.")
