"""A line item the evidence gives twice: rounded in prose ("revenue of $2.4 billion,
up from $1,873.6 million") and to the unit in a table (2,412,507 and 1,873,552, in
thousands). A report that states the prose figure and then the change computes from the
table's digits: the stated figure's row takes the table row its cell rounds as its row too.
A change the table's digits do not give is still flagged, and a cell of two significant
digits ("$2.4 billion" alone) points at no table row."""

from __future__ import annotations

from validation.engine.pipeline import validate
from validation.engine.types import Bundle, EngineSettings, Verdict

NUMBERS_ONLY = EngineSettings(citations="none")

TABLE = (
    "                Fiscal 2022        Fiscal 2021\n"
    "North           $1,010,220         $  803,914\n"
    "South              902,117            671,405\n"
    "Islands            500,170            398,233\n"
    "Total           $2,412,507         $1,873,552\n"
)
PROSE = (
    "Revenue of $2.4 billion for fiscal 2022 increased 28.8% from $1,873.6 million for "
    "fiscal 2021, driven by the new northern routes."
)
SCALE = "Revenue by region was as follows (dollars in thousands):"


def check(body: str, prose: str = PROSE) -> Verdict:
    items = [
        {"source_ref": "regions", "kind": "text", "content": TABLE},
        {"source_ref": "p1", "content": prose},
        {"source_ref": "p2", "content": SCALE},
    ]
    return validate(Bundle(query="How did revenue grow?", body=body, evidence=items), NUMBERS_ONLY)


def flagged(verdict: Verdict) -> list[str]:
    return [
        finding.text or ""
        for finding in verdict.findings
        if finding.check in ("claims_supported", "no_hallucinations")
    ]


def test_a_change_from_the_table_row_a_rounded_prose_figure_restates_is_derived() -> None:
    verdict = check(
        "Revenue rose 28.8% to $2.4 billion. That is an increase of $539.0 million in one "
        "year, mostly from the northern routes."
    )

    assert flagged(verdict) == []


def test_a_wrong_change_from_that_table_row_is_flagged() -> None:
    verdict = check(
        "Revenue rose 28.8% to $2.4 billion. That is an increase of $593.0 million in one "
        "year, mostly from the northern routes."
    )

    assert any("593.0" in text for text in flagged(verdict))


def test_a_figure_of_two_significant_digits_points_at_no_table_row() -> None:
    verdict = check(
        "Revenue rose to $2.4 billion. That is an increase of $539.0 million in one "
        "year, mostly from the northern routes.",
        prose="Revenue was $2.4 billion for fiscal 2022, driven by the new northern routes.",
    )

    assert any("539.0" in text for text in flagged(verdict))
