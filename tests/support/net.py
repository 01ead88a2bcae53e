"""Addresses for tests that need a dependency to be down: a port nothing listens on.

``REDLINE_TEST_PORTS=FIRST-LAST`` (optional) keeps the servers a test starts within that range,
for a machine whose other users were given ports of their own; otherwise the system picks."""

from __future__ import annotations

import itertools
import os
import socket
from typing import Any

_next_in_range = itertools.count()


def free_port() -> int:
    spec = os.environ.get("REDLINE_TEST_PORTS", "")
    if spec:
        first, last = (int(part) for part in spec.split("-", 1))
        size = last - first + 1
        for _ in range(size):
            port = first + next(_next_in_range) % size
            with socket.socket() as sock:
                try:
                    sock.bind(("127.0.0.1", port))
                except OSError:
                    continue
                return port
        raise OSError(f"no free port in REDLINE_TEST_PORTS={spec}")
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
