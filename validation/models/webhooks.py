"""Webhooks: a pipeline's endpoints, and every delivery to them with each try.

The delivery row is the job (as the Attempt row is for validation): the broker message only
wakes a worker, and a sweeper re-sends deliveries that are due, so a worker killed mid-POST
leads to another POST, never to a lost event."""

from __future__ import annotations

import uuid

from django.db import models
from django.db.models import Q

from analyses.models import Analysis, Pipeline

# The events a pipeline can hear; an endpoint listening to none listens to all.
WEBHOOK_EVENTS = (
    "analysis.validated",
    "analysis.in_review",
    "analysis.approved",
    "analysis.rejected",
    "analysis.failed",
    "revision.applied",
)


class WebhookEndpoint(models.Model):
    """Where a pipeline hears of its analyses: a URL, its signing secret, the events."""

    pipeline = models.ForeignKey(Pipeline, on_delete=models.CASCADE, related_name="webhooks")
    url = models.URLField("URL", max_length=2000)
    secret = models.CharField(max_length=100, editable=False)
    # After a rotation the old secret signs too (a second v1=) until this moment, so that
    # a receiver can switch secrets without missing a delivery.
    previous_secret = models.CharField(max_length=100, blank=True, editable=False)
    previous_secret_until = models.DateTimeField(null=True, blank=True, editable=False)
    events = models.JSONField(default=list, blank=True, help_text="Empty: every event.")
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = "webhook endpoint"
        ordering = ["pipeline_id", "id"]

    def __str__(self) -> str:
        return f"{self.pipeline} → {self.url}"

    def listens_to(self, event_type: str) -> bool:
        return not self.events or event_type in self.events


class WebhookDelivery(models.Model):
    """One event for one endpoint: its body as sent, and where its delivery stands."""

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        DELIVERED = "delivered", "Delivered"
        FAILED = "failed", "Failed (given up)"

    endpoint = models.ForeignKey(
        WebhookEndpoint, on_delete=models.CASCADE, related_name="deliveries"
    )
    event_id = models.UUIDField(default=uuid.uuid4, editable=False)
    event_type = models.CharField(max_length=40)
    analysis = models.ForeignKey(
        Analysis, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # The JSON body, exactly as signed and sent on every try.
    body = models.TextField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    # When a pending delivery is next due: after a failure, its backoff; during a try, the
    # try's lease (a worker killed mid-try leaves it due again once the lease has passed).
    next_attempt_at = models.DateTimeField()
    attempts = models.PositiveIntegerField(default=0)
    run_token = models.CharField(max_length=40, blank=True, editable=False)
    last_status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    last_latency_ms = models.FloatField(null=True, blank=True)
    last_error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "webhook deliveries"
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["endpoint", "event_id"], name="validation_webhookdelivery_event_unique"
            ),
            models.CheckConstraint(
                condition=Q(status__in=["pending", "delivered", "failed"]),
                name="validation_webhookdelivery_status_valid",
            ),
        ]
        indexes = [
            # The sweeper: pending deliveries by due time.
            models.Index(
                fields=["next_attempt_at"],
                condition=Q(status="pending"),
                name="validation_webhook_due_idx",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.event_type} {self.event_id} → {self.endpoint.url}"


class WebhookAttempt(models.Model):
    """One try of a delivery: the answer's status code (or the error) and how long it took."""

    delivery = models.ForeignKey(WebhookDelivery, on_delete=models.CASCADE, related_name="tries")
    number = models.PositiveIntegerField()
    started_at = models.DateTimeField()
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    latency_ms = models.FloatField(default=0.0)
    error = models.TextField(blank=True)

    class Meta:
        verbose_name = "webhook try"
        ordering = ["delivery_id", "number"]

    def __str__(self) -> str:
        return f"try {self.number}: {self.status_code or self.error[:40]}"
