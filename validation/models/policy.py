"""The Policy: the admin-tunable settings of validation and review. The default one (pk=1,
no pipeline) judges every pipeline that has none of its own.

Its engine settings (``engine_field``) take their default, range and choices from the engine's
``EngineSettings`` (``validation.models.engine_fields``); the rest are the Policy's own."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import F, Q

from analyses.models import Pipeline
from validation.engine.outbound import Profile, url_problem
from validation.engine.types import CHECK_LABELS, CHECK_NAMES, EngineSettings
from validation.models.engine_fields import (
    Between,
    engine_constraints,
    engine_field,
    engine_setting_names,
)

_UNIT = [MinValueValidator(0.0), MaxValueValidator(1.0)]
# Sane ranges for the Policy's counts and delays; the database holds the same bounds
# (validation_policy_field_ranges), so neither a form nor a script can store 99999999 loops
# or a 1e308-second retry delay.
MAX_LOOPS = 10
MAX_TOTAL_LOOPS = 20
MAX_RETRY_DELAY_SECONDS = 60.0
MAX_CLAIM_MINUTES = 24 * 60


CHECK_CHOICES = [(name, CHECK_LABELS[name].capitalize()) for name in CHECK_NAMES]


DEFAULT_POLICY_ID = 1


class Policy(models.Model):
    """The admin-tuned settings, edited in Django admin or `manage.py policy`: the default
    (pk=1, no pipeline), and at most one per pipeline."""

    pipeline = models.OneToOneField(
        Pipeline,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="policy",
        help_text="Blank: the default policy, for every pipeline without its own.",
    )
    approve_threshold = engine_field("approve_threshold")
    revise_threshold = engine_field("revise_threshold")
    retry_threshold = engine_field("retry_threshold")

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
    retry_success_rate_threshold = models.FloatField(
        default=0.5,
        validators=_UNIT,
        help_text="Warn when fewer re-asked judge answers than this share recover.",
    )

    # The LLM endpoint: REDLINE_LLM_* in the environment, overridden here when set (the key
    # stays in the environment). Without a base URL anywhere the path is deterministic.
    llm_enabled = models.BooleanField(
        "LLM enabled",
        default=True,
        help_text="Run the LLM judge and fixer when an endpoint is configured.",
    )
    llm_base_url = models.URLField(
        "LLM base URL",
        max_length=2000,
        blank=True,
        help_text="Blank: REDLINE_LLM_BASE_URL. The API key is only sent to the base URL of "
        "the environment. http(s) only; link-local and cloud metadata addresses are refused "
        "unless REDLINE_LLM_ALLOWED_HOSTS lists the host.",
    )
    llm_model = models.CharField(
        "LLM model", max_length=200, blank=True, help_text="Blank: REDLINE_LLM_MODEL."
    )
    llm_timeout_seconds = models.FloatField(
        "LLM timeout (seconds)",
        null=True,
        blank=True,
        validators=[MinValueValidator(0.1), MaxValueValidator(600.0)],
        help_text="One request. Blank: REDLINE_LLM_TIMEOUT (30).",
    )
    llm_max_tokens = models.PositiveIntegerField(
        "LLM max tokens",
        null=True,
        blank=True,
        validators=[MinValueValidator(16), MaxValueValidator(32_000)],
        help_text="One answer. Blank: REDLINE_LLM_MAX_TOKENS (1024).",
    )
    llm_temperature = models.FloatField(
        "LLM temperature",
        null=True,
        blank=True,
        validators=[MinValueValidator(0.0), MaxValueValidator(2.0)],
        help_text="Blank: REDLINE_LLM_TEMPERATURE (0).",
    )
    # The token budget: the model's context window (a prompt never overflows it) and the
    # evidence the judge sees within it.
    llm_context_tokens = models.PositiveIntegerField(
        "LLM context (tokens)",
        null=True,
        blank=True,
        validators=[MinValueValidator(1024), MaxValueValidator(2_000_000)],
        help_text="The model's context window; prompts are cut to fit it with the answer. "
        "Blank: REDLINE_LLM_CONTEXT_TOKENS (8192).",
    )
    llm_evidence_tokens = models.PositiveIntegerField(
        "LLM evidence budget (tokens)",
        null=True,
        blank=True,
        validators=[MinValueValidator(100), MaxValueValidator(200_000)],
        help_text="Evidence the judge sees, at most (cut further to fit the context). "
        "Blank: REDLINE_LLM_EVIDENCE_TOKENS (3000).",
    )

    relative_tolerance = engine_field(
        "relative_tolerance",
        help_text="A number this close (relative) to an evidence number, but not equal at the "
        "precision shown, is close-but-wrong rather than orphan.",
    )

    citations = engine_field(
        "citations",
        labels={
            "none": "None: reports need not cite their sources",
            "report": "Report: the report cites its sources somewhere",
            "claims": "Claims: every numeric claim carries a source reference",
        },
        help_text="How strictly a report must cite its evidence (source metadata check).",
    )
    failing_severity = engine_field(
        "failing_severity",
        help_text="A check fails on a finding at least this severe; less severe findings "
        "are shown and only lower the confidence.",
    )
    fix_confidence_threshold = models.FloatField(
        default=0.90,
        validators=[Between(0, 1)],
        help_text="Default for bulk-accept on the review screen.",
    )
    require_reject_reason = models.BooleanField(default=True)
    allow_validator_only_approval = models.BooleanField(
        default=False, help_text="APPROVE by the validator alone approves, without a sign-off."
    )
    # Off (the default): a validator FAIL lands in review like RETRY and REVISE, and a person
    # rejects it, fixes it or signs it off against the validator with a comment.
    fail_ends_analysis = models.BooleanField(
        "FAIL ends the analysis",
        default=False,
        help_text="On: a validator FAIL marks the analysis Failed at once, with no person "
        "involved (the pipeline may still send a new draft while loops remain). Off: it "
        "lands in review.",
    )
    claim_minutes = models.PositiveSmallIntegerField(
        default=30, validators=[MinValueValidator(1), MaxValueValidator(MAX_CLAIM_MINUTES)]
    )
    api_rate_per_minute = models.PositiveIntegerField(
        "API rate per minute",
        default=60_000,
        validators=[MinValueValidator(1)],
        help_text="Requests one API token may make per minute; more are answered 429.",
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "policy"
        constraints = [
            # One default (pk=1, no pipeline); every other row belongs to a pipeline.
            models.CheckConstraint(
                condition=Q(id=DEFAULT_POLICY_ID, pipeline__isnull=True)
                | (~Q(id=DEFAULT_POLICY_ID) & Q(pipeline__isnull=False)),
                name="validation_policy_default_or_pipeline",
            ),
            models.CheckConstraint(
                condition=Q(revise_threshold__gte=F("retry_threshold"))
                & Q(approve_threshold__gte=F("revise_threshold")),
                name="validation_policy_thresholds_ordered",
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
                & Q(fix_confidence_threshold__gte=0)
                & Q(fix_confidence_threshold__lte=1)
                & Q(claim_minutes__gte=1)
                & Q(claim_minutes__lte=MAX_CLAIM_MINUTES),
                name="validation_policy_field_ranges",
            ),
        ]

    def __str__(self) -> str:
        if self.pipeline_id is None:
            return "Validation policy (default)"
        return f"Validation policy of {self.pipeline}"

    def save(self, *args: object, **kwargs: object) -> None:
        if self.pipeline_id is None:
            self.pk = DEFAULT_POLICY_ID
        elif self.pk is None:
            # An explicit id: the default row was inserted with pk=1, which PostgreSQL's
            # sequence never saw, so the sequence could hand out 1 again.
            last = Policy.objects.order_by("-pk").values_list("pk", flat=True).first()
            self.pk = max(last or 0, DEFAULT_POLICY_ID) + 1
        super().save(*args, **kwargs)  # type: ignore[arg-type]

    def clean(self) -> None:
        """What no one field's validators can check: the thresholds' order, the loop limits
        against each other, the LLM base URL against the allowed hosts."""
        errors: dict[str, str] = {}
        approve, revise, retry = self.approve_threshold, self.revise_threshold, self.retry_threshold
        if None not in (approve, revise, retry):
            if revise < retry:
                errors["revise_threshold"] = (
                    f"The REVISE threshold ({revise}) must not be below the "
                    f"RETRY threshold ({retry})."
                )
            if approve < revise:
                errors["approve_threshold"] = (
                    f"The APPROVE threshold ({approve}) must not be below the "
                    f"REVISE threshold ({revise})."
                )
        if self.max_total_loops < max(self.max_revise_loops, self.max_retry_loops):
            errors["max_total_loops"] = (
                "The total loop limit must be at least the larger of the REVISE and RETRY limits."
            )
        if self.llm_base_url:
            problem = url_problem(
                self.llm_base_url, Profile.LLM, settings.REDLINE_LLM_ALLOWED_HOSTS
            )
            if problem:
                errors["llm_base_url"] = f"This URL {problem}."
        if errors:
            raise ValidationError(errors)

    def engine_settings(self) -> EngineSettings:
        """The engine settings this Policy carries; EngineSettings' defaults for the rest."""
        return EngineSettings(**{name: getattr(self, name) for name in ENGINE_SETTINGS})

    def settings_snapshot(self) -> dict[str, object]:
        """Every setting of this Policy as JSON values (what an attempt records it ran with)."""
        return {name: getattr(self, name) for name in POLICY_SETTINGS}

    @classmethod
    def load(cls) -> Policy:
        """The default policy."""
        policy, _ = cls.objects.get_or_create(pk=DEFAULT_POLICY_ID)
        return policy

    @classmethod
    def for_pipeline(cls, pipeline_id: int | None) -> Policy:
        """The pipeline's own policy, or the default when it has none (one query)."""
        if pipeline_id is None:
            return cls.load()
        found = (
            cls.objects.filter(Q(pipeline_id=pipeline_id) | Q(pk=DEFAULT_POLICY_ID))
            .order_by(F("pipeline_id").asc(nulls_last=True))
            .first()
        )
        return found if found is not None else cls.load()


# Every setting a Policy holds (what `manage.py policy` shows and sets, and what an attempt
# records), in the order of the fields.
POLICY_SETTINGS = tuple(
    field.name
    for field in Policy._meta.concrete_fields
    if field.name not in ("id", "pipeline", "updated_at")
)
# The engine settings the Policy carries, and the database's check of each one's range or
# choices, both derived from its fields (a constraint needs the finished class to be derived).
ENGINE_SETTINGS = tuple(engine_setting_names(Policy))
Policy._meta.constraints = [
    *Policy._meta.constraints,
    *engine_constraints("validation_policy", list(ENGINE_SETTINGS)),
]
