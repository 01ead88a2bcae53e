"""Years and dates as claims: a year the report states that neither the evidence nor
the query mentions is unsupported ("revenue rose in 2021" over a transcript about
2022). Years are skipped by the number extractor (they are not amounts), so this
check reads them on its own.

Linear: one regex pass without nested quantifiers over the body, the query and each
evidence item (JSON evidence as its serialized text, keys included).
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
# Any four digits that read as a year, wherever they stand in the evidence ("Dec2022",
# "2022-12-31", "fiscal_2022").
_ANY_YEAR = re.compile(r"(?<!\d)((?:19|20)\d\d)(?!\d)")


def years_in(text: str) -> set[str]:
    return {match.group(1) for match in _ANY_YEAR.finditer(text)}


def evidence_years(evidence: Sequence[EvidenceItem]) -> set[str]:
    found: set[str] = set()
    for item in evidence:
        content = item.content
        text = content if isinstance(content, str) else json.dumps(content)
        found |= years_in(text)
        found |= years_in(item.source_ref)
    return found


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
    known = evidence_years(evidence) | years_in(query)
    findings: list[Finding] = []
    seen: set[str] = set()
    for start, end, year in stated:
        if year in known or year in seen or not _dates_a_figure(body, start, end, starts):
            continue
        seen.add(year)
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
