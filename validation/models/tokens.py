"""REST API tokens: only a hash is stored; the token itself is shown once."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q

from analyses.models import Pipeline


class ApiToken(models.Model):
    """A REST API token. Only its sha256 is stored; the token itself is shown once."""

    class Scope(models.TextChoices):
        READ = "read", "Read"
        WRITE = "write", "Read and write"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    # The pipeline whose analyses it sends and (unless its user is a reviewer) sees.
    pipeline = models.ForeignKey(Pipeline, on_delete=models.PROTECT, related_name="api_tokens")
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
        return f"{self.prefix}… ({self.user}, {self.pipeline}, {self.scope})"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self.pipeline_id is None:
            self.pipeline = Pipeline.default()
        super().save(*args, **kwargs)

    @property
    def can_write(self) -> bool:
        return self.scope == self.Scope.WRITE


class ApiTokenEvent(models.Model):
    """Who created or revoked which token, for whom, and through what: never edited.

    The names are kept beside the links, so the record outlives a deleted user."""

    class Action(models.TextChoices):
        CREATED = "created", "Created"
        REVOKED = "revoked", "Revoked"

    class Via(models.TextChoices):
        ADMIN = "admin", "Django admin"
        COMMAND = "command", "manage.py api_token"

    action = models.CharField(max_length=10, choices=Action.choices)
    via = models.CharField(max_length=10, choices=Via.choices)
    token = models.ForeignKey(
        ApiToken, null=True, blank=True, on_delete=models.SET_NULL, related_name="events"
    )
    prefix = models.CharField(max_length=12)
    scope = models.CharField(max_length=10)
    # The person who acted (null on the command line: `actor_name` is the shell's user).
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    actor_name = models.CharField(max_length=200)
    # Whose token it is.
    subject = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    subject_name = models.CharField(max_length=200)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = "API token event"
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(action__in=["created", "revoked"]),
                name="validation_apitokenevent_action_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.actor_name} {self.action} {self.prefix}… for {self.subject_name}"
