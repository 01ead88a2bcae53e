"""A prose row's later cells have no words of their own: in "... and segment profit was
$21,150, $19,404 and $4,120, respectively" the last value is preceded by "and" alone. What
the value is comes from its row: the words before the row's first cell. A report that
restates such a value at the scale the rest of the report reads the text at ("$4,120
thousand") is vouched for by those words, as the row's first cell would be; a value the
row's words do not describe, or a wrong margin over it, is still flagged."""

from __future__ import annotations

from validation.engine.pipeline import validate
from validation.engine.types import Bundle, EngineSettings, Verdict

NUMBERS_ONLY = EngineSettings(citations="none")

NOTE = (
    "In fiscal 2021, 2022 and 2023 sales of distributed parts were $402,118, $377,950 and "
    "$25,730, respectively, and related segment profit was $21,150, $19,404 and $4,120, "
    "respectively"
)


def check(body: str) -> Verdict:
    items = [{"source_ref": "note", "content": NOTE}]
    return validate(
        Bundle(query="How did the parts business do?", body=body, evidence=items), NUMBERS_ONLY
    )


def flagged(verdict: Verdict) -> list[str]:
    return [
        finding.text or ""
        for finding in verdict.findings
        if finding.check in ("claims_supported", "no_hallucinations")
    ]


def test_the_last_cell_of_a_prose_row_is_vouched_for_by_its_rows_words() -> None:
    verdict = check(
        "Distributed parts sales fell to $25,730 thousand in fiscal 2023. Related segment "
        "profit dropped to $4,120 thousand in fiscal 2023."
    )

    assert flagged(verdict) == []


def test_a_margin_over_the_rows_last_cells_is_derived() -> None:
    verdict = check(
        "Distributed parts sales fell to $25,730 thousand in fiscal 2023. Related segment "
        "profit dropped to $4,120 thousand in fiscal 2023, a margin of about 16.0%."
    )

    assert flagged(verdict) == []


def test_a_wrong_margin_over_the_rows_last_cells_is_flagged() -> None:
    verdict = check(
        "Distributed parts sales fell to $25,730 thousand in fiscal 2023. Related segment "
        "profit dropped to $4,120 thousand in fiscal 2023, a margin of about 19.0%."
    )

    assert any("19.0" in text for text in flagged(verdict))


def test_a_value_at_another_scale_its_words_do_not_describe_is_flagged() -> None:
    verdict = check("Headcount costs came to $4,120 thousand in fiscal 2023.")

    assert any("4,120" in text for text in flagged(verdict))
