from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.core.exceptions import DisallowedHost
from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect, JsonResponse
from django.templatetags.static import static
from django.urls import include, path
from django.views import defaults

from project import ops
from validation.api.routes import api


def favicon(request: HttpRequest) -> HttpResponsePermanentRedirect:
    """Browsers ask for /favicon.ico whatever the page's icon link says: the SVG icon."""
    return HttpResponsePermanentRedirect(static("favicon.svg"))


urlpatterns = [
    path("favicon.ico", favicon, name="favicon"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("api/v1/", api.urls),
    path("healthz", ops.healthz, name="healthz"),
    path("readyz", ops.readyz, name="readyz"),
    path("metrics", ops.metrics, name="metrics"),
    path("", include("validation.web.urls")),
]


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """Django's 400 (a disallowed Host header, a suspicious request): JSON on the API, like
    every other API error, and Django's own page elsewhere."""
    if request.path.startswith("/api/"):
        message = (
            "the Host header names a host this server does not serve (ALLOWED_HOSTS)"
            if isinstance(exception, DisallowedHost)
            else "bad request"
        )
        return JsonResponse({"message": message, "field": None}, status=400)
    return defaults.bad_request(request, exception)


handler400 = bad_request
