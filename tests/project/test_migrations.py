"""The migrations describe the models exactly: a model change without its migration (a
field, a constraint, even a help text) fails here, before a deploy finds it."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.db.migrations.loader import MigrationLoader


@pytest.mark.django_db
def test_every_model_change_has_its_migration() -> None:
    out = StringIO()
    try:
        call_command("makemigrations", "--check", "--dry-run", stdout=out, stderr=out)
    except SystemExit as missing:  # makemigrations --check exits 1 when one is missing
        pytest.fail(f"a model change has no migration (exit {missing.code}):\n{out.getvalue()}")
    assert "No changes detected" in out.getvalue()


def test_migrations_form_one_line_per_app() -> None:
    """Each app's migrations are numbered in one line: no two leaves to merge."""
    loader = MigrationLoader(None, ignore_no_migrations=True)
    leaves = loader.graph.leaf_nodes()
    apps = [app for app, _ in leaves]
    assert len(apps) == len(set(apps)), f"an app has more than one leaf migration: {leaves}"
