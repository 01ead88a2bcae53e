"""Endpoints for programs, not people: /healthz, /readyz and /metrics.

None of them is behind the login gate (project.middleware) and none shows data: health says
up or not, readiness which dependency is down, metrics are counts. /metrics is open to a
request with ``Authorization: Bearer $REDLINE_METRICS_TOKEN``, or to one that came straight
from a network listed in REDLINE_METRICS_ALLOW (empty by default: token only). A request a
proxy forwarded (``X-Forwarded-For``, ``Forwarded``, ``X-Real-IP``) is never let in by its
address: behind a proxy on the same host, the address is the proxy's, which is everyone's.
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
from collections.abc import Callable

from django.conf import settings
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.http import require_GET
from prometheus_client import CONTENT_TYPE_LATEST

from validation.metrics import API_REQUESTS, render
from validation.selectors import queue_state
from validation.services import rate_cache_state

logger = logging.getLogger(__name__)


@require_GET
def healthz(request: HttpRequest) -> HttpResponse:
    return JsonResponse({"status": "ok"})


@require_GET
def readyz(request: HttpRequest) -> HttpResponse:
    """Whether this host can serve, and the state of each dependency.

    503 only when the database is down: nothing can be served without it. A broker that is
    down leaves ingest working (a committed analysis is acknowledged and its validation sent
    once the broker is back); a rate cache that is down leaves each process counting on its
    own. Either makes the host ``degraded``: 200, with the dependency named. So does a queue
    no worker takes from (``workers: stalled``, services.backlog): the web host still serves,
    but validation has stopped, which a person must hear about."""
    database = _database_ok()
    checks = {
        "database": "ok" if database else "down",
        "broker": "ok" if _broker_ok() else "down",
        "rate_cache": rate_cache_state(),
        "workers": _workers_state() if database else "unknown",
    }
    if checks["database"] != "ok":
        status = "unavailable"
    elif "down" in checks.values() or checks["workers"] == "stalled":
        status = "degraded"
    else:
        status = "ok"
    return JsonResponse(
        {"status": status, "checks": checks}, status=503 if status == "unavailable" else 200
    )


def _database_ok() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return True
    except Exception:
        logger.warning("Readiness: the database is unreachable.", exc_info=True)
        return False


def _workers_state() -> str:
    try:
        return "stalled" if queue_state().stalled else "ok"
    except Exception:
        logger.warning("Readiness: could not read the queue.", exc_info=True)
        return "unknown"


def _broker_ok() -> bool:
    from project.celery import app

    try:
        with app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
        return True
    except Exception:
        logger.warning("Readiness: the broker is unreachable.", exc_info=True)
        return False


# Headers a proxy adds: their presence means REMOTE_ADDR is the proxy's, not the client's.
_FORWARDING_HEADERS = ("HTTP_X_FORWARDED_FOR", "HTTP_FORWARDED", "HTTP_X_REAL_IP")


def _metrics_allowed(request: HttpRequest) -> bool:
    token = settings.REDLINE_METRICS_TOKEN
    if token:
        sent = request.headers.get("Authorization", "").removeprefix("Bearer ").strip()
        if sent and hmac.compare_digest(sent, token):
            return True
    if not settings.REDLINE_METRICS_ALLOW or any(h in request.META for h in _FORWARDING_HEADERS):
        return False
    try:
        address = ipaddress.ip_address(request.META.get("REMOTE_ADDR", ""))
    except ValueError:
        return False
    return any(
        address in ipaddress.ip_network(net, strict=False) for net in settings.REDLINE_METRICS_ALLOW
    )


@require_GET
def metrics(request: HttpRequest) -> HttpResponse:
    if not _metrics_allowed(request):
        return JsonResponse(
            {
                "message": "Metrics need the metrics token (or a direct request from an address "
                "REDLINE_METRICS_ALLOW lists)."
            },
            status=403,
        )
    return HttpResponse(render(), content_type=CONTENT_TYPE_LATEST)


class ApiMetricsMiddleware:
    """Counts REST API responses by method and status."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if request.path.startswith("/api/"):
            API_REQUESTS.labels(request.method or "", str(response.status_code)).inc()
        return response
