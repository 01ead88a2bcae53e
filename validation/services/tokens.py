"""API tokens: create (the secret is returned once), revoke, authenticate, rate-limit.

The per-token rate is counted in ``validation.services.rates``.

Least privilege: a person mints or revokes a token only for a user whose permissions are a
subset of their own, never for a superuser (a superuser may do either for anyone). Every
creation and revocation is an ``ApiTokenEvent``: who did it, for whom, through what."""

from __future__ import annotations

import getpass
import hashlib
import secrets
from datetime import timedelta

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import IntegerField
from django.db.models.expressions import RawSQL
from django.utils import timezone

from analyses.models import Pipeline
from redline_errors import InvalidInput, NotAllowed
from validation.models import ApiToken, ApiTokenEvent, Policy
from validation.models.policy import DEFAULT_POLICY_ID

TOKEN_PREFIX = "rl_"
# last_used_at is written at most this often per token: one UPDATE per request would make
# every API call (200+/s under load) contend for the token's row.
LAST_USED_RESOLUTION = timedelta(seconds=30)
# The API rate of the token's pipeline's policy (its own, else the default's), as a column of
# the token query (a Subquery costs more to compile).
_POLICY_RATE_SQL = (
    'COALESCE((SELECT p."{column}" FROM "{table}" p '
    'WHERE p."pipeline_id" = "{tokens}"."pipeline_id"), '
    '(SELECT p."{column}" FROM "{table}" p WHERE p."id" = {default}))'
).format(
    column=Policy._meta.get_field("api_rate_per_minute").column,
    table=Policy._meta.db_table,
    tokens=ApiToken._meta.db_table,
    default=DEFAULT_POLICY_ID,
)


def _digest(raw: str) -> str:
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


def api_token_may_manage(*, actor: User, subject: User) -> bool:
    """Whether `actor` may mint or revoke `subject`'s tokens: a superuser always; anyone else
    only for a user who is not a superuser and holds no permission `actor` lacks (a token
    acts with its user's permissions, so minting one must not raise anyone above `actor`)."""
    if not actor.is_active:
        return False
    if actor.is_superuser:
        return True
    if subject.is_superuser:
        return False
    return subject.get_all_permissions() <= actor.get_all_permissions()


def api_token_subjects(*, actor: User) -> list[int]:
    """The ids of the users whose tokens `actor` may manage."""
    users = User.objects.all() if actor.is_superuser else User.objects.filter(is_superuser=False)
    return [user.pk for user in users if api_token_may_manage(actor=actor, subject=user)]


@transaction.atomic
def api_token_create(
    *,
    user: User,
    scope: str,
    name: str = "",
    pipeline: Pipeline | None = None,
    actor: User | None = None,
    via: str = "command",
) -> tuple[ApiToken, str]:
    """A new token for `user` in `pipeline` (None: the default one); returns the row and the
    secret, which is never stored.

    `actor` is the person minting it (None: the command line, run with shell access to the
    host); it must be allowed to (``api_token_may_manage``), else NotAllowed and nothing
    is written."""
    if scope not in ApiToken.Scope.values:
        raise InvalidInput(
            f"scope must be one of {', '.join(ApiToken.Scope.values)}, not {scope!r}."
        )
    _require_may_manage(actor, user, "create a token for")
    raw = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(
        user=user,
        pipeline=pipeline or Pipeline.default(),
        scope=scope,
        name=name[:100],
        prefix=raw[:12],
        token_sha256=_digest(raw),
    )
    _record(token, ApiTokenEvent.Action.CREATED, actor=actor, via=via)
    return token, raw


def api_user_create(*, username: str) -> User:
    """A user for a program (a pipeline) to own API tokens: no password, so it cannot log
    in to the review screens, and no role, so its token sees only what it submitted."""
    username = username.strip()
    if not username or len(username) > 150:
        raise InvalidInput("A user name has 1 to 150 characters.")
    if User.objects.filter(username=username).exists():
        raise InvalidInput(f"There is already a user {username!r}.")
    return User.objects.create_user(username=username, password=None)


@transaction.atomic
def api_token_revoke(
    *, token: ApiToken, actor: User | None = None, via: str = "command"
) -> ApiToken:
    """Revoke `token` (idempotent: a revoked token keeps its first revocation time, and only
    the revocation that happened is recorded)."""
    _require_may_manage(actor, token.user, "revoke a token of")
    revoked = ApiToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(
        revoked_at=timezone.now()
    )
    token.refresh_from_db()
    if revoked:
        _record(token, ApiTokenEvent.Action.REVOKED, actor=actor, via=via)
    return token


def _require_may_manage(actor: User | None, subject: User, what: str) -> None:
    if actor is not None and not api_token_may_manage(actor=actor, subject=subject):
        reason = (
            "a superuser's tokens are managed by superusers only"
            if subject.is_superuser
            else f"{subject.get_username()} holds permissions you do not"
        )
        raise NotAllowed(f"You may not {what} {subject.get_username()}: {reason}.")


def _record(token: ApiToken, action: str, *, actor: User | None, via: str) -> None:
    subject = token.user
    ApiTokenEvent.objects.create(
        action=action,
        via=via,
        token=token,
        prefix=token.prefix,
        scope=token.scope,
        actor=actor,
        actor_name=actor.get_username() if actor is not None else f"shell:{_shell_user()}",
        subject=subject,
        subject_name=subject.get_username(),
    )


def _shell_user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no name for this uid
        return "unknown"


def api_token_authenticate(raw: str) -> ApiToken | None:
    """The live token whose secret is `raw` (its user and its pipeline active), or None.
    Records its use.

    The token, its user and the API rate of its pipeline's policy (its own, else the
    default's) come in one query: the rate as the ``policy_rate`` attribute (None when there
    is no Policy row yet), which
    ``api_token_throttle`` reads instead of asking the database again. The query filters on
    the digest alone (unique), and revocation and the user's state are checked on the row:
    the same answer, for about half the ORM's CPU of the three-condition query."""
    if not raw.startswith(TOKEN_PREFIX) or len(raw) > 200:
        return None
    try:
        token = (
            ApiToken.objects.select_related("user", "pipeline")
            .annotate(policy_rate=RawSQL(_POLICY_RATE_SQL, (), output_field=IntegerField()))
            .get(token_sha256=_digest(raw))
        )
    except ApiToken.DoesNotExist:
        return None
    if token.revoked_at is not None or not token.user.is_active or not token.pipeline.active:
        return None
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at > LAST_USED_RESOLUTION:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return token
