"""`manage.py load_demo`: demo users and bundles. `make run` runs it every time: idempotent."""

from __future__ import annotations

import json
import re
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from pytest_django import Settings

from analyses.bundles import bundle_parse
from analyses.models import Analysis
from tests.support.bundles import row_counts
from validation.engine.pipeline import validate
from validation.engine.types import Bundle, Verdict

pytestmark = pytest.mark.django_db

DEMO = Path(__file__).resolve().parents[3] / "analyses" / "demo"


def _load_demo() -> str:
    out = StringIO()
    call_command("load_demo", stdout=out, stderr=StringIO())
    return out.getvalue()


@pytest.fixture
def demo_password(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setattr(django_settings, "REDLINE_DEMO_PASSWORD", "s3cret-demo")
    return "s3cret-demo"


def test_load_demo_creates_the_users_and_prints_their_credentials(demo_password: Any) -> None:
    out = _load_demo()

    reviewer, admin = User.objects.get(username="reviewer"), User.objects.get(username="admin")
    assert reviewer.check_password(demo_password) and admin.check_password(demo_password)
    assert list(reviewer.groups.values_list("name", flat=True)) == ["reviewer"]
    assert (reviewer.is_staff, reviewer.is_superuser) == (False, False)
    assert list(admin.groups.values_list("name", flat=True)) == ["admin"]
    assert (admin.is_staff, admin.is_superuser) == (True, True)
    assert re.search(r"reviewer\s+password: s3cret-demo", out)
    assert re.search(r"admin\s+password: s3cret-demo", out)


def test_load_demo_ingests_every_demo_bundle(demo_password: Any) -> None:
    out = _load_demo()

    files = sorted(DEMO.glob("*.json"))
    assert len(files) >= 3
    assert Analysis.objects.count() == len(files)
    for path in files:
        assert f"{path.name}: created" in out
    assert all(a.submitter and a.submitter.username == "admin" for a in Analysis.objects.all())
    assert all(a.revisions.count() == 1 and a.attempts.count() == 1 for a in Analysis.objects.all())


def test_running_load_demo_again_creates_nothing(demo_password: Any) -> None:
    _load_demo()
    before = row_counts()
    hashes = dict(User.objects.values_list("username", "password"))

    out = _load_demo()

    assert row_counts() == before
    assert dict(User.objects.values_list("username", "password")) == hashes
    assert out.count("already present") == len(list(DEMO.glob("*.json")))
    assert "password: s3cret-demo" in out


def test_a_new_demo_password_is_applied_on_the_next_run(
    demo_password: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    _load_demo()
    monkeypatch.setattr(django_settings, "REDLINE_DEMO_PASSWORD", "another-one")

    _load_demo()

    assert User.objects.get(username="admin").check_password("another-one")


def test_without_debug_the_default_password_is_refused(
    monkeypatch: pytest.MonkeyPatch, settings: Settings, nothing_written: Any
) -> None:
    monkeypatch.setattr(django_settings, "REDLINE_DEMO_PASSWORD", "")
    settings.DEBUG = False

    with nothing_written(), pytest.raises(CommandError, match="set REDLINE_DEMO_PASSWORD"):
        _load_demo()


def test_in_the_local_run_the_default_password_is_used(
    monkeypatch: pytest.MonkeyPatch, settings: Settings
) -> None:
    monkeypatch.setattr(django_settings, "REDLINE_DEMO_PASSWORD", "")
    settings.DEBUG = True

    out = _load_demo()

    assert User.objects.get(username="reviewer").check_password("redline-demo")
    assert "password: redline-demo" in out


# ---------------------------------------------------------------- the demo bundles themselves


def _demo(name: str) -> dict[str, Any]:
    bundle: dict[str, Any] = json.loads((DEMO / name).read_text("utf-8"))
    return bundle


@pytest.mark.parametrize("path", sorted(DEMO.glob("*.json")), ids=lambda p: p.name)
def test_each_demo_bundle_is_valid_and_has_an_external_id(path: Any) -> None:
    bundle = bundle_parse(path.read_bytes())

    assert bundle.external_id
    assert bundle.evidence
    assert bundle.body.startswith("# ")


def test_the_nvo_thesis_carries_the_planted_errors_and_its_structured_fields(
    demo_password: Any,
) -> None:
    _load_demo()
    analysis = Analysis.objects.get(external_id="demo-nvo-thesis-2024")
    body = analysis.revisions.get().body
    financials = analysis.evidence.get(source_ref="gurufocus_financials").content_json
    assert financials is not None

    assert (financials["operating_cash_flow"], financials["capex"]) == (15500000000, 700000000)
    assert financials["roic"] == 0.225
    quote = analysis.evidence.get(source_ref="gurufocus_quote").content_json
    assert quote is not None and quote["price"] == 134.22
    assert "Operating Cash Flow $15.5B - CapEx $0.7B = $15.8B" in body  # wrong: 14.8
    assert "Return on invested capital was 22.0%" in body  # close but wrong: 22.5%
    assert "grew 31%" in body  # in no evidence
    assert (analysis.decision, analysis.conviction) == ("WATCH", "MODERATE")
    assert analysis.numeric_fields["intrinsic_value"] == "152.4"


def test_the_options_answer_carries_the_invented_total_and_a_raw_url() -> None:
    bundle = _demo("02-aapl-options-volume.json")
    chain = bundle["evidence"][0]["content"]

    assert (chain["call_volume"], chain["put_volume"]) == (10899, 9976)
    assert "97,271" in bundle["body"]
    assert "= 55.2%" in bundle["body"]  # 10,899 / 20,875 is 52.2%
    assert "\nData: https://www.nasdaq.com/" in bundle["body"]


def test_the_clean_answer_links_only_urls_of_its_evidence() -> None:
    bundle = _demo("03-csmi-eps-surprise.json")
    links = re.findall(r"\]\((https?://[^)]+)\)", bundle["body"])
    urls = {item.get("url") for item in bundle["evidence"]}

    assert "(0.50 - 0.45) / 0.45 * 100 = 11.11%" in bundle["body"]
    assert links and set(links) <= urls
    assert not re.search(r"(?<!\()https?://", bundle["body"])  # no raw URL


# ---------------------------------------------------------------- what the validator makes of them


def _verdict(name: str) -> Verdict:
    return validate(Bundle.model_validate(_demo(name)))


def test_the_nvo_thesis_is_caught_with_its_three_planted_errors_and_two_proven_fixes() -> None:
    verdict = _verdict("01-nvo-thesis.json")

    found = {(f.kind, f.text) for f in verdict.findings}
    assert {("arithmetic", "$15.8B"), ("close_but_wrong", "22.0%"), ("orphan", "31%")} <= found
    fixes = {(fix.find, fix.replace) for fix in verdict.fixes}
    assert {("$15.8B", "$14.8B"), ("22.0%", "22.5%")} <= fixes
    assert verdict.decision != "APPROVE"
    assert (verdict.fields.decision, verdict.fields.conviction) == ("WATCH", "MODERATE")


def test_the_options_answer_is_caught_with_the_invented_total_and_the_wrong_percentage() -> None:
    verdict = _verdict("02-aapl-options-volume.json")

    found = {(f.kind, f.text) for f in verdict.findings}
    assert {("orphan", "97,271"), ("arithmetic", "55.2%")} <= found
    assert "raw_url" in {f.kind for f in verdict.findings}
    assert ("55.2%", "52.2%") in {(fix.find, fix.replace) for fix in verdict.fixes}
    assert verdict.decision != "APPROVE"


def test_the_clean_eps_answer_is_approved() -> None:
    verdict = _verdict("03-csmi-eps-surprise.json")

    assert verdict.findings == []
    assert verdict.decision == "APPROVE"
