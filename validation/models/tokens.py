"""REST API tokens: only a hash is stored; the token itself is shown once."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


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
