"""A result the report derives from evidence digits whose document declares their scale
("(dollars in millions)": 3,118.2 - 2,905.7 = 212.5 for "$212.5 million") is an operand
of later results in full units, at the scale the report states it: its gap to another
amount is computed in millions of dollars, not in the table's bare digits. A wrong gap is
still flagged."""

from __future__ import annotations

import pytest

from validation.engine.checks.numeric._derive_finer import in_full_units
from validation.engine.pipeline import validate
from validation.engine.types import Bundle, EngineSettings, Verdict

NUMBERS_ONLY = EngineSettings(citations="none")

TABLE = (
    "| (dollars in millions) | 2022 | 2021 |\n"
    "|---|---|---|\n"
    "| Gross value | 5,012.7 | 4,871.0 |\n"
    "| Accumulated depreciation | (3,118.2) | (2,905.7) |\n"
    "| Net | $1,894.5 | $1,965.3 |\n"
)
NOTE = "Depreciation expense totaled $301.4 million in 2022 and $262.8 million in 2021."


def check(body: str) -> Verdict:
    items = [
        {"source_ref": "ppe", "content": TABLE},
        {"source_ref": "note", "content": NOTE},
    ]
    return validate(
        Bundle(query="How is the asset base ageing?", body=body, evidence=items), NUMBERS_ONLY
    )


def flagged(verdict: Verdict) -> list[str]:
    return [
        finding.text or ""
        for finding in verdict.findings
        if finding.check in ("claims_supported", "no_hallucinations")
    ]


def test_a_gap_to_a_derived_change_is_taken_in_full_units() -> None:
    verdict = check(
        "Accumulated depreciation rose $212.5 million in 2022, less than the year's "
        "$301.4 million expense. The gap of about $88.9 million reflects retirements."
    )

    assert flagged(verdict) == []


def test_a_wrong_gap_to_a_derived_change_is_flagged() -> None:
    verdict = check(
        "Accumulated depreciation rose $212.5 million in 2022, less than the year's "
        "$301.4 million expense. The gap of about $98.9 million reflects retirements."
    )

    assert any("98.9" in text for text in flagged(verdict))


def test_a_result_over_digits_in_millions_is_brought_to_full_units() -> None:
    assert in_full_units(212.5, 212_500_000.0) == pytest.approx(212_500_000.0)
    assert in_full_units(88.9, 88_900_000.0) == pytest.approx(88_900_000.0)


def test_a_result_already_in_full_units_keeps_its_exact_value() -> None:
    assert in_full_units(80_699_999.99, 80_700_000.0) == 80_699_999.99
    assert in_full_units(1_234.4, 1_234.0) == 1_234.4  # a count, rounded as written


def test_a_result_in_thousands_stated_in_billions_takes_a_power_of_a_thousand() -> None:
    # 1,200,181 thousand, stated as "$1.2 billion"
    assert in_full_units(1_200_181.0, 1_200_000_000.0) == pytest.approx(1_200_181_000.0)
