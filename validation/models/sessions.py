"""Sessions that read their user with them: the session engine (``SESSION_ENGINE``).

Django's database sessions, with the session's user id in a column of its own, so the one
query that reads a session also reads its user and whether the user is in a reviewer group.
Every page and review action then costs one query less for the user and one less for the
reviewer check. The user read here is only offered to the authentication backend
(``project.auth``); Django's own checks (the backend the session names, the session hash
against the password, an active user) run on it as on any user.

The column is written from the session data on every save, and the session data stays the
truth: the user read with a session is used only when its id is the session data's. Deleting
a user deletes their sessions.
"""

from __future__ import annotations

import logging
from typing import Any, cast

from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.contrib.auth.models import User
from django.contrib.sessions.backends import db
from django.contrib.sessions.base_session import AbstractBaseSession
from django.core.exceptions import SuspiciousOperation
from django.db import models
from django.db.models import OuterRef
from django.utils import timezone

from validation.permissions import remember_reviewer_groups, reviewer_group_exists


class Session(AbstractBaseSession):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        on_delete=models.CASCADE,
        db_constraint=False,  # a session saved while its user is being deleted never fails
        related_name="+",
    )

    class Meta:
        db_table = "validation_session"

    @classmethod
    def get_session_store_class(cls) -> type[SessionStore]:
        return SessionStore


class SessionStore(db.SessionStore):
    """Database sessions whose read also reads the user (:attr:`user`)."""

    #: The user of the session as read with it (None: no user, or not read yet).
    user: User | None = None

    @classmethod
    def get_model_class(cls) -> type[Session]:
        return Session

    def _get_session_from_db(self) -> Session | None:
        rows = Session.objects.select_related("user").annotate(
            user_in_reviewer_group=reviewer_group_exists(OuterRef("user_id"))
        )
        try:
            session = rows.get(session_key=self.session_key, expire_date__gt=timezone.now())
        except (Session.DoesNotExist, SuspiciousOperation) as error:  # as Django's store
            if isinstance(error, SuspiciousOperation):
                name = type(error).__name__
                logging.getLogger(f"django.security.{name}").warning(str(error))
            self._session_key = None
            return None
        self.user = session.user
        if self.user is not None:
            remember_reviewer_groups(self.user, session.user_in_reviewer_group)
        return session

    def create_model_instance(self, data: dict[str, Any]) -> Session:
        session = cast(Session, super().create_model_instance(data))
        session.user_id = _user_id(data.get(SESSION_KEY))
        return session

    async def acreate_model_instance(self, data: dict[str, Any]) -> Session:
        return self.create_model_instance(data)


def _user_id(value: Any) -> int | None:
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError):
        return None
