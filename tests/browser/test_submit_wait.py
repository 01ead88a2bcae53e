"""`redline submit --wait` against the running app (a live HTTP server and a real Celery
worker) while a reviewer decides in Chromium: the command prints the approved text of the
bundle the reviewer signs off (exit 0), and exits 1 for the one the reviewer rejects."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from analyses.models import Analysis
from tests.support.bundles import BUNDLE
from tests.support.worker import Worker, wait_until
from validation.models import Attempt
from validation.services import api_token_create, api_user_create

pytestmark = [
    pytest.mark.browser,
    pytest.mark.integration,
    pytest.mark.django_db(transaction=True),
]

WAIT_MS = 120_000  # a worker starting and validating on a loaded 2-core machine
REDLINE = Path(sys.executable).with_name("redline")


def _submit_in_background(
    live_server: Any, tmp_path: Path, external_id: str, *options: str
) -> subprocess.Popen[str]:
    """`redline submit --wait` as a pipeline runs it: its own process, the REST API only."""
    bundle = copy.deepcopy(BUNDLE)
    bundle["external_id"] = external_id
    path = tmp_path / f"{external_id}.json"
    path.write_text(json.dumps(bundle), encoding="utf-8")
    _, token = api_token_create(user=api_user_create(username="thesis-agent"), scope="write")
    return subprocess.Popen(
        [
            str(REDLINE),
            "submit",
            str(path),
            "--url",
            live_server.url,
            "--token",
            token,
            "--wait",
            "--timeout",
            "180",
            "--poll-interval",
            "0.5",
            *options,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _open_when_in_review(
    page: Page, live_server: Any, external_id: str, worker: Worker
) -> Analysis:
    analysis = wait_until(
        lambda: Analysis.objects.filter(external_id=external_id).first(),
        timeout=30,
        what=f"the analysis {external_id} to be created",
        workers=[worker],
    )
    page.goto(f"{live_server.url}/analyses/{analysis.pk}/")
    try:
        expect(page.locator(".review-head .status-pill")).to_have_text("In review", timeout=WAIT_MS)
    except AssertionError as error:  # say where the attempt stands and what the worker did
        attempts = list(
            Attempt.objects.filter(analysis=analysis).values(
                "number", "status", "runs", "queued_at", "started_at", "lease_expires_at", "error"
            )
        )
        raise AssertionError(
            f"{error}\nworker running: {worker.running}; attempts: {attempts}\n"
            f"--- worker log (tail) ---\n{worker.log_tail()}"
        ) from None
    return analysis


def _finish(process: subprocess.Popen[str]) -> tuple[int, str, str]:
    try:
        out, err = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
        raise AssertionError(f"redline submit did not return\n{out}\n{err}") from None
    return process.returncode, out, err


def test_submit_wait_prints_the_approved_text_when_a_reviewer_signs_off(
    live_server: Any,
    page: Page,
    login: Callable[[Any], None],
    reviewer: Any,
    start_worker: Callable[[], Any],
    tmp_path: Path,
) -> None:
    worker = start_worker()
    process = _submit_in_background(live_server, tmp_path, "nvo-signed", "--format", "markdown")
    login(reviewer)
    analysis = _open_when_in_review(page, live_server, "nvo-signed", worker)
    assert process.poll() is None  # in review is not the end of a --wait

    page.locator("summary", has_text="Sign off").click()
    page.fill("#sign-off-comment", "Owner earnings check out.")
    page.get_by_role("button", name="Approve and sign off").click()
    expect(page.locator(".review-head .status-pill")).to_have_text("Approved")

    code, out, err = _finish(process)
    assert code == 0, err
    assert out.startswith(BUNDLE["body"].rstrip())  # the approved text, then its appendix
    assert "## Validation appendix" in out
    analysis.refresh_from_db()
    assert analysis.status == Analysis.Status.APPROVED


def test_submit_wait_exits_1_when_a_reviewer_rejects(
    live_server: Any,
    page: Page,
    login: Callable[[Any], None],
    reviewer: Any,
    start_worker: Callable[[], Any],
    tmp_path: Path,
) -> None:
    worker = start_worker()
    process = _submit_in_background(live_server, tmp_path, "nvo-rejected")
    login(reviewer)
    analysis = _open_when_in_review(page, live_server, "nvo-rejected", worker)

    page.locator("summary", has_text="Reject analysis").click()
    page.fill("#reject-comment", "The thesis ignores the patent cliff.")
    page.get_by_role("button", name="Reject analysis").click()
    expect(page.locator(".review-head .status-pill")).to_have_text("Rejected")

    code, out, err = _finish(process)
    assert code == 1, err
    result = json.loads(out)
    assert (result["outcome"], result["analysis"]["id"]) == ("rejected", analysis.pk)
    assert result["verdict"]["decision"] == "APPROVE"  # the validator's word; a person's last
    assert f"analysis {analysis.pk} rejected" in err
