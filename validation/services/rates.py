"""The per-token API rate: a fixed window per token and minute, counted in the shared cache.

With ``REDLINE_CACHE_URL`` pointing at Redis every web process and host counts into one
counter; without it each process counts on its own (Django's local memory cache). When the
Redis cache is unreachable the API keeps serving: each process counts in its own memory
(the same limit, per process) and logs a warning, at most once a minute, until Redis answers
again. ``rate_cache_state`` is what ``/readyz`` reports of it.
"""

from __future__ import annotations

import logging
import math
import threading
import time

from django.core.cache import cache, caches
from django.core.cache.backends.redis import RedisCache
from redis import Redis, RedisError

from validation.models import ApiToken, Policy

logger = logging.getLogger(__name__)

# How often a process logs that it counts on its own while the shared cache is down.
WARN_EVERY_SECONDS = 60.0


def api_token_throttle(*, token: ApiToken, policy: Policy | None = None) -> float:
    """Count one request of `token` in the current minute; return 0.0 when it is within the
    policy's rate, else the seconds until the next minute starts (for Retry-After).

    The count lives in the cache (shared by every process when REDLINE_CACHE_URL points at
    Redis), keyed by token and minute: a fixed window, one atomic increment per request.
    The rate is `policy`'s, else the one ``api_token_authenticate`` read with the token, else
    that of the token's pipeline's policy (its own, else the default).
    """
    if policy is not None:
        limit = policy.api_rate_per_minute
    else:
        read: int | None = getattr(token, "policy_rate", None)
        limit = read if read is not None else _rate_per_minute(token)
    now = time.time()
    minute = int(now // 60)
    key = f"redline:api-rate:{token.pk}:{minute}"
    count = _count(key, minute)
    if count <= limit:
        return 0.0
    return float(max(1, math.ceil((minute + 1) * 60 - now)))


def _rate_per_minute(token: ApiToken) -> int:
    """The API rate of the token's pipeline's policy (its own, else the default's)."""
    return Policy.for_pipeline(token.pipeline_id).api_rate_per_minute


def _count(key: str, minute: int) -> int:
    """Add one to the counter `key` (kept 120 s) and return it.

    On Redis one round trip (INCR and EXPIRE in a pipeline; Django's ``cache.incr`` asks
    EXISTS first, and ``add`` before it made three); other caches through the cache API.
    The pipeline needs no MULTI/EXEC: INCR alone is atomic, and the EXPIRE sent with it only
    keeps the key from living for ever. Redis unreachable: this process's own count."""
    backend = caches["default"]  # `cache` is a proxy: ask for the backend itself
    if isinstance(backend, RedisCache):
        redis_key = backend.make_and_validate_key(key)
        try:
            with _redis_client(backend).pipeline(transaction=False) as pipe:
                pipe.incr(redis_key)
                pipe.expire(redis_key, 120)
                count, _ = pipe.execute()
        except (RedisError, OSError) as error:
            _LOCAL.warn(error)
            return _LOCAL.incr(key, minute)
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


class _LocalCounts:
    """This process's counts while the shared cache is down: the current and the previous
    minute are kept, older ones dropped."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts: dict[str, int] = {}
        self._minute = 0
        self._warned_at = -math.inf

    def incr(self, key: str, minute: int) -> int:
        with self._lock:
            if minute != self._minute:
                suffix = f":{minute - 1}"
                self._counts = {k: v for k, v in self._counts.items() if k.endswith(suffix)}
                self._minute = minute
            self._counts[key] = self._counts.get(key, 0) + 1
            return self._counts[key]

    def warn(self, error: Exception) -> None:
        now = time.monotonic()
        with self._lock:
            if now - self._warned_at < WARN_EVERY_SECONDS:
                return
            self._warned_at = now
        logger.warning(
            "The rate cache (REDLINE_CACHE_URL) is unreachable (%s): this process counts API "
            "requests on its own, at the same per-token limit, until it is back.",
            error,
        )


_LOCAL = _LocalCounts()


def rate_cache_state() -> str:
    """``ok`` (the shared Redis cache answers), ``down`` (it does not: each process counts on
    its own) or ``local`` (no shared cache configured: each process counts on its own)."""
    backend = caches["default"]
    if not isinstance(backend, RedisCache):
        return "local"
    try:
        _redis_client(backend).ping()
    except (RedisError, OSError):
        return "down"
    return "ok"
