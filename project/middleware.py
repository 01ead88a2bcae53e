"""Every page requires login, except the login page, static files and the machine endpoints.

The machine endpoints (the REST API, Prometheus metrics, health and readiness checks) are
for programs, not people: they answer 401 or 200 themselves, never a redirect to a login
page a program cannot fill in.
"""

from collections.abc import Callable

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse

PUBLIC_PREFIXES = ("/accounts/login/", "/admin/login/", "/static/")
MACHINE_PREFIXES = ("/api/", "/metrics", "/healthz", "/readyz")


class LoginRequiredMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        exempt = request.path.startswith(PUBLIC_PREFIXES + MACHINE_PREFIXES)
        if not exempt and not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path(), settings.LOGIN_URL)
        return self.get_response(request)
