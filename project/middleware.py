"""Every page requires login, except the login page, static files and the machine endpoints;
and no request carries a NUL character past the door.

The machine endpoints (the REST API, Prometheus metrics, health and readiness checks) are
for programs, not people: they answer 401 or 200 themselves, never a redirect to a login
page a program cannot fill in.
"""

from collections.abc import Callable
from contextlib import suppress

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import BadRequest, SuspiciousOperation
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, JsonResponse
from django.http.multipartparser import MultiPartParserError

PUBLIC_PREFIXES = ("/accounts/login/", "/admin/login/", "/static/", "/favicon.ico")
MACHINE_PREFIXES = ("/api/", "/metrics", "/healthz", "/readyz")


class LoginRequiredMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        exempt = request.path.startswith(PUBLIC_PREFIXES + MACHINE_PREFIXES)
        if not exempt and not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path(), settings.LOGIN_URL)
        return self.get_response(request)


class RefuseNulMiddleware:
    """A NUL character anywhere a request carries text (its path, query string, form fields,
    headers) is a 400 before any view runs: PostgreSQL refuses NUL in text, so it would
    otherwise be a 500 wherever the value reaches a query (``?decision=%00``, a reject
    reason). JSON bodies are checked by the bundle rules (analyses.bundles), also a 400."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        where = _nul_in(request)
        if where:
            message = f"{where}: contains a NUL character"
            if request.path.startswith("/api/"):
                return JsonResponse({"message": message, "field": where}, status=400)
            return HttpResponseBadRequest(message, content_type="text/plain; charset=utf-8")
        return self.get_response(request)


def _nul_in(request: HttpRequest) -> str:
    """Where the first NUL is ("path", a parameter's name, a header's), or ""."""
    if "\x00" in request.path:
        return "path"
    for name, value in request.META.items():
        if name.startswith("HTTP_") and isinstance(value, str) and "\x00" in value:
            return name.removeprefix("HTTP_").replace("_", "-").title()
    sources = [request.GET]
    # The API reads its bodies itself (JSON, checked by the bundle rules); a page's form is
    # parsed here as its view would parse it, and a body that cannot be parsed is left to
    # the view to refuse.
    api = request.path.startswith("/api/")
    if request.method == "POST" and request.content_type in _FORM_TYPES and not api:
        with suppress(BadRequest, MultiPartParserError, SuspiciousOperation):
            sources.append(request.POST)
    for params in sources:
        for key, values in params.lists():
            if "\x00" in key or any("\x00" in value for value in values):
                return key.replace("\x00", "\\x00")[:100]
    return ""


_FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")
