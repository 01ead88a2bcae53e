"""Redline settings. Every knob is an environment variable; README lists them all.

This is the one module of the Django side that reads the environment (gunicorn's own knobs
aside, in gunicorn_conf.py): everything else reads these settings.
"""

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
import django_stubs_ext
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

from project import localenv
from project.env import Environment

# Generic admin and queryset classes (admin.ModelAdmin[Analysis]) at runtime, as the types say.
django_stubs_ext.monkeypatch()

BASE_DIR = Path(__file__).resolve().parent.parent

# Under manage.py the local .env file `make run` writes lies beneath the environment
# (project.localenv); REDLINE_ENV_FILE points elsewhere (tests of production settings point it
# at no file). Production reads no file.
_environ: dict[str, str] = dict(os.environ)
if localenv.wanted():
    _environ = localenv.beneath(
        _environ, Path(_environ.get("REDLINE_ENV_FILE") or localenv.ENV_FILE)
    )
_env = Environment(_environ)
envstr, envbool, envint, envlist = _env.envstr, _env.envbool, _env.envint, _env.envlist

VAR_DIR = Path(envstr("REDLINE_VAR_DIR", str(BASE_DIR / "var")))

DEBUG = envbool("REDLINE_DEBUG", False)

SECRET_KEY = envstr("REDLINE_SECRET_KEY")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("REDLINE_SECRET_KEY must be set when REDLINE_DEBUG is off")
    SECRET_KEY = "django-insecure-local-development-only-key-redline-0000000000"

ALLOWED_HOSTS = envlist("REDLINE_ALLOWED_HOSTS", "localhost,127.0.0.1" if DEBUG else "")
CSRF_TRUSTED_ORIGINS = envlist("REDLINE_CSRF_TRUSTED_ORIGINS")

# Behind TLS in production: redirect, secure cookies, HSTS. Off for the local run and tests.
HTTPS = envbool("REDLINE_HTTPS", not DEBUG)
SECURE_SSL_REDIRECT = HTTPS
# Load balancers probe over plain HTTP: a redirect would read as "down".
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$"]
SESSION_COOKIE_SECURE = HTTPS
CSRF_COOKIE_SECURE = HTTPS
SECURE_HSTS_SECONDS = envint("REDLINE_HSTS_SECONDS", 31536000) if HTTPS else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = HTTPS
SECURE_HSTS_PRELOAD = HTTPS
if envbool("REDLINE_BEHIND_PROXY", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SESSION_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
    "ninja",
    "template_partials",
    "axes",
    "csp",
    "analyses",
    "validation",
]

# Database sessions that read their user and the reviewer check in the same query
# (validation.models.sessions, project.auth).
SESSION_ENGINE = "validation.models.sessions"

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "project.middleware.RefuseNulMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "project.auth.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "project.middleware.LoginRequiredMiddleware",
    "project.ops.ApiMetricsMiddleware",
    # Last, as django-axes asks: turns a locked-out login into its 429 response.
    "axes.middleware.AxesMiddleware",
]

# Content-Security-Policy: only our own scripts, styles, images and fonts; no inline script or
# style anywhere (htmx's indicator styles live in redline.css, see htmx-config in base.html),
# no framing, forms post only to us. Report bodies are sanitized HTML without images.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [NONE],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF],
        "font-src": [SELF],
        "connect-src": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
        "base-uri": [NONE],
        "object-src": [NONE],
    }
}

# Login throttling (django-axes). Failed logins are counted in the database, so the limit holds
# across web processes and hosts; the login page and the admin login both go through
# django.contrib.auth.authenticate, which axes guards. After REDLINE_LOGIN_FAILURE_LIMIT
# failures of one username from one address, that pair is refused with HTTP 429 for
# REDLINE_LOGIN_COOLOFF_MINUTES, even with the right password; a success resets the count.
# After REDLINE_LOGIN_IP_FAILURE_LIMIT failures from one address across any usernames, that
# address is refused for every username (project.lockout: a password spray from one host).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "project.auth.ModelBackend",  # Django's, taking the user the session read (project.auth)
]
AXES_FAILURE_LIMIT = envint("REDLINE_LOGIN_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=envint("REDLINE_LOGIN_COOLOFF_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_VERBOSE = False  # no start-up banner: runserver logs it twice (reloader and child)
AXES_HANDLER = "project.lockout.LockoutHandler"
REDLINE_LOGIN_IP_FAILURE_LIMIT = envint("REDLINE_LOGIN_IP_FAILURE_LIMIT", 20)
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
if envbool("REDLINE_BEHIND_PROXY", False):
    # The client's address, read by django-ipware (axes' [ipware] extra) from X-Forwarded-For:
    # the first proxy the client reaches replaces that header with the address it saw
    # (deploy/nginx.conf does) and each proxy after it appends its own peer's, so the header
    # holds the client and then REDLINE_PROXY_COUNT - 1 addresses. A header of any other
    # length was not written by our proxies: the request counts as the proxy's address.
    AXES_IPWARE_PROXY_COUNT = max(envint("REDLINE_PROXY_COUNT", 1), 1) - 1
    AXES_IPWARE_META_PRECEDENCE_ORDER = ["HTTP_X_FORWARDED_FOR", "REMOTE_ADDR"]

ROOT_URLCONF = "project.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "validation.web.context.nav",
            ],
        },
    },
]

WSGI_APPLICATION = "project.wsgi.application"
ASGI_APPLICATION = "project.asgi.application"

DATABASES = {
    "default": dj_database_url.parse(
        envstr("DATABASE_URL", f"sqlite:///{VAR_DIR / 'redline.sqlite3'}"),
        conn_max_age=envint("REDLINE_DB_CONN_MAX_AGE", 60),
        conn_health_checks=True,
    )
}
_test_db_name = envstr("REDLINE_TEST_DB_NAME")
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # A file, not :memory:, so that a worker process started by the tests sees the same data.
    DATABASES["default"]["TEST"] = {
        "NAME": str(VAR_DIR / f"{_test_db_name or 'test-redline'}.sqlite3")
    }
    DATABASES["default"]["OPTIONS"] = {"timeout": 20, "transaction_mode": "IMMEDIATE"}
    DATABASES["default"]["CONN_MAX_AGE"] = 0
elif _test_db_name:
    DATABASES["default"]["TEST"] = {"NAME": _test_db_name}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # A database that does not answer is reported (readyz, the API's 503) within seconds.
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault(
        "connect_timeout", envint("REDLINE_DB_CONNECT_TIMEOUT", 3)
    )

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "queue"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(envstr("REDLINE_STATIC_ROOT", str(BASE_DIR / "staticfiles")))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if not DEBUG and envbool("REDLINE_MANIFEST_STATIC", True)
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}

# /metrics: open to "Authorization: Bearer <REDLINE_METRICS_TOKEN>", or to the networks (CIDRs)
# explicitly listed here, for a request that came straight from them (one that a proxy
# forwarded is never let in by address: behind a proxy on the same host, loopback is everyone).
REDLINE_METRICS_ALLOW = envlist("REDLINE_METRICS_ALLOW")
REDLINE_METRICS_TOKEN = envstr("REDLINE_METRICS_TOKEN")
# Multiprocess metrics (validation.metrics): every web and worker process of a host writes
# its metrics to files there (gunicorn_conf.py empties it when gunicorn starts).
PROMETHEUS_MULTIPROC_DIR = envstr("PROMETHEUS_MULTIPROC_DIR")

# The LLM path's endpoint (validation.services.llm; the Policy overrides all but the key): the
# REDLINE_LLM_* variables that are set, handed as they are to the engine's reader, which
# checks them and names a bad one.
REDLINE_LLM_VARIABLES = (
    "REDLINE_LLM_BASE_URL",
    "REDLINE_LLM_MODEL",
    "REDLINE_LLM_API_KEY",
    "REDLINE_LLM_TIMEOUT",
    "REDLINE_LLM_MAX_TOKENS",
    "REDLINE_LLM_TEMPERATURE",
    "REDLINE_LLM_EVIDENCE_TOKENS",
    "REDLINE_LLM_REPORT_TOKENS",
    "REDLINE_LLM_CONTEXT_TOKENS",
    "REDLINE_LLM_ATTEMPT_BUDGET",
    "REDLINE_LLM_RESPONSE_FORMAT",
    "REDLINE_LLM_FIXER",
    "REDLINE_LLM_FIXER_TOOL_CHOICE",
    "REDLINE_LLM_RETRY_ENABLED",
    "REDLINE_LLM_RETRY_MAX_ATTEMPTS",
    "REDLINE_LLM_RETRY_DELAY",
)
REDLINE_LLM_ENV = {name: envstr(name) for name in REDLINE_LLM_VARIABLES if name in _environ}

# Hosts the Policy's LLM base URL may name although they are link-local or a cloud metadata
# address (validation.engine.outbound): an inference server on a link-local network, say.
REDLINE_LLM_ALLOWED_HOSTS = envlist("REDLINE_LLM_ALLOWED_HOSTS")
# Hosts a webhook may name although they are not public (loopback, private, link-local …):
# the webhook profile of validation.engine.outbound refuses them otherwise.
REDLINE_WEBHOOK_ALLOWED_HOSTS = envlist("REDLINE_WEBHOOK_ALLOWED_HOSTS")
# Webhook deliveries: their own queue (a worker started with `-Q webhooks`), a short timeout
# per try, and the first retry's delay (doubling after each failure, for a day).
REDLINE_WEBHOOK_QUEUE = envstr("REDLINE_WEBHOOK_QUEUE", "webhooks")
REDLINE_WEBHOOK_TIMEOUT_SECONDS = envint("REDLINE_WEBHOOK_TIMEOUT_SECONDS", 5)
REDLINE_WEBHOOK_RETRY_SECONDS = envint("REDLINE_WEBHOOK_RETRY_SECONDS", 10)

# The demo users' password (load_demo); required when debug is off.
REDLINE_DEMO_PASSWORD = envstr("REDLINE_DEMO_PASSWORD")

# Ingest limits.
REDLINE_MAX_BODY_BYTES = envint("REDLINE_MAX_BODY_BYTES", 200_000)
REDLINE_MAX_EVIDENCE_BYTES = envint("REDLINE_MAX_EVIDENCE_BYTES", 5_000_000)
# Django's own cap on a request body: above analyses.bundles.max_input_bytes(), which the API
# answers with 413 before reading the body.
DATA_UPLOAD_MAX_MEMORY_SIZE = REDLINE_MAX_BODY_BYTES + REDLINE_MAX_EVIDENCE_BYTES + 2_000_000

# The per-token API rate is counted in this cache: Redis (redis://...) shares the count across
# processes and hosts; without it each process counts on its own.
# If that Redis is unreachable, each process counts on its own and logs a warning (the API
# keeps serving); short socket timeouts keep a dead cache from holding requests.
_cache_url = envstr("REDLINE_CACHE_URL")
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": _cache_url,
        "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
    }
    if _cache_url
    else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
}

# Jobs. The database is the source of truth; the broker only carries wake-ups.
REDLINE_TASKS_EAGER = envbool("REDLINE_TASKS_EAGER", False)
REDLINE_ATTEMPT_LEASE_SECONDS = envint("REDLINE_ATTEMPT_LEASE_SECONDS", 300)
REDLINE_SWEEP_INTERVAL_SECONDS = envint("REDLINE_SWEEP_INTERVAL_SECONDS", 60)
# Attempts queued this long with none started meanwhile: no worker is taking work (/readyz,
# redline_queue_stalled).
REDLINE_QUEUE_STALL_SECONDS = envint("REDLINE_QUEUE_STALL_SECONDS", 120)
# Test seam for the crash-recovery integration test only: sleep inside the task.
REDLINE_TASK_DEBUG_DELAY_SECONDS = envint("REDLINE_TASK_DEBUG_DELAY_SECONDS", 0)

CELERY_BROKER_URL = envstr("CELERY_BROKER_URL", "filesystem://")
CELERY_TASK_DEFAULT_QUEUE = envstr("REDLINE_QUEUE", "redline")
CELERY_TASK_ALWAYS_EAGER = REDLINE_TASKS_EAGER
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_IGNORE_RESULT = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A worker whose broker is away keeps trying for as long as it takes (Celery's default gives up
# after 100 tries, about 50 minutes, and exits).
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
# A validation running when the broker goes away runs to its end and records its verdict; the
# message it could not acknowledge comes back and finds nothing to claim. Cancelling it would
# leave its attempt running until the lease runs out.
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = False
# A wake-up the broker refuses is given up within a second: the attempt row is the job, and
# validation.services.jobs sends it again as soon as the broker is back.
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 2,
    "interval_start": 0,
    "interval_step": 0.2,
    "interval_max": 0.2,
}
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, object] = {
    # Redis redelivers an unacknowledged message after this long; keep it beyond the lease.
    "visibility_timeout": REDLINE_ATTEMPT_LEASE_SECONDS + 60,
}
if CELERY_BROKER_URL.startswith("filesystem://"):
    _broker_dir = VAR_DIR / "broker"
    for _sub in ("queue", "processed", "control"):
        (_broker_dir / _sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_broker_dir / "queue"),
        "data_folder_out": str(_broker_dir / "queue"),
        "processed_folder": str(_broker_dir / "processed"),
        "store_processed": False,
        # Exchange tables; kombu's default is ./control in whatever directory the worker runs.
        "control_folder": str(_broker_dir / "control"),
    }
# The sweeper re-sends validation whose broker message was lost (a worker killed mid-task).
# `expires`: a sweep no worker ran within one interval is superseded by the next one.
CELERY_BEAT_SCHEDULE = {
    "sweep-stale-attempts": {
        "task": "validation.tasks.sweep_stale_attempts",
        "schedule": float(REDLINE_SWEEP_INTERVAL_SECONDS),
        "options": {"expires": float(REDLINE_SWEEP_INTERVAL_SECONDS)},
    },
    # Webhook deliveries that are due and were not taken (the delivery row is the job).
    "sweep-webhook-deliveries": {
        "task": "validation.tasks.sweep_webhook_deliveries",
        "schedule": float(REDLINE_SWEEP_INTERVAL_SECONDS),
        "options": {"expires": float(REDLINE_SWEEP_INTERVAL_SECONDS)},
    },
}

LOG_FORMAT = envstr("REDLINE_LOG_FORMAT", "json")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "json": {"()": "project.logging.JsonFormatter"},
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"},
    },
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": LOG_FORMAT},
    },
    "root": {"handlers": ["console"], "level": envstr("REDLINE_LOG_LEVEL", "INFO")},
    "loggers": {
        # Django's own console handler (debug only) would print every line a second time
        # beside the root handler: its records go to the root handler alone.
        "django": {"handlers": [], "level": "INFO", "propagate": True},
        "django.db.backends": {"level": "WARNING"},
        # The filesystem broker has no host; kombu warns about that on every connection.
        "kombu.connection": {"level": "ERROR"},
    },
}
