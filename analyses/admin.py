"""Admin for analyses. Reports arrive through ingest (API or `import_bundles`) and change only
through revisions, so the admin shows them and lets an admin fix a title, no more."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.contrib import admin
from django.db import models
from django.db.models import Model
from django.http import HttpRequest

from analyses.models import Analysis, Evidence, Pipeline, Revision

admin.site.site_header = "Redline administration"
admin.site.site_title = "Redline admin"
admin.site.index_title = "Policy, users and records"


# A URL typed without its scheme is read as https (Django 6's default, said now).
URL_FIELDS: Mapping[type[models.Field[Any, Any]], Mapping[str, Any]] = {
    models.URLField: {"assume_scheme": "https"}
}


class ViewOnlyAdminMixin:
    """For records that are history: nobody adds, changes or deletes them in the admin."""

    def has_add_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False


class EvidenceInline(ViewOnlyAdminMixin, admin.TabularInline[Evidence, Analysis]):
    model = Evidence
    fields = ("source_ref", "kind", "url", "created_at")
    readonly_fields = fields
    show_change_link = True
    extra = 0


class RevisionInline(ViewOnlyAdminMixin, admin.TabularInline[Revision, Analysis]):
    model = Revision
    fields = ("number", "reason", "author", "created_at")
    readonly_fields = fields
    show_change_link = True
    extra = 0


@admin.register(Analysis)
class AnalysisAdmin(admin.ModelAdmin[Analysis]):
    list_display = (
        "id",
        "title",
        "status",
        "decision",
        "conviction",
        "pipeline",
        "submitter",
        "external_id",
        "revise_loops",
        "retry_loops",
        "created_at",
    )
    list_display_links = ("id", "title")
    list_filter = ("status", "pipeline", "decision", "conviction", "needs_new_input", "created_at")
    search_fields = ("title", "query", "external_id", "submitter__username")
    date_hierarchy = "created_at"
    list_select_related = ("submitter", "pipeline")
    inlines = (EvidenceInline, RevisionInline)
    fieldsets = (
        (None, {"fields": ("title", "query", "goals", "status", "needs_new_input")}),
        (
            "Structured fields",
            {"fields": ("decision", "conviction", "numeric_fields", "extra_fields")},
        ),
        ("Loops", {"fields": ("revise_loops", "retry_loops")}),
        (
            "Provenance",
            {
                "fields": (
                    "pipeline",
                    "submitter",
                    "external_id",
                    "bundle_sha256",
                    "created_at",
                    "updated_at",
                )
            },
        ),
        ("Claim", {"fields": ("claimed_by", "claimed_until")}),
    )
    # Status, loops and fields move only through the review services; the title is cosmetic.
    readonly_fields = (
        "query",
        "goals",
        "status",
        "needs_new_input",
        "decision",
        "conviction",
        "numeric_fields",
        "extra_fields",
        "revise_loops",
        "retry_loops",
        "pipeline",
        "submitter",
        "external_id",
        "bundle_sha256",
        "created_at",
        "updated_at",
        "claimed_by",
        "claimed_until",
    )

    def has_add_permission(self, request: HttpRequest) -> bool:
        # An analysis without revision 1 and an attempt would be broken: ingest creates them.
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Analysis | None = None) -> bool:
        # Deleting would take its revisions and audit trail with it; reject it in review instead.
        return False


@admin.register(Evidence)
class EvidenceAdmin(ViewOnlyAdminMixin, admin.ModelAdmin[Evidence]):
    """Attempts were judged against this evidence; new evidence comes as a new submission."""

    list_display = ("source_ref", "kind", "analysis", "url", "created_at")
    list_filter = ("kind",)
    search_fields = ("source_ref", "url", "content_text", "analysis__title")
    date_hierarchy = "created_at"
    list_select_related = ("analysis",)
    fields = ("analysis", "source_ref", "kind", "url", "content_text", "content_json", "created_at")
    readonly_fields = fields


@admin.register(Revision)
class RevisionAdmin(ViewOnlyAdminMixin, admin.ModelAdmin[Revision]):
    list_display = ("analysis", "number", "reason", "author", "created_at")
    list_filter = ("reason",)
    search_fields = ("analysis__title", "body")
    date_hierarchy = "created_at"
    list_select_related = ("analysis", "author")
    fields = ("analysis", "number", "reason", "author", "created_at", "body")
    readonly_fields = fields


@admin.register(Pipeline)
class PipelineAdmin(admin.ModelAdmin[Pipeline]):
    """Pipelines are configuration: an admin names, describes and (de)activates them; a
    pipeline is never deleted (its analyses keep it)."""

    list_display = ("slug", "name", "active", "created_at")
    list_filter = ("active",)
    search_fields = ("slug", "name")
    fields = ("slug", "name", "description", "active", "created_at")
    readonly_fields = ("created_at",)

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False
