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
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, cast
from weakref import WeakKeyDictionary

from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.contrib.auth.models import User
from django.contrib.sessions.backends import db
from django.contrib.sessions.base_session import AbstractBaseSession
from django.core.exceptions import SuspiciousOperation
from django.db import DEFAULT_DB_ALIAS, connections, models
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
        try:
            session, self.user = _read_session(str(self.session_key), timezone.now())
        except SuspiciousOperation as error:  # as Django's store
            logging.getLogger(f"django.security.{type(error).__name__}").warning(str(error))
            session = None
        if session is None:
            self._session_key = None
        return session

    def create_model_instance(self, data: dict[str, Any]) -> Session:
        session = cast(Session, super().create_model_instance(data))
        session.user_id = _user_id(data.get(SESSION_KEY))
        return session

    async def acreate_model_instance(self, data: dict[str, Any]) -> Session:
        return self.create_model_instance(data)


# The session's read, compiled once per database connection: it runs on every request, and
# the ORM takes longer to build and compile it (with the user's columns and the reviewer
# check) than the database takes to run it, as with validation.review_read.
_KEY = "\x00session-key"  # stand-ins in the compiled query: no real key or time is these
_NOW = datetime(1, 1, 2, tzinfo=UTC)
_SESSION_COLUMNS = [field.attname for field in Session._meta.concrete_fields]
_USER_COLUMNS = [field.attname for field in User._meta.concrete_fields]


@dataclass(frozen=True)
class _Compiled:
    sql: str
    params: tuple[Any, ...]
    key: Any  # the stand-ins as the compiled params hold them
    now: Any
    compiler: Any
    converters: Any


_COMPILED: WeakKeyDictionary[Any, _Compiled] = WeakKeyDictionary()


def _compiled(db: Any) -> _Compiled:
    if db not in _COMPILED:
        rows = (
            Session.objects.filter(session_key=_KEY, expire_date__gt=_NOW)
            .annotate(in_reviewer_group=reviewer_group_exists(OuterRef("user_id")))
            .values_list(
                *_SESSION_COLUMNS,
                *(f"user__{name}" for name in _USER_COLUMNS),
                "in_reviewer_group",
            )
        )
        compiler = rows.query.get_compiler(connection=db)
        sql, params = compiler.as_sql()
        expire = Session._meta.get_field("expire_date")
        _COMPILED[db] = _Compiled(
            sql=sql,
            params=tuple(params),
            key=_KEY,
            now=expire.get_db_prep_value(_NOW, db),
            compiler=compiler,
            converters=compiler.get_converters([column for column, _, _ in compiler.select]),
        )
    return _COMPILED[db]


def _read_session(key: str, now: datetime) -> tuple[Session | None, User | None]:
    """The unexpired session `key` and its user, whose reviewer check it remembers."""
    db = connections[DEFAULT_DB_ALIAS]
    compiled = _compiled(db)
    prepped_now = Session._meta.get_field("expire_date").get_db_prep_value(now, db)
    params = [
        key if value == compiled.key else prepped_now if value == compiled.now else value
        for value in compiled.params
    ]
    with db.cursor() as cursor:
        cursor.execute(compiled.sql, params)
        raw = cursor.fetchone()
    if raw is None:
        return None, None
    (row,) = compiled.compiler.apply_converters([raw], compiled.converters)
    n = len(_SESSION_COLUMNS)
    session = Session.from_db(db.alias, _SESSION_COLUMNS, row[:n])
    if row[n] is None:  # no user, or one that is gone (the join found none)
        return session, None
    user = User.from_db(db.alias, _USER_COLUMNS, row[n : n + len(_USER_COLUMNS)])
    remember_reviewer_groups(user, bool(row[-1]))
    return session, user


def _user_id(value: Any) -> int | None:
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError):
        return None
