"""Admin for validation. Attempts, findings, fixes, tool and LLM calls and the audit trail are
records of what happened: view only. Reviews happen on the review screen. The Policy is the
one thing an admin edits here. Users, groups and API tokens: ``validation.admin_access``."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import Model
from django.http import HttpRequest

from analyses.admin import URL_FIELDS, ViewOnlyAdminMixin
from analyses.models import Pipeline
from validation import (
    admin_access,  # noqa: F401  (users, groups, tokens: least privilege)
    admin_webhooks,  # noqa: F401  (endpoints and deliveries)
)
from validation.models import (
    Attempt,
    AuditEvent,
    Finding,
    Fix,
    LLMCall,
    Policy,
    ToolCall,
)
from validation.models.policy import ENGINE_SETTINGS


def _all_fields(model: type[Model]) -> tuple[str, ...]:
    return tuple(f.name for f in model._meta.concrete_fields if f.name != "id")


class FindingInline(ViewOnlyAdminMixin, admin.TabularInline[Finding, Attempt]):
    model = Finding
    fields = ("check_name", "kind", "severity", "message", "start", "end")
    readonly_fields = fields
    show_change_link = True
    extra = 0


class FixInline(ViewOnlyAdminMixin, admin.TabularInline[Fix, Attempt]):
    model = Fix
    fk_name = "attempt"
    fields = ("kind", "origin", "find", "replace", "confidence", "status")
    readonly_fields = fields
    show_change_link = True
    extra = 0


class ToolCallInline(ViewOnlyAdminMixin, admin.TabularInline[ToolCall, Attempt | Fix]):
    model = ToolCall
    fields = ("tool", "input", "output", "error", "duration_ms")
    readonly_fields = fields
    extra = 0


class LLMCallInline(ViewOnlyAdminMixin, admin.TabularInline[LLMCall, Attempt]):
    model = LLMCall
    fields = ("purpose", "model", "prompt_tokens", "completion_tokens", "latency_ms", "error")
    readonly_fields = fields
    show_change_link = True
    extra = 0


@admin.register(Attempt)
class AttemptAdmin(ViewOnlyAdminMixin, admin.ModelAdmin[Attempt]):
    list_display = (
        "id",
        "analysis",
        "number",
        "loop_kind",
        "status",
        "decision",
        "confidence",
        "tool_call_count",
        "llm_call_count",
        "queued_at",
        "finished_at",
    )
    list_filter = ("status", "decision", "loop_kind")
    search_fields = ("analysis__title", "error", "revision_hints", "suggested_fixes")
    date_hierarchy = "queued_at"
    list_select_related = ("analysis",)
    readonly_fields = _all_fields(Attempt)
    inlines = (FindingInline, FixInline, ToolCallInline, LLMCallInline)


@admin.register(Finding)
class FindingAdmin(ViewOnlyAdminMixin, admin.ModelAdmin[Finding]):
    list_display = ("id", "attempt", "check_name", "kind", "severity", "message")
    list_filter = ("check_name", "severity", "kind")
    search_fields = ("message", "text", "attempt__analysis__title")
    list_select_related = ("attempt__analysis",)
    readonly_fields = _all_fields(Finding)


@admin.register(Fix)
class FixAdmin(ViewOnlyAdminMixin, admin.ModelAdmin[Fix]):
    """Fixes are accepted, rejected and edited on the review screen, which keeps the audit trail."""

    list_display = ("id", "revision", "kind", "origin", "status", "confidence", "reviewer")
    list_filter = ("status", "origin", "kind")
    search_fields = ("find", "replace", "verified_with", "revision__analysis__title")
    date_hierarchy = "reviewed_at"
    list_select_related = ("revision__analysis", "reviewer")
    readonly_fields = _all_fields(Fix)
    inlines = (ToolCallInline,)


@admin.register(ToolCall)
class ToolCallAdmin(ViewOnlyAdminMixin, admin.ModelAdmin[ToolCall]):
    list_display = ("id", "tool", "attempt", "fix", "duration_ms", "has_error", "created_at")
    list_filter = ("tool",)
    search_fields = ("tool", "output", "error")
    date_hierarchy = "created_at"
    list_select_related = ("attempt__analysis",)
    readonly_fields = _all_fields(ToolCall)

    @admin.display(boolean=True, description="error")
    def has_error(self, obj: ToolCall) -> bool:
        return bool(obj.error)


@admin.register(LLMCall)
class LLMCallAdmin(ViewOnlyAdminMixin, admin.ModelAdmin[LLMCall]):
    list_display = (
        "id",
        "purpose",
        "model",
        "attempt",
        "prompt_tokens",
        "completion_tokens",
        "latency_ms",
        "created_at",
    )
    list_filter = ("purpose", "model")
    search_fields = ("model", "response", "error")
    date_hierarchy = "created_at"
    list_select_related = ("attempt__analysis",)
    readonly_fields = _all_fields(LLMCall)


@admin.register(AuditEvent)
class AuditEventAdmin(ViewOnlyAdminMixin, admin.ModelAdmin[AuditEvent]):
    list_display = ("created_at", "analysis", "action", "actor", "comment")
    list_filter = ("action",)
    search_fields = ("analysis__title", "actor__username", "comment")
    date_hierarchy = "created_at"
    list_select_related = ("analysis", "actor")
    readonly_fields = _all_fields(AuditEvent)


def _with_every_engine_setting(fieldsets: Any) -> Any:
    """`fieldsets`, plus an engine setting newly on the Policy that none of them places yet."""
    placed = {name for _, options in fieldsets for name in options["fields"]}
    unplaced = tuple(name for name in ENGINE_SETTINGS if name not in placed)
    return (*fieldsets, ("Other engine settings", {"fields": unplaced})) if unplaced else fieldsets


@admin.register(Policy)
class PolicyAdmin(admin.ModelAdmin[Policy]):
    """The default policy and the pipelines' own. Changing one needs
    `validation.change_policy` (the admin group); a reviewer with `view_policy` sees them
    read-only. A new policy is a pipeline's (the default exists from the first migrate)."""

    list_display = ("__str__", "approve_threshold", "citations", "max_total_loops", "updated_at")
    formfield_overrides = URL_FIELDS
    fieldsets = (
        ("Pipeline", {"fields": ("pipeline",)}),
        (
            "Decision thresholds",
            {
                "fields": ("approve_threshold", "revise_threshold", "retry_threshold"),
                "description": "APPROVE ≥ approve, REVISE ≥ revise, RETRY ≥ retry, else FAIL. "
                "Each between 0 and 1, in that order.",
            },
        ),
        ("Loop limits", {"fields": ("max_revise_loops", "max_retry_loops", "max_total_loops")}),
        (
            "LLM endpoint",
            {
                "fields": (
                    "llm_enabled",
                    "llm_base_url",
                    "llm_model",
                    "llm_timeout_seconds",
                    "llm_max_tokens",
                    "llm_temperature",
                    "llm_context_tokens",
                    "llm_evidence_tokens",
                ),
                "description": "Blank fields take REDLINE_LLM_* from the environment; the API "
                "key is only set there (REDLINE_LLM_API_KEY) and only sent to its base URL. "
                "Without a base URL anywhere, validation is deterministic.",
            },
        ),
        (
            "LLM judge retry",
            {
                "fields": (
                    "retry_enabled",
                    "retry_max_attempts",
                    "retry_delay_seconds",
                    "retry_abort_on_identical_errors",
                    "retry_success_rate_threshold",
                )
            },
        ),
        (
            "Checks",
            {
                "fields": ("failing_severity", "citations"),
                "description": "A check fails on findings at or above the failing severity; "
                "less severe ones lower the confidence. Citations: how strictly a report "
                "must cite its evidence.",
            },
        ),
        ("Numbers and fixes", {"fields": ("relative_tolerance", "fix_confidence_threshold")}),
        ("REST API", {"fields": ("api_rate_per_minute",)}),
        (
            "Review",
            {
                "fields": (
                    "require_reject_reason",
                    "allow_validator_only_approval",
                    "claim_minutes",
                    "updated_at",
                )
            },
        ),
    )
    fieldsets = _with_every_engine_setting(fieldsets)

    def get_readonly_fields(
        self, request: HttpRequest, obj: Policy | None = None
    ) -> tuple[str, ...]:
        # Whose policy it is never changes; the default stays the default.
        return ("updated_at", "pipeline") if obj is not None else ("updated_at",)

    def formfield_for_foreignkey(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        if db_field.name == "pipeline":
            kwargs["required"] = True  # a new policy is a pipeline's
            kwargs["queryset"] = Pipeline.objects.filter(policy__isnull=True)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def has_delete_permission(self, request: HttpRequest, obj: Policy | None = None) -> bool:
        # A pipeline's own policy may go (the default judges it again); never the default.
        return (
            obj is not None
            and obj.pipeline_id is not None
            and super().has_delete_permission(request, obj)
        )
