from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any, NoReturn

from django.conf import settings
from django.db import models
from django.db.models import Q

from validation.engine.types import EvidenceItem, ExtractedFields

DEFAULT_PIPELINE_SLUG = "default"


class Pipeline(models.Model):
    """A source of reports (an agent, a service): its API tokens send analyses into it, its
    own Policy judges them (or the default one), its webhook endpoints hear what happens."""

    name = models.CharField(max_length=100)
    slug = models.SlugField(max_length=50, unique=True)
    description = models.TextField(blank=True)
    # An inactive pipeline's tokens are refused: a pipeline is retired, never deleted.
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["slug"]

    def __str__(self) -> str:
        return self.slug

    @classmethod
    def default(cls) -> Pipeline:
        """The pipeline of analyses that came with no token (the shell, the demo)."""
        pipeline, _ = cls.objects.get_or_create(
            slug=DEFAULT_PIPELINE_SLUG, defaults={"name": "Default"}
        )
        return pipeline


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
    # The pipeline that sent it (its token's): its Policy judges it, its webhooks hear of it.
    pipeline = models.ForeignKey(Pipeline, on_delete=models.PROTECT, related_name="analyses")
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
                fields=["pipeline", "external_id"],
                condition=~Q(external_id=""),
                name="analyses_analysis_external_id_unique_per_pipeline",
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

    def save(self, *args: Any, **kwargs: Any) -> None:
        # Made without a pipeline (the shell, a fixture): the default one sent it.
        if self.pipeline_id is None:
            self.pipeline = Pipeline.default()
        super().save(*args, **kwargs)

    @property
    def is_open(self) -> bool:
        return self.status in (self.Status.VALIDATING, self.Status.IN_REVIEW)

    # Structured fields: the engine reads them from a report (validation.engine.fields); these
    # three methods are the one place that converts between them and the columns.

    def extracted_fields(self) -> ExtractedFields:
        """The stored fields in the engine's form (the `previous` of a re-read)."""
        numeric: dict[str, Decimal] = {}
        for name, value in (self.numeric_fields or {}).items():
            try:
                number = Decimal(str(value))
            except InvalidOperation:
                continue
            if number.is_finite():
                numeric[name] = number
        return ExtractedFields(
            decision=self.decision or None, conviction=self.conviction or None, numeric=numeric
        )

    def bundle_fields(self) -> dict[str, Any]:
        """The stored fields as a bundle's `fields` mapping (the engine's input)."""
        fields: dict[str, Any] = dict(self.numeric_fields or {})
        if self.decision:
            fields["decision"] = self.decision
        if self.conviction:
            fields["conviction"] = self.conviction
        return fields

    def take_extracted_fields(self, extracted: ExtractedFields) -> list[str]:
        """Copy what could be read into the columns (not saved); a field that could not be
        read keeps its value (never emptied). Returns the names of the columns that changed."""
        changed: list[str] = []
        for name in ("decision", "conviction"):
            value = getattr(extracted, name)
            if value and value.strip():
                label = value.strip().upper()[:20]
                if getattr(self, name) != label:
                    setattr(self, name, label)
                    changed.append(name)
        numeric = dict(self.numeric_fields or {})
        for name, number in extracted.numeric.items():
            if number.is_finite() and numeric.get(name) != str(number):
                numeric[name] = str(number)
        if numeric != (self.numeric_fields or {}):
            self.numeric_fields = numeric
            changed.append("numeric_fields")
        return changed


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

    # The columns an evidence item fills: the one builder of evidence rows (ingest and new
    # evidence alike) writes these and only these.
    ITEM_FIELDS = ("kind", "url", "content_text", "content_json")

    @classmethod
    def from_item(cls, analysis: Analysis, item: EvidenceItem) -> Evidence:
        """An unsaved row for the engine's evidence item (text or JSON, never both)."""
        text = item.content if isinstance(item.content, str) else ""
        data = None if isinstance(item.content, str) else item.content
        return cls(
            analysis=analysis,
            source_ref=item.source_ref,
            kind=item.kind,
            url=(item.url or "").strip(),
            content_text=text,
            content_json=data,
        )

    def as_item(self) -> EvidenceItem:
        """This row as the engine's input."""
        return EvidenceItem(
            source_ref=self.source_ref,
            kind=self.kind or Evidence.Kind.TEXT,
            url=self.url or None,
            content=self.content,
        )


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

    def delete(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise ImmutableError("A revision is never deleted.")
