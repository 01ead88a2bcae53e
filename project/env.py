"""Small, typed readers of environment variables (after healthchecks' envbool/envint).

They read the mapping they are given: ``project/settings.py``, the one module of the Django
side that reads the environment, gives them the process's (under ``manage.py``, with the
local ``.env`` file beneath it).
"""

from collections.abc import Mapping

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


class Environment:
    """Typed reads of one mapping of environment variables."""

    def __init__(self, environ: Mapping[str, str]) -> None:
        self._environ = environ

    def envstr(self, name: str, default: str = "") -> str:
        return self._environ.get(name, default)

    def envbool(self, name: str, default: bool) -> bool:
        raw = self._environ.get(name)
        if raw is None:
            return default
        value = raw.strip().lower()
        if value in _TRUE:
            return True
        if value in _FALSE:
            return False
        raise ImproperlyConfigured(f"{name} must be a boolean (1/0, true/false), got {raw!r}")

    def envint(self, name: str, default: int) -> int:
        raw = self._environ.get(name)
        if raw is None or raw.strip() == "":
            return default
        try:
            return int(raw)
        except ValueError:
            raise ImproperlyConfigured(f"{name} must be an integer, got {raw!r}") from None

    def envlist(self, name: str, default: str = "") -> list[str]:
        items = self._environ.get(name, default).split(",")
        return [item.strip() for item in items if item.strip()]
