"""Admin for webhooks: a pipeline's endpoints (added with their secret shown once, rotated,
switched off) and every delivery with each of its tries, and a "redeliver" action."""

from __future__ import annotations

from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.forms import ModelForm, URLField
from django.http import HttpRequest

from analyses.admin import ViewOnlyAdminMixin
from validation.models import WEBHOOK_EVENTS, WebhookAttempt, WebhookDelivery, WebhookEndpoint
from validation.services.webhooks import (
    webhook_endpoint_add,
    webhook_events_parse,
    webhook_redeliver,
    webhook_secret_rotate,
    webhook_url_problem,
)


class WebhookEndpointForm(ModelForm[WebhookEndpoint]):
    url = URLField(label="URL", max_length=2000, assume_scheme="https")

    class Meta:
        model = WebhookEndpoint
        fields = ("pipeline", "url", "events", "active")
        help_texts = {"events": f"A JSON list of {', '.join(WEBHOOK_EVENTS)}; [] for all."}

    def clean_url(self) -> str:
        url = str(self.cleaned_data["url"]).strip()
        problem = webhook_url_problem(url)
        if problem:
            raise ValidationError(f"This URL is refused: {problem}.")
        return url

    def clean_events(self) -> list[str]:
        events = self.cleaned_data["events"] or []
        if not isinstance(events, list) or not all(isinstance(name, str) for name in events):
            raise ValidationError("A JSON list of event names.")
        try:
            return webhook_events_parse(events)
        except Exception as error:  # InvalidInput: its sentence is the message
            raise ValidationError(str(error)) from None


@admin.register(WebhookEndpoint)
class WebhookEndpointAdmin(admin.ModelAdmin[WebhookEndpoint]):
    form = WebhookEndpointForm
    list_display = ("url", "pipeline", "events", "active", "created_at")
    list_filter = ("pipeline", "active")
    actions = ["rotate_secret"]

    def save_model(
        self,
        request: HttpRequest,
        obj: WebhookEndpoint,
        form: ModelForm[WebhookEndpoint],
        change: bool,
    ) -> None:
        if change:
            super().save_model(request, obj, form, change)
            return
        endpoint, secret = webhook_endpoint_add(
            pipeline=obj.pipeline, url=obj.url, events=obj.events or []
        )
        if not obj.active:
            WebhookEndpoint.objects.filter(pk=endpoint.pk).update(active=False)
        obj.pk, obj.secret, obj.created_at = endpoint.pk, endpoint.secret, endpoint.created_at
        messages.warning(request, f"The endpoint's signing secret (shown once): {secret}")

    @admin.action(description="Rotate the secret (the old one also signs for a day)")
    def rotate_secret(self, request: HttpRequest, queryset: QuerySet[WebhookEndpoint]) -> None:
        for endpoint in queryset:
            secret = webhook_secret_rotate(endpoint=endpoint)
            messages.warning(request, f"New secret of {endpoint.url} (shown once): {secret}")


class WebhookAttemptInline(
    ViewOnlyAdminMixin, admin.TabularInline[WebhookAttempt, WebhookDelivery]
):
    model = WebhookAttempt
    fields = ("number", "started_at", "status_code", "latency_ms", "error")
    readonly_fields = fields
    extra = 0


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(ViewOnlyAdminMixin, admin.ModelAdmin[WebhookDelivery]):
    list_display = (
        "event_type",
        "event_id",
        "endpoint",
        "status",
        "attempts",
        "last_status_code",
        "last_latency_ms",
        "created_at",
        "delivered_at",
    )
    list_filter = ("status", "event_type", "endpoint__pipeline")
    list_select_related = ("endpoint__pipeline",)
    readonly_fields = tuple(
        field.name
        for field in WebhookDelivery._meta.concrete_fields
        if field.name not in ("id", "run_token")
    )
    inlines = [WebhookAttemptInline]
    actions = ["redeliver"]

    def has_redeliver_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("validation.change_webhookdelivery")

    @admin.action(description="Redeliver the selected deliveries", permissions=["redeliver"])
    def redeliver(self, request: HttpRequest, queryset: QuerySet[WebhookDelivery]) -> None:
        for delivery in queryset:
            webhook_redeliver(delivery=delivery)
        messages.success(request, f"Queued {queryset.count()} deliveries again.")
