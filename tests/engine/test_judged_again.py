"""A report judged again against the same evidence index (a revision re-checked, the
benchmark's warm run) takes the decisions of its closed search and of its slipped-digit
search remembered on the index: the answer must be the one a fresh index gives, and
another report judged in between must not disturb it."""

from __future__ import annotations

import re
from typing import Any

from validation.engine.checks.numeric import analyze, build_index
from validation.engine.types import EngineSettings, EvidenceItem

SETTINGS = EngineSettings()

TABLE = (
    "| Line item | FY2024 | FY2023 |\n|---|---|---|\n"
    "| Subscription revenue | 8,400 | 7,000 |\n"
    "| Services revenue | 1,600 | 2,000 |\n"
    "| Total revenue | 10,000 | 9,000 |\n"
)

# Derived figures (a growth rate, a difference, a share), a rate whose digits are swapped
# (02.0% for 20.0%) and a wrong base beside them.
REPORT = (
    "Subscription revenue grew 20.0% to 8,400 from 7,000, an increase of 1,400.\n"
    "Services revenue fell to 1,600 from 2,000, a decline of 400.\n"
    "Subscription revenue was 84.0% of the total revenue of 10,000.\n"
    "Services revenue declined 02.0% from 2,000 to 1,600.\n"
    "Total revenue rose 11.1% to 10,000, up from 9,500.\n"
)

OTHER = "Services revenue was 1,600 and subscription revenue 8,400, together 10,000.\n"


def _answer(body: str, index: Any) -> tuple[str, str, str]:
    result = analyze(body, index, settings=SETTINGS)
    parts = (result.report.matches, result.findings, result.fixes)
    # Without the clock readings of the tool calls: the only part not a function of the input.
    return tuple(_CLOCK.sub("", repr(part)) for part in parts)  # type: ignore[return-value]


_CLOCK = re.compile(r"duration_ms=[0-9.e-]+")


def _index() -> Any:
    return build_index([EvidenceItem(source_ref="table", content=TABLE)])


def test_a_report_judged_again_gets_the_answer_a_fresh_index_gives() -> None:
    fresh = _answer(REPORT, _index())
    index = _index()
    first = _answer(REPORT, index)
    _answer(OTHER, index)
    again = _answer(REPORT, index)

    assert first == fresh
    assert again == fresh
    assert '"derived"' in fresh[0] or "'derived'" in fresh[0]  # the closed search took part


def test_another_report_on_a_remembered_index_is_judged_afresh() -> None:
    index = _index()
    _answer(REPORT, index)

    assert _answer(OTHER, index) == _answer(OTHER, _index())
