"""manage.py pipeline, policy, webhook and api_token --pipeline: configuration from the shell;
a bad value is a clear error that changes nothing."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.test import override_settings

from analyses.models import Pipeline
from tests.factories import UserFactory
from validation.models import ApiToken, Policy, WebhookEndpoint

pytestmark = pytest.mark.django_db


def _run(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_pipeline_create_and_a_token_for_it() -> None:
    UserFactory.create(username="agent")
    _run("pipeline", "create", "thesis", "--name", "Investment thesis")
    raw, _ = _run("api_token", "create", "agent", "--scope", "write", "--pipeline", "thesis")

    token = ApiToken.objects.get(prefix=raw.strip()[:12])
    assert token.pipeline.slug == "thesis" and token.pipeline.name == "Investment thesis"
    assert "thesis" in _run("pipeline", "list")[0]


def test_a_token_without_pipeline_goes_to_the_default_as_before() -> None:
    UserFactory.create(username="agent")
    raw, _ = _run("api_token", "create", "agent", "--scope", "read")
    assert ApiToken.objects.get(prefix=raw.strip()[:12]).pipeline.slug == "default"


def test_an_unknown_pipeline_creates_neither_user_nor_token() -> None:
    with pytest.raises(CommandError, match="no pipeline"):
        _run("api_token", "create", "newbot", "--create-user", "--pipeline", "nope")
    assert not ApiToken.objects.exists()
    assert not Pipeline.objects.filter(slug="nope").exists()


def test_policy_set_and_show_for_a_pipeline() -> None:
    _run("pipeline", "create", "thesis")
    shown, _ = _run("policy", "show", "--pipeline", "thesis")
    assert "no policy of its own" in shown

    _run("policy", "set", "--pipeline", "thesis", "citations=none", "approve_threshold=0.9")
    shown, _ = _run("policy", "show", "--pipeline", "thesis")

    assert "citations=none" in shown and "approve_threshold=0.9" in shown
    assert Policy.load().citations != "none"


def test_policy_set_refuses_a_bad_value_and_changes_nothing() -> None:
    before = Policy.load().settings_snapshot()
    with pytest.raises(CommandError, match=r"unchanged.*approve_threshold"):
        _run("policy", "set", "claim_minutes=45", "approve_threshold=2")
    assert Policy.load().settings_snapshot() == before


def test_webhook_add_prints_the_secret_once() -> None:
    _run("pipeline", "create", "thesis")
    with override_settings(REDLINE_WEBHOOK_ALLOWED_HOSTS=["127.0.0.1"]):
        secret, note = _run(
            "webhook",
            "add",
            "thesis",
            "http://127.0.0.1:18599/hook",
            "--events",
            "analysis.approved",
            "analysis.rejected",
        )
    endpoint = WebhookEndpoint.objects.get()
    assert secret.strip() == endpoint.secret and "shown once" in note
    assert endpoint.events == ["analysis.approved", "analysis.rejected"]
    assert secret.strip() not in _run("webhook", "list")[0]


def test_webhook_add_refuses_a_metadata_url() -> None:
    _run("pipeline", "create", "thesis")
    with pytest.raises(CommandError, match="refused"):
        _run("webhook", "add", "thesis", "http://169.254.169.254/latest/")
    assert not WebhookEndpoint.objects.exists()
