"""Years and dates as claims: a year the report states that neither the evidence nor
the query mentions is unsupported ("revenue rose in 2021" over a transcript about
2022). Years are skipped by the number extractor (they are not amounts), so this
check reads them on its own.

Linear: one regex pass without nested quantifiers over the body; then, for each of
the (at most 200) distinct years that date a figure, substring searches over the
query and each evidence item (JSON evidence as its serialized text, keys included).
"""

from __future__ import annotations

import json
import re
from bisect import bisect_left
from collections.abc import Sequence

from validation.engine.types import EvidenceItem, Finding

# A year standing alone or after "FY": not part of a longer number, an amount, a
# percentage or a decimal ("2,019", "$2019", "2019%", "2019.5").
_REPORT_YEAR = re.compile(
    r"(?:(?<=FY)|(?<=FY )|(?<![\w.,$\u20ac\u00a3%/-]))((?:19|20)\d\d)(?![\w%$]|[.,]\d)"
)


def _evidence_texts(evidence: Sequence[EvidenceItem]) -> list[str]:
    texts: list[str] = []
    for item in evidence:
        content = item.content
        texts.append(content if isinstance(content, str) else json.dumps(content))
        texts.append(item.source_ref)
    return texts


def _mentions(text: str, year: str) -> bool:
    """`year` stands in `text` as four digits of their own ("Dec2022", "2022-12-31")."""
    position = text.find(year)
    while position >= 0:
        before = text[position - 1] if position else " "
        after = text[position + 4] if position + 4 < len(text) else " "
        if not before.isdigit() and not after.isdigit():
            return True
        position = text.find(year, position + 1)
    return False


def check_years(
    body: str,
    query: str,
    evidence: Sequence[EvidenceItem],
    claim_spans: Sequence[tuple[int, int]],
) -> list[Finding]:
    """A finding for each year of the body that dates a figure (it stands in a
    sentence with a numeric claim) and that the evidence and the query never mention
    (one per distinct year: its first such mention carries it). A year in prose
    without a figure ("as of early 2023") is context, not a claim about the data."""
    if not evidence or not claim_spans:
        return []
    starts = [start for start, _ in claim_spans]
    stated = [
        (match.start(1), match.end(1), match.group(1)) for match in _REPORT_YEAR.finditer(body)
    ]
    if not stated:
        return []
    candidates = [
        (start, end, year)
        for start, end, year in stated
        if _dates_a_figure(body, start, end, starts)
    ]
    if not candidates:
        return []
    texts = [query, *_evidence_texts(evidence)]
    findings: list[Finding] = []
    decided: dict[str, bool] = {}
    for start, end, year in candidates:
        if year in decided:
            continue
        decided[year] = any(_mentions(text, year) for text in texts)
        if decided[year]:
            continue
        findings.append(
            Finding(
                check="no_hallucinations",
                kind="unsupported_year",
                severity="major",
                message=f"the year {year} appears in no evidence item and not in the query",
                start=start,
                end=end,
                text=year,
            )
        )
    return findings


def _dates_a_figure(body: str, start: int, end: int, claim_starts: Sequence[int]) -> bool:
    low = max(
        body.rfind(". ", max(0, start - 300), start), body.rfind("\n", max(0, start - 300), start)
    )
    high_candidates = [
        found
        for found in (body.find(". ", end, end + 300), body.find("\n", end, end + 300))
        if found >= 0
    ]
    high = min(high_candidates) if high_candidates else min(len(body), end + 300)
    position = bisect_left(claim_starts, max(low, 0))
    return position < len(claim_starts) and claim_starts[position] < high
