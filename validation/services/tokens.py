"""API tokens: create (the secret is returned once), revoke, authenticate, rate-limit."""

from __future__ import annotations

import hashlib
import math
import secrets
import time
from datetime import timedelta

from django.contrib.auth.models import User
from django.core.cache import cache, caches
from django.core.cache.backends.redis import RedisCache
from django.db import transaction
from django.db.models import IntegerField
from django.db.models.expressions import RawSQL
from django.utils import timezone
from redis import Redis

from validation.errors import InputError
from validation.models import ApiToken, Policy

TOKEN_PREFIX = "rl_"
# last_used_at is written at most this often per token: one UPDATE per request would make
# every API call (200+/s under load) contend for the token's row.
LAST_USED_RESOLUTION = timedelta(seconds=30)
# The Policy's API rate, as a column of the token query (a Subquery costs more to compile).
_POLICY_RATE_SQL = 'SELECT "{column}" FROM "{table}" WHERE "id" = 1'.format(
    column=Policy._meta.get_field("api_rate_per_minute").column, table=Policy._meta.db_table
)


def _digest(raw: str) -> str:
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


@transaction.atomic
def api_token_create(*, user: User, scope: str, name: str = "") -> tuple[ApiToken, str]:
    """A new token for `user`; returns the row and the secret, which is never stored."""
    if scope not in ApiToken.Scope.values:
        raise InputError(f"scope must be one of {', '.join(ApiToken.Scope.values)}, not {scope!r}.")
    raw = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(
        user=user, scope=scope, name=name[:100], prefix=raw[:12], token_sha256=_digest(raw)
    )
    return token, raw


def api_user_create(*, username: str) -> User:
    """A user for a program (a pipeline) to own API tokens: no password, so it cannot log
    in to the review screens, and no role, so its token sees only what it submitted."""
    username = username.strip()
    if not username or len(username) > 150:
        raise InputError("A user name has 1 to 150 characters.")
    if User.objects.filter(username=username).exists():
        raise InputError(f"There is already a user {username!r}.")
    return User.objects.create_user(username=username, password=None)


def api_token_revoke(*, token: ApiToken) -> ApiToken:
    """Revoke `token` (idempotent: a revoked token keeps its first revocation time)."""
    ApiToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())
    token.refresh_from_db()
    return token


def api_token_authenticate(raw: str) -> ApiToken | None:
    """The live token whose secret is `raw` (its user active), or None. Records its use.

    The token, its user and the Policy's API rate come in one query: the rate as the
    ``policy_rate`` attribute (None when there is no Policy row yet), which
    ``api_token_throttle`` reads instead of asking the database again. The query filters on
    the digest alone (unique), and revocation and the user's state are checked on the row:
    the same answer, for about half the ORM's CPU of the three-condition query."""
    if not raw.startswith(TOKEN_PREFIX) or len(raw) > 200:
        return None
    try:
        token = (
            ApiToken.objects.select_related("user")
            .annotate(policy_rate=RawSQL(_POLICY_RATE_SQL, (), output_field=IntegerField()))
            .get(token_sha256=_digest(raw))
        )
    except ApiToken.DoesNotExist:
        return None
    if token.revoked_at is not None or not token.user.is_active:
        return None
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at > LAST_USED_RESOLUTION:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return token


def api_token_throttle(*, token: ApiToken, policy: Policy | None = None) -> float:
    """Count one request of `token` in the current minute; return 0.0 when it is within the
    policy's rate, else the seconds until the next minute starts (for Retry-After).

    The count lives in the cache (shared by every process when REDLINE_CACHE_URL points at
    Redis), keyed by token and minute: a fixed window, one atomic increment per request.
    The rate is `policy`'s, else the one ``api_token_authenticate`` read with the token, else
    the Policy row's.
    """
    if policy is not None:
        limit = policy.api_rate_per_minute
    else:
        read: int | None = getattr(token, "policy_rate", None)
        limit = read if read is not None else _rate_per_minute()
    now = time.time()
    minute = int(now // 60)
    key = f"redline:api-rate:{token.pk}:{minute}"
    count = _count(key)
    if count <= limit:
        return 0.0
    return float(max(1, math.ceil((minute + 1) * 60 - now)))


def _rate_per_minute() -> int:
    """The Policy's API rate: one column of the one row, not the whole Policy per request."""
    rate = Policy.objects.filter(pk=1).values_list("api_rate_per_minute", flat=True).first()
    return rate if rate is not None else Policy.load().api_rate_per_minute


def _count(key: str) -> int:
    """Add one to the counter `key` (kept 120 s) and return it.

    On Redis one round trip (INCR and EXPIRE in a pipeline; Django's ``cache.incr`` asks
    EXISTS first, and ``add`` before it made three); other caches through the cache API.
    The pipeline needs no MULTI/EXEC: INCR alone is atomic, and the EXPIRE sent with it only
    keeps the key from living for ever."""
    backend = caches["default"]  # `cache` is a proxy: ask for the backend itself
    if isinstance(backend, RedisCache):
        redis_key = backend.make_and_validate_key(key)
        with _redis_client(backend).pipeline(transaction=False) as pipe:
            pipe.incr(redis_key)
            pipe.expire(redis_key, 120)
            count, _ = pipe.execute()
        return int(count)
    cache.add(key, 0, timeout=120)
    try:
        return cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.set(key, 1, timeout=120)
        return 1


def _redis_client(backend: RedisCache) -> Redis:
    """One Redis client per cache backend (one backend per thread), over the backend's own
    connection pool: ``get_client`` builds a new client object on every call, which costs
    more CPU than the round trip it makes."""
    client: Redis | None = getattr(backend, "_redline_rate_client", None)
    if client is None:
        client = backend._cache.get_client(write=True)  # type: ignore[attr-defined]
        backend._redline_rate_client = client  # type: ignore[attr-defined]
    return client
