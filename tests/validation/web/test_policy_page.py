"""Reviewers read the Policy (issue 11, point 8); only admins change it, in the admin."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.test import Client
from django.urls import reverse

from validation.models import Policy


def test_a_reviewer_reads_the_policy(client_for: Callable[..., Client], reviewer: Any) -> None:
    response = client_for(reviewer).get(reverse("policy"))
    assert response.status_code == 200
    html = response.content.decode()
    assert "Max revise loops" in html and "Approve threshold" in html
    assert "an admin changes it" in html
    assert "<form" not in html.split('id="policy-title"', 1)[1]


def test_a_reviewer_cannot_change_the_policy(
    client_for: Callable[..., Client], reviewer: Any
) -> None:
    response = client_for(reviewer).post(reverse("policy"), {"max_revise_loops": 9})
    assert response.status_code == 405
    assert Policy.load().max_revise_loops == 2


def test_an_outsider_may_not_read_it(client_for: Callable[..., Client], outsider: Any) -> None:
    assert client_for(outsider).get(reverse("policy")).status_code == 403
