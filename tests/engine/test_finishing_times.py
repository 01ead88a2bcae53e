"""A finishing time on a clock of hours, minutes and seconds ("2:31:07") is one length of
time: compared whole with the evidence's times, never as three numbers that may each
stand somewhere (issue 26, round 2)."""

from __future__ import annotations

import pytest

from validation.engine.pipeline import validate
from validation.engine.types import Bundle, EngineSettings, EvidenceItem

NUMBERS_ONLY = EngineSettings(citations="none")

RACE_TEXT = (
    "Mara Lind won the lakeside marathon in 2:31:07, taking 48 seconds off the old course "
    "record. The men's race went to Ivo Brandt, who finished in 2 hours, 14 minutes and "
    "52 seconds. Lind is 31 and ran her 7th marathon."
)


def _times(body: str) -> list[str]:
    verdict = validate(
        Bundle(
            query="Who won the marathon?",
            body=body,
            evidence=[EvidenceItem(source_ref="story", kind="text", content=RACE_TEXT)],
        ),
        NUMBERS_ONLY,
    )
    return [f.text or "" for f in verdict.findings if f.kind == "unsupported_time"]


@pytest.mark.parametrize(
    ("body", "flagged"),
    [
        ("Mara Lind won in 2:31:07, a course record.", None),
        ("Mara Lind won in 2:31:70 minus nothing.", None),  # no time: 70 seconds
        ("Mara Lind won in 2:37:01, a course record.", "2:37:01"),  # digits swapped
        ("Mara Lind won in 2:31:17, a course record.", "2:31:17"),
        # written out in the evidence, in digits in the report
        ("Ivo Brandt took the men's race in 2:14:52.", None),
        ("Ivo Brandt took the men's race in 2:14:25.", "2:14:25"),
        # derived: the old record, 48 seconds slower
        ("The old course record had been 2:31:55.", None),
    ],
)
def test_a_finishing_time_is_compared_whole(body: str, flagged: str | None) -> None:
    assert _times(body) == ([flagged] if flagged else [])
