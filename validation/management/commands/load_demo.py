"""Demo data for the local run (`make run` runs this every time, so it is idempotent): a
reviewer and an admin user, and the bundles of analyses/demo/*.json submitted through the same
service as the API. Their external_ids make a second run a no-op."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth.models import Group, User
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

import analyses
from redline_errors import IngestError
from validation.services import analysis_submit

DEMO_DIR = Path(analyses.__file__).resolve().parent / "demo"
DEFAULT_PASSWORD = "redline-demo"
# username, group, is_staff, is_superuser
DEMO_USERS = (
    ("reviewer", "reviewer", False, False),
    ("admin", "admin", True, True),
)


class Command(BaseCommand):
    help = (
        "Create the demo users `reviewer` and `admin` (password from REDLINE_DEMO_PASSWORD, "
        f"default {DEFAULT_PASSWORD!r}) and ingest the demo bundles. Safe to run again."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        password = settings.REDLINE_DEMO_PASSWORD
        if not password:
            if not settings.DEBUG:
                # A superuser with a published password must never appear on a real server.
                raise CommandError(
                    "refusing to create demo users with the default password while "
                    "REDLINE_DEBUG is off; set REDLINE_DEMO_PASSWORD"
                )
            password = DEFAULT_PASSWORD

        users = {
            name: _ensure_user(name, group, staff, superuser, password)
            for name, group, staff, superuser in DEMO_USERS
        }

        failed = 0
        for path in sorted(DEMO_DIR.glob("*.json")):
            try:
                result = analysis_submit(data=path.read_bytes(), submitter=users["admin"])
            except IngestError as exc:
                failed += 1
                self.stderr.write(f"{path.name}: error: {exc}")
                continue
            state = "created" if result.created else "already present"
            self.stdout.write(f"{path.name}: {state} (analysis {result.analysis.pk})")

        self.stdout.write("")
        self.stdout.write("Demo users:")
        for name, group, _staff, _superuser in DEMO_USERS:
            self.stdout.write(f"  {name:<9} password: {password}   ({group})")
        if failed:
            raise CommandError(f"{failed} demo bundle(s) could not be ingested")


@transaction.atomic
def _ensure_user(username: str, group: str, staff: bool, superuser: bool, password: str) -> User:
    user, _ = User.objects.get_or_create(username=username)
    changed: list[str] = []
    if user.is_staff != staff or user.is_superuser != superuser or not user.is_active:
        user.is_staff, user.is_superuser, user.is_active = staff, superuser, True
        changed += ["is_staff", "is_superuser", "is_active"]
    # Only re-hash when the password differs, so a second run leaves the row untouched.
    if not user.check_password(password):
        user.set_password(password)
        changed.append("password")
    if changed:
        user.save(update_fields=changed)
    user.groups.add(Group.objects.get(name=group))
    return user
