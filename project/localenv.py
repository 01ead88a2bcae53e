"""The local env file: what `make run` sets up once so that every documented command works
in a new shell (`manage.py import_bundles ...`) without exporting anything.

`make run` writes `.env` (development settings and a generated secret key) when it is
missing (``python -m project.localenv [PATH]``); `manage.py` asks for it (``use()``), and
``project/settings.py`` then reads its variables beneath the environment's: variables already
in the environment win. Production reads no file: with neither the file nor the environment,
settings refuse to start without REDLINE_SECRET_KEY, as before. This module reads no
environment variable itself (settings.py resolves REDLINE_ENV_FILE).
"""

from __future__ import annotations

import secrets
import sys
from collections.abc import Mapping
from pathlib import Path

ENV_FILE = Path(__file__).resolve().parent.parent / ".env"

HEADER = (
    "# Written by `make run` for the local development run; never used in production.\n"
    "# manage.py reads it; variables set in the environment take precedence.\n"
)

_wanted = False


def use() -> None:
    """Ask settings to read the local env file (manage.py does, before settings load)."""
    global _wanted
    _wanted = True


def wanted() -> bool:
    return _wanted


def read(path: Path = ENV_FILE) -> dict[str, str]:
    """NAME=value lines; blank lines and # comments are skipped, quotes are not special."""
    values: dict[str, str] = {}
    if not path.is_file():
        return values
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        name, _, value = line.partition("=")
        values[name.strip()] = value.strip()
    return values


def beneath(environ: Mapping[str, str], path: Path = ENV_FILE) -> dict[str, str]:
    """`environ` with the file's variables beneath it: a variable set in `environ` wins."""
    return {**read(path), **environ}


def ensure(path: Path = ENV_FILE) -> bool:
    """Write the local env file when it is missing; return whether it was written."""
    if path.exists():
        return False
    path.write_text(
        HEADER + "REDLINE_DEBUG=1\n" + f"REDLINE_SECRET_KEY={secrets.token_urlsafe(50)}\n",
        encoding="utf-8",
    )
    path.chmod(0o600)
    return True


if __name__ == "__main__":  # python -m project.localenv [PATH]: what `make run` calls
    target = Path(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1] else ENV_FILE
    if ensure(target):
        sys.stdout.write(f"Wrote {target.name} (local development settings, a new secret key).\n")
