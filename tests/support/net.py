"""Addresses for tests that need a dependency to be down: a port nothing listens on."""

from __future__ import annotations

import socket
from typing import Any


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def closed_port() -> int:
    """A loopback port nothing listens on (it was free a moment ago): connecting is refused."""
    return free_port()


def redis_cache_at(port: int, db: int = 0) -> dict[str, Any]:
    """CACHES for the rate counter on a Redis at `port` (with the timeouts settings use)."""
    return {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{port}/{db}",
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
        }
    }
