"""A filing laid out in aligned columns sets a currency sign apart from a short value's
digits ("$ 7.5" under "$11.4"): the sign is still that cell's unit, so the cell is one of
its row's like cells and the row's periods are averaged or summed with it. A wrong
average of the same row is still flagged."""

from __future__ import annotations

from validation.engine.pipeline import validate
from validation.engine.types import Bundle, EngineSettings, Verdict

NUMBERS_ONLY = EngineSettings(citations="none")

LAYOUT = (
    "($ in billions)\n"
    "                                            2021          2020          2019\n"
    "Free cash flow                             $12.9         $13.4         $14.1\n"
    "Cash and marketable securities             $ 7.5         $11.4         $10.6\n"
    "Undrawn revolving credit                   $20.0         $20.0         $20.0\n"
)


def check(body: str) -> Verdict:
    items = [{"source_ref": "liquidity", "kind": "text", "content": LAYOUT}]
    return validate(Bundle(query="How is liquidity?", body=body, evidence=items), NUMBERS_ONLY)


def flagged(verdict: Verdict) -> list[str]:
    return [
        finding.text or ""
        for finding in verdict.findings
        if finding.check in ("claims_supported", "no_hallucinations")
    ]


def test_a_rows_average_takes_the_cell_whose_sign_stands_apart() -> None:
    verdict = check(
        "Cash and marketable securities averaged roughly $9.8 billion over the three "
        "years, ending 2021 at $7.5 billion."
    )

    assert flagged(verdict) == []


def test_a_wrong_average_of_that_row_is_flagged() -> None:
    verdict = check(
        "Cash and marketable securities averaged roughly $10.8 billion over the three "
        "years, ending 2021 at $7.5 billion."
    )

    assert any("10.8" in text for text in flagged(verdict))
