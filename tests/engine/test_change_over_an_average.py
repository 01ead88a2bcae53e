"""A drop or a rise is taken over the level it started from, never over an average of
the levels: a sentence that states a row's three-year average and the change between two
of its years gives no percentage of the change over the average. A coincidence of that
kind must not pass a wrong percentage, while the right one (the change over its earlier
level) still passes."""

from __future__ import annotations

from validation.engine.pipeline import validate
from validation.engine.types import Bundle, EngineSettings, Verdict

NUMBERS_ONLY = EngineSettings(citations="none")

TABLE = (
    "| ($ in billions) | 2021 | 2020 | 2019 |\n"
    "|---|---|---|---|\n"
    "| Cash and equivalents | $6.0 | $8.1 | $9.3 |\n"
    "| Undrawn credit lines | $18.0 | $18.0 | $18.0 |\n"
)


def check(body: str) -> Verdict:
    items = [{"source_ref": "liquidity", "content": TABLE}]
    return validate(Bundle(query="How is liquidity?", body=body, evidence=items), NUMBERS_ONLY)


def flagged(verdict: Verdict) -> list[str]:
    return [
        finding.text or ""
        for finding in verdict.findings
        if finding.check in ("claims_supported", "no_hallucinations")
    ]


def test_a_drop_over_its_earlier_level_passes_beside_an_average() -> None:
    verdict = check(
        "Cash and equivalents averaged about $7.8 billion over the three years, yet the "
        "2021 balance of $6.0 billion was $2.1 billion lower than a year earlier, a drop "
        "of about 25.9%."
    )

    assert flagged(verdict) == []


def test_a_drop_read_over_the_average_is_flagged() -> None:
    # 2.1 / 7.8 = 26.9%: the change over the average, no reading of a drop.
    verdict = check(
        "Cash and equivalents averaged about $7.8 billion over the three years, yet the "
        "2021 balance of $6.0 billion was $2.1 billion lower than a year earlier, a drop "
        "of about 26.9%."
    )

    assert any("26.9" in text for text in flagged(verdict))
