"""deploy/ agrees with the settings and with what the integration tests run (issue 27).

tests/integration/test_nginx_proxy.py runs deploy/nginx.conf under nginx, and
tests/integration/test_worker_survives_broker.py runs the worker's command and stands in for
its unit's ``Restart=always``; these checks keep the files and those tests from drifting."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from django.conf import settings

from tests.support.stack import RESTART_SECONDS, worker_command

DEPLOY = Path(settings.BASE_DIR) / "deploy"
UNITS = (
    "redline-web.service",
    "redline-worker.service",
    "redline-webhooks.service",
    "redline-beat.service",
)


def _unit(name: str) -> dict[str, list[str]]:
    keys: dict[str, list[str]] = {}
    for line in (DEPLOY / name).read_text("utf-8").splitlines():
        if "=" in line and not line.startswith(("#", "[")):
            key, value = line.split("=", 1)
            keys.setdefault(key, []).append(value)
    return keys


@pytest.mark.parametrize("name", UNITS)
def test_every_unit_is_restarted_whatever_ends_it(name: str) -> None:
    unit = _unit(name)
    assert unit["Restart"] == ["always"]
    assert float(unit["RestartSec"][0]) == RESTART_SECONDS
    assert unit["EnvironmentFile"] == ["/etc/redline/redline.env"]


def test_the_tests_run_the_worker_units_command() -> None:
    command = shlex.split(_unit("redline-worker.service")["ExecStart"][0])
    tested = worker_command("QUEUE")
    # The test adds only its own queue.
    tested.remove("-Q")
    tested.remove("QUEUE")
    assert Path(command[0]).name == Path(tested[0]).name == "celery"
    assert sorted(command[1:]) == sorted(tested[1:])


def test_the_webhook_unit_consumes_the_webhook_queue_only() -> None:
    command = shlex.split(_unit("redline-webhooks.service")["ExecStart"][0])
    queue = command[command.index("-Q") + 1]

    assert queue == settings.REDLINE_WEBHOOK_QUEUE
    assert "-Q" not in shlex.split(_unit("redline-worker.service")["ExecStart"][0])


def test_gunicorn_listens_on_loopback_only() -> None:
    assert _unit("redline-web.service")["Environment"] == ["REDLINE_BIND=127.0.0.1:8000"]
    assert "server 127.0.0.1:8000 " in (DEPLOY / "nginx.conf").read_text("utf-8")


def test_nginx_refuses_exactly_the_bodies_django_would() -> None:
    site = (DEPLOY / "nginx.conf").read_text("utf-8")
    limit = re.search(r"client_max_body_size (\d+);", site)

    assert limit is not None
    assert int(limit.group(1)) == settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    assert f"over the {settings.DATA_UPLOAD_MAX_MEMORY_SIZE}-byte limit" in site


def test_nginx_forwards_the_address_it_saw_and_nothing_a_client_sent() -> None:
    site = (DEPLOY / "nginx.conf").read_text("utf-8")

    assert "proxy_set_header X-Forwarded-For $remote_addr;" in site
    assert 'proxy_set_header Forwarded "";' in site
    assert "proxy_request_buffering on;" in site
    assert "proxy_buffering on;" in site
