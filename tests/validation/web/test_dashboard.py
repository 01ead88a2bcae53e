"""The dashboard: reviewers and admins only; its data is what the charts draw."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from tests.support.review_data import add_fix, analysis_in_review
from validation.models import Fix

pytestmark = pytest.mark.django_db


def test_the_dashboard_page_loads_its_script_from_static(client: Client, reviewer: User) -> None:
    client.force_login(reviewer)
    response = client.get("/dashboard/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "/static/js/dashboard.js" in html
    assert "<script>" not in html and "style=" not in html


def test_the_data_counts_decisions_confidence_and_acceptance(
    client: Client, reviewer: User
) -> None:
    analysis = analysis_in_review(decision="REVISE")
    add_fix(analysis, "$15.8B", "$14.8B", status=Fix.Status.REJECTED)
    add_fix(analysis, "10.5B", "10.4B", status=Fix.Status.ACCEPTED)
    client.force_login(reviewer)
    data = client.get("/dashboard/data/").json()
    assert sum(b["count"] for b in data["confidence_histogram"]) == 1
    [origin] = data["fix_acceptance_by_origin"]
    assert (origin["accepted"], origin["rejected"], origin["rate"]) == (1, 1, 0.5)
    assert data["oldest_waiting"][0]["id"] == analysis.pk


def test_outsiders_get_403_and_the_queue_links_to_it(
    client: Client, outsider: User, reviewer: User
) -> None:
    client.force_login(outsider)
    assert client.get("/dashboard/").status_code == 403
    assert client.get("/dashboard/data/").status_code == 403
    client.force_login(reviewer)
    assert 'href="/dashboard/"' in client.get("/").content.decode()
