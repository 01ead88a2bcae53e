"""Endpoints for programs, not people: /healthz, /readyz and /metrics.

None of them is behind the login gate (project.middleware) and none shows data: health says
up or not, readiness which dependency is down, metrics are counts. /metrics is open to the
addresses in REDLINE_METRICS_ALLOW (CIDRs; loopback by default) or to a request with
``Authorization: Bearer $REDLINE_METRICS_TOKEN``.
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

logger = logging.getLogger(__name__)


@require_GET
def healthz(request: HttpRequest) -> HttpResponse:
    return JsonResponse({"status": "ok"})


@require_GET
def readyz(request: HttpRequest) -> HttpResponse:
    checks = {"database": _database_ok(), "broker": _broker_ok()}
    ready = all(checks.values())
    return JsonResponse(
        {
            "status": "ok" if ready else "unavailable",
            "checks": {k: "ok" if v else "down" for k, v in checks.items()},
        },
        status=200 if ready else 503,
    )


def _database_ok() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return True
    except Exception:
        logger.warning("Readiness: the database is unreachable.", exc_info=True)
        return False


def _broker_ok() -> bool:
    from project.celery import app

    try:
        with app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
        return True
    except Exception:
        logger.warning("Readiness: the broker is unreachable.", exc_info=True)
        return False


def _metrics_allowed(request: HttpRequest) -> bool:
    token = settings.REDLINE_METRICS_TOKEN
    if token:
        sent = request.headers.get("Authorization", "").removeprefix("Bearer ").strip()
        if sent and hmac.compare_digest(sent, token):
            return True
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
            {"message": "Metrics need the metrics token or an allowed address."}, status=403
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
