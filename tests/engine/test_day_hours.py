"""A time said of a weekday is compared with that weekday's hours in the evidence: a
closing time that is another day's passes no longer (issue 26, round 2)."""

from __future__ import annotations

from typing import Any

import pytest

from validation.engine.checks._day_hours import named_days
from validation.engine.pipeline import validate
from validation.engine.types import Bundle, EngineSettings, EvidenceItem, Finding

NUMBERS_ONLY = EngineSettings(citations="none")

BAKERY: dict[str, Any] = {
    "name": "Quayside Bakery",
    "hours": {"Mon-Thu": "7:0-18:0", "Fri": "7:0-20:30", "Sat": "8:0-20:30", "Sun": "8:0-14:0"},
    "brunch": "served until 11:30 am",
}


def _times(body: str) -> list[Finding]:
    verdict = validate(
        Bundle(
            query="When is Quayside Bakery open?",
            body=body,
            evidence=[EvidenceItem(source_ref="lookup", kind="tool_output", content=BAKERY)],
        ),
        NUMBERS_ONLY,
    )
    return [f for f in verdict.findings if f.kind == "unsupported_time"]


def test_each_days_hours_as_the_record_gives_them_pass() -> None:
    body = (
        "Quayside Bakery is open Monday through Thursday 7 am to 6 pm, Friday 7 am to "
        "8:30 pm, Saturday 8 am to 8:30 pm, and Sunday 8 am to 2 pm."
    )
    assert _times(body) == []


@pytest.mark.parametrize(
    ("body", "wrong"),
    [
        ("On Sunday it is open 8 am to 6 pm.", "6 pm"),  # Monday's closing time
        ("Friday 7 am to 6 pm, Saturday 8 am to 8:30 pm.", "6 pm"),
        ("It opens at 8 am Monday-Thursday.", None),  # the day after the time: not bound
        ("Monday-Thursday it opens at 8 am.", "8 am"),  # Saturday's opening time
    ],
)
def test_a_time_of_another_day_is_flagged_for_the_day_it_is_said_of(
    body: str, wrong: str | None
) -> None:
    found = [body[f.start : f.end].rstrip(".") for f in _times(body)]

    assert found == ([wrong] if wrong else [])


def test_a_time_the_evidence_also_gives_outside_the_days_hours_passes() -> None:
    assert _times("Brunch is served on Sunday until 11:30 am.") == []


def test_day_ranges_and_short_names_are_read_in_full() -> None:
    assert named_days("Tue-Thu") == ("tuesday", "wednesday", "thursday")
    assert named_days("Monday, Wednesday and Friday") == ("monday", "wednesday", "friday")
    assert named_days("weekends") == ("saturday", "sunday")
    assert named_days("she sat in the sun") == ()
