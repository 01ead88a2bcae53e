"""Login lockout: per username and address (django-axes), and per address across usernames.

axes counts failures per (username, address) and locks that pair after
``REDLINE_LOGIN_FAILURE_LIMIT``. One address trying a password against many usernames never
reaches that limit with any of them; this handler also counts the address's failures over
every username and, past ``REDLINE_LOGIN_IP_FAILURE_LIMIT`` within the cool-off, locks the
address for every username. A success resets only its own username's count (axes), so an
attacker with one valid account cannot reset the address's count.
"""

from __future__ import annotations

from typing import Any

from axes.attempts import get_cool_off_threshold
from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_failure_limit
from axes.models import AccessAttempt
from django.conf import settings
from django.db.models import Sum
from django.http import HttpRequest


class LockoutHandler(AxesDatabaseHandler):  # type: ignore[misc]  # axes is untyped
    def get_failures(self, request: HttpRequest, credentials: dict[str, Any] | None = None) -> int:
        failures = int(super().get_failures(request, credentials))
        if self.address_failures(request) >= settings.REDLINE_LOGIN_IP_FAILURE_LIMIT:
            return max(failures, int(get_failure_limit(request, credentials)))
        return failures

    @staticmethod
    def address_failures(request: HttpRequest) -> int:
        """Failures from the request's address within the cool-off, whatever the username."""
        address = getattr(request, "axes_ip_address", None)
        if not address:
            return 0
        attempts = AccessAttempt.objects.filter(
            ip_address=address, attempt_time__gte=get_cool_off_threshold(request)
        )
        total: int | None = attempts.aggregate(total=Sum("failures_since_start"))["total"]
        return total or 0
