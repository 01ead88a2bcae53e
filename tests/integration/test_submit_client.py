"""`redline submit` without --wait against the running app (a live HTTP server and a real
Celery worker): it returns once validation ends and prints the verdict, with the findings
and the fixes the validator proposed; the same bundle sent again follows the same analysis."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from analyses.models import Analysis
from tests.support.bundles import BUNDLE
from validation.services import api_token_create, api_user_create

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

REDLINE = Path(sys.executable).with_name("redline")


def test_submit_prints_the_verdict_when_validation_ends(
    live_server: Any, start_workers: Callable[..., Any], tmp_path: Path
) -> None:
    bundle = copy.deepcopy(BUNDLE)
    bundle["body"] = bundle["body"].replace("= $14.8B", "= $15.8B")  # wrong arithmetic
    path = tmp_path / "bundle.json"
    path.write_text(json.dumps(bundle), encoding="utf-8")
    _, token = api_token_create(user=api_user_create(username="thesis-agent"), scope="write")
    start_workers()
    command = [
        str(REDLINE),
        "submit",
        str(path),
        "--url",
        live_server.url,
        "--token",
        token,
        "--timeout",
        "180",
        "--poll-interval",
        "0.5",
    ]

    first = subprocess.run(command, capture_output=True, text=True, timeout=240)

    assert first.returncode == 0, first.stderr
    result = json.loads(first.stdout)
    analysis = Analysis.objects.get(external_id=BUNDLE["external_id"])
    assert (result["analysis"]["id"], result["outcome"], result["created"]) == (
        analysis.pk,
        "in_review",
        True,
    )
    verdict = result["verdict"]
    assert verdict["decision"] in ("REVISE", "RETRY", "FAIL")
    assert any("15.8" in finding["text"] for finding in verdict["findings"])
    (fix,) = [fix for fix in verdict["fixes"] if fix["find"].endswith("$15.8B")]
    assert fix["replace"].endswith("$14.8B") and fix["verified_with"]
    assert result["review_url"] == f"{live_server.url}/analyses/{analysis.pk}/"

    again = subprocess.run([*command, "--format", "markdown"], capture_output=True, text=True)

    assert again.returncode == 0, again.stderr
    assert f"Analysis {analysis.pk} is **in review**" in again.stdout
    assert "$15.8B" in again.stdout and "VERIFIED_WITH:" in again.stdout
    assert Analysis.objects.count() == 1  # the same external_id and content: the same analysis
