"""Authentication that takes the user the session read (``validation.models.sessions``).

Django's ``get_user(request)`` asks the backend the session names for the user of the
session's user id, then checks the session hash against that user's password. The middleware
here lets the backend see the request's session while it answers (and only then), so the
backend answers with the user read together with the session instead of querying again;
Django's checks run unchanged. Without such a user (another session engine, an id that is
not the session's user), the backend reads the user as Django's does, with the reviewer
check in the same query.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

from django.contrib import auth
from django.contrib.auth import backends
from django.contrib.auth.middleware import AuthenticationMiddleware as DjangoMiddleware
from django.contrib.auth.models import User
from django.db.models import OuterRef
from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from validation.permissions import remember_reviewer_groups, reviewer_group_exists

_SESSION: ContextVar[Any] = ContextVar("redline_auth_session", default=None)


class ModelBackend(backends.ModelBackend):
    """Django's ModelBackend; a session's user comes from the session's own read."""

    def get_user(self, user_id: Any) -> User | None:
        user = getattr(_SESSION.get(), "user", None)
        if not isinstance(user, User) or str(user.pk) != str(user_id):
            users = User._default_manager.annotate(
                in_reviewer_group=reviewer_group_exists(OuterRef("pk"))
            )
            try:
                user = users.get(pk=user_id)
            except User.DoesNotExist:
                return None
            remember_reviewer_groups(user, user.in_reviewer_group)
        return user if self.user_can_authenticate(user) else None


def _user(request: HttpRequest) -> Any:
    if not hasattr(request, "_cached_user"):
        token = _SESSION.set(request.session)
        try:
            request._cached_user = auth.get_user(request)  # type: ignore[attr-defined]
        finally:
            _SESSION.reset(token)
    return request._cached_user  # type: ignore[attr-defined]


class AuthenticationMiddleware(DjangoMiddleware):
    """Django's middleware; `request.user` is read with the session's help (module doc)."""

    def process_request(self, request: HttpRequest) -> None:
        super().process_request(request)
        request.user = SimpleLazyObject(lambda: _user(request))  # type: ignore[assignment]
