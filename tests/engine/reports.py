"""A report validated against evidence, as the engine tests of its numbers ask it: the
settings of the dev sets (no citation rule), and what a test reads of the verdict."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from validation.engine.checks.numeric._derive_pool import Operand
from validation.engine.pipeline import validate
from validation.engine.types import Bundle, EngineSettings, Verdict

NUMBERS_ONLY = EngineSettings(citations="none")


def check(body: str, *evidence: tuple[str, Any], query: str = "What changed?") -> Verdict:
    """The verdict on `body` against (source_ref, content) items; a content that is not
    text is sent as JSON."""
    items = [
        {"source_ref": ref, "content": content if isinstance(content, str) else json.dumps(content)}
        for ref, content in evidence
    ]
    return validate(Bundle(query=query, body=body, evidence=items), NUMBERS_ONLY)


def check_record(path: Path, ident: str) -> Verdict:
    """The verdict on the bundle `ident` of a labelled set (bench/data/*.jsonl)."""
    (bundle,) = (
        record["bundle"]
        for record in map(json.loads, path.open())
        if record["bundle"]["id"] == ident
    )
    return validate(
        Bundle(query=bundle["query"], body=bundle["body"], evidence=bundle["evidence"]),
        NUMBERS_ONLY,
    )


def status(verdict: Verdict, text: str) -> str:
    """How the numbers check judged the number written as `text`."""
    return next(match.status for match in verdict.numbers.matches if match.text == text)


def flagged(verdict: Verdict) -> list[str]:
    """The texts of the findings on numbers (claims supported, no hallucinations)."""
    return [
        finding.text or ""
        for finding in verdict.findings
        if finding.check in ("claims_supported", "no_hallucinations")
    ]


def fixes(verdict: Verdict) -> dict[str, str]:
    """Each proposed fix, find -> replace."""
    return {fix.find: fix.replace for fix in verdict.fixes}


def fixes_on(verdict: Verdict, text: str) -> list[tuple[str, str]]:
    """The fixes whose find holds `text`."""
    return [(fix.find, fix.replace) for fix in verdict.fixes if text in fix.find]


def findings_on(verdict: Verdict, text: str) -> list[str]:
    """The kinds of the findings on exactly `text`."""
    return [finding.kind for finding in verdict.findings if finding.text == text]


def cell(
    value: float,
    strength: int,
    row: int,
    column: int,
    year: int = 0,
    *,
    also: tuple[tuple[int, int], ...] = (),
) -> Operand:
    """An evidence cell as the derived search's pool holds it: an amount in full units at
    `strength`, in (`row`, `column`) of table 0, of `year`, and `also` in those other cells."""
    return Operand(
        value=value,
        text=f"{value:g}",
        percent=False,
        digits=1.0,
        strength=strength,
        row=row,
        column=column,
        item=0,
        year=year,
        also=tuple((r, c, 0) for r, c in also),
    )
