"""Bundles for tests: a valid bundle to break, and proof that nothing was written (a pytest plugin
loaded by tests/conftest.py)."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.apps import apps

BUNDLE: dict[str, Any] = {
    "external_id": "nvo-2024-q4",
    "title": "Novo Nordisk (NVO) quick screen",
    "query": "Is Novo Nordisk (NVO) a buy? Show owner earnings.",
    "goals": ["Owner earnings", "A decision"],
    "body": (
        "# NVO quick screen\n\n"
        "Owner Earnings: Operating Cash Flow $15.5B - CapEx $0.7B = $14.8B [gurufocus].\n\n"
        "**FINAL DECISION: WATCH**\n**FINAL CONVICTION: MODERATE**\n"
    ),
    "fields": {
        "decision": "watch",
        "conviction": "MODERATE",
        "intrinsic_value": 152.4,
        "margin_of_safety": "11.93",
        "shares_outstanding": 4440000000,
        "currency": "USD",
        "analysts": ["buffett-agent"],
    },
    "evidence": [
        {
            "source_ref": "gurufocus",
            "kind": "tool_output",
            "url": "https://www.gurufocus.com/stock/NVO/financials",
            "content": {"operating_cash_flow": 15500000000, "capex": 700000000, "roic": 0.225},
        },
        {
            "source_ref": "annual-report",
            "kind": "source",
            "content": "Operating cash flow was 15.5 billion USD in 2024.",
        },
    ],
}


@pytest.fixture
def bundle() -> dict[str, Any]:
    """A valid bundle; tests break one thing in their own deep copy."""
    return copy.deepcopy(BUNDLE)


def row_counts() -> dict[str, int]:
    """Rows of every model of Redline's own apps (and users): to prove nothing was written."""
    models = [
        *apps.get_app_config("analyses").get_models(),
        *apps.get_app_config("validation").get_models(),
        apps.get_model("auth", "User"),
    ]
    return {model._meta.label: model._default_manager.count() for model in models}


@pytest.fixture
def nothing_written(db: None) -> Callable[[], Any]:
    @contextmanager
    def check() -> Iterator[None]:
        before = row_counts()
        yield
        assert row_counts() == before

    return check
