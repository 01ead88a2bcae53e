"""A change followed by "to" and a level ("the share fell 6.2 points to 27.5%") ends at
that level, from the side its words give: a fall comes from above it, a rise from below.
A difference that reaches the level from the other side is a change the sentence does not
state, however well its value lands, so a level quoted from the wrong period ("fell 6.2
points to 33.7%", the earlier year's share) is not explained by it."""

from __future__ import annotations

from validation.engine.pipeline import validate
from validation.engine.types import Bundle, EngineSettings, Verdict

NUMBERS_ONLY = EngineSettings(citations="none")

TABLE = (
    "          Fiscal Year 2022              Fiscal Year 2021\n"
    "               Sales        % of Total     Sales        % of Total\n"
    "North          $512,400        41.2%      $388,950        36.6%\n"
    "South           342,018        27.5%       358,120        33.7%\n"
    "West            389,100        31.3%       315,700        29.7%\n"
    "Total        $1,243,518                 $1,062,770\n"
)


def check(body: str) -> Verdict:
    items = [{"source_ref": "regions", "kind": "text", "content": TABLE}]
    return validate(Bundle(query="How did the mix move?", body=body, evidence=items), NUMBERS_ONLY)


def flagged(verdict: Verdict) -> list[str]:
    return [
        finding.text or ""
        for finding in verdict.findings
        if finding.check in ("claims_supported", "no_hallucinations")
    ]


def test_a_fall_to_the_later_level_passes() -> None:
    verdict = check("The South lost ground: its share of the total fell 6.2 points to 27.5%.")

    assert flagged(verdict) == []


def test_a_fall_to_the_earlier_years_level_is_flagged() -> None:
    verdict = check("The South lost ground: its share of the total fell 6.2 points to 33.7%.")

    assert flagged(verdict) != []


def test_a_rise_to_the_later_level_passes() -> None:
    verdict = check("The North gained: its share of the total rose 4.6 points to 41.2%.")

    assert flagged(verdict) == []


def test_a_rise_to_the_earlier_years_level_is_flagged() -> None:
    verdict = check("The North gained: its share of the total rose 4.6 points to 36.6%.")

    assert flagged(verdict) != []
