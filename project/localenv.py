"""The local env file: what `make run` sets up once so that every documented command works
in a new shell (`manage.py import_bundles ...`) without exporting anything.

`make run` writes `.env` (development settings and a generated secret key) when it is
missing; `manage.py` reads it. Variables already in the environment win. Production reads
no file: with neither the file nor the environment, settings refuse to start without
REDLINE_SECRET_KEY, as before.
"""

from __future__ import annotations

import os
import secrets
import sys
from pathlib import Path

# REDLINE_ENV_FILE points elsewhere (tests of production settings point it at no file).
ENV_FILE = Path(
    os.environ.get("REDLINE_ENV_FILE") or Path(__file__).resolve().parent.parent / ".env"
)

HEADER = (
    "# Written by `make run` for the local development run; never used in production.\n"
    "# manage.py reads it; variables set in the environment take precedence.\n"
)


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


def load(path: Path = ENV_FILE) -> None:
    """Put the file's variables into os.environ, where they are not set already."""
    for name, value in read(path).items():
        os.environ.setdefault(name, value)


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


if __name__ == "__main__":  # python -m project.localenv: what `make run` calls
    if ensure():
        sys.stdout.write(f"Wrote {ENV_FILE.name} (local development settings, a new secret key).\n")
