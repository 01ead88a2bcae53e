"""Review-screen data: an analysis in review whose revision was validated, with findings,
fixes, tool calls and evidence, as the worker would have stored them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import User

from analyses.models import Analysis, Evidence, Revision
from tests.factories import (
    AnalysisFactory,
    AttemptFactory,
    EvidenceFactory,
    FindingFactory,
    FixFactory,
    RevisionFactory,
    ToolCallFactory,
)
from validation.models import Attempt, Finding, Fix

BODY = (
    "# NVO — investment thesis\n\n"
    "## 4. Financial analysis\n\n"
    "Novo Nordisk generated operating cash flow of $15.5B against capital expenditures of "
    "$0.7B, so Owner Earnings: Operating Cash Flow $15.5B - CapEx $0.7B = $15.8B.\n\n"
    "Return on invested capital reached 22.0%, well above the cost of capital, and the stock "
    "trades at $131.40, a margin of safety of 31% against an intrinsic value of $195.0.\n\n"
    "## 5. Decision\n\n"
    "**FINAL DECISION: WATCH** · **FINAL CONVICTION: MODERATE**\n"
)

XSS_BODY = (
    "# Payloads\n\n"
    "Inline <script>window.__xss=1</script> script.\n\n"
    'An image <img src=x onerror="window.__xss=1"> handler.\n\n'
    "A [link](javascript:window.__xss=1) and a [good link](https://example.com/report).\n\n"
    "<svg onload=alert(1)></svg><img src=x onerror=alert(document.domain)>"
    '<a href="javascript:alert(2)">raw</a>\n\n'
    "Revenue was $10.5B.\n"
)

CHECKS_REVISE = {
    "claims_supported": False,
    "no_hallucinations": False,
    "query_addressed": True,
    "coherent_format": True,
    "source_metadata_present": True,
}


@dataclass
class Review:
    analysis: Analysis
    revision: Revision
    attempt: Attempt
    evidence: list[Evidence]
    fixes: list[Fix] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)


# (find, replace, kind, origin, confidence, verified_with, tools, excerpt)
MOCKUP_FIXES: list[
    tuple[str, str, str, str, float, str, list[tuple[str, dict[str, Any], str]], dict[str, str]]
] = [
    (
        "$15.8B",
        "$14.8B",
        "arithmetic",
        "deterministic",
        0.99,
        "calculator: 15.5 - 0.7 = 14.8",
        [("calculator", {"expression": "15.5 - 0.7"}, "14.8")],
        {"source_ref": "gurufocus-nvo-2024", "label": "capex", "excerpt": "capex: 0.7"},
    ),
    (
        "22.0%",
        "22.5%",
        "close_but_wrong",
        "deterministic",
        0.93,
        "evidence: roic = 0.225",
        [],
        {
            "source_ref": "gurufocus-nvo-2024",
            "label": "roic",
            "excerpt": "roic: 0.225",
            "url": "https://www.gurufocus.com/stock/NVO/summary",
        },
    ),
    (
        "$131.40",
        "$134.22",
        "orphan",
        "llm",
        0.71,
        'evidence_search("NVO price") → quote: price 134.22',
        [
            ("evidence_search", {"query": "NVO price"}, "quote: price 134.22"),
            ("calculator", {"expression": "195.0 / 134.22 - 1"}, "0.4528"),
        ],
        {"source_ref": "quote", "label": "price", "excerpt": "price: 134.22"},
    ),
]


def make_review(
    *,
    body: str = BODY,
    submitter: User | None = None,
    status: str = Analysis.Status.IN_REVIEW,
    with_fixes: bool = True,
    title: str = "NVO — investment thesis",
) -> Review:
    analysis = AnalysisFactory.create(
        title=title,
        status=status,
        submitter=submitter,
        decision="WATCH",
        conviction="MODERATE",
        revise_loops=0,
    )
    evidence = [
        EvidenceFactory.create(
            analysis=analysis,
            source_ref="gurufocus-nvo-2024",
            url="https://www.gurufocus.com/stock/NVO/summary",
            content_json={"operating_cash_flow": 15.5, "capex": 0.7, "roic": 0.225},
        ),
        EvidenceFactory.create(
            analysis=analysis,
            source_ref="quote",
            kind=Evidence.Kind.TEXT,
            content_json=None,
            content_text="NVO quote: price 134.22 <b>not bold</b>",
        ),
    ]
    revision = RevisionFactory.create(analysis=analysis, number=1, body=body)
    attempt = AttemptFactory.create(
        revision=revision,
        status=Attempt.Status.DONE,
        decision=Attempt.Decision.REVISE,
        confidence=0.64,
        checks=CHECKS_REVISE,
        timings={"total_ms": 11.0, "numbers_ms": 3.2},
        markdown=(
            "## 7. Validation (Attempt 1)\n\n**Decision:** REVISE\n\n"
            "<script>window.__xss=1</script>"
        ),
    )
    review = Review(analysis=analysis, revision=revision, attempt=attempt, evidence=evidence)
    if with_fixes:
        for spec in MOCKUP_FIXES:
            if spec[0] in body:
                add_fix(review, *spec)
    return review


def add_fix(
    review: Review,
    find: str,
    replace: str,
    kind: str = "arithmetic",
    origin: str = "deterministic",
    confidence: float = 0.95,
    verified_with: str = "calculator",
    tools: list[tuple[str, dict[str, Any], str]] | None = None,
    excerpt: dict[str, str] | None = None,
    *,
    offset: int | None = None,
) -> Fix:
    body = review.revision.body
    start = body.index(find) if offset is None else offset
    finding = FindingFactory.create(
        attempt=review.attempt,
        check_name="no_hallucinations" if kind != "close_but_wrong" else "claims_supported",
        kind=kind,
        severity="major",
        message=f"{find} is not supported by the evidence.",
        start=start,
        end=start + len(find),
        text=find,
    )
    fix = FixFactory.create(
        attempt=review.attempt,
        revision=review.revision,
        finding=finding,
        kind=kind,
        origin=origin,
        find=find,
        replace=replace,
        proposed_replace=replace,
        verified_with=verified_with,
        confidence=confidence,
        offset=start,
        evidence=[excerpt] if excerpt else [],
    )
    for tool, tool_input, output in tools or []:
        ToolCallFactory.create(
            attempt=review.attempt, fix=fix, tool=tool, input=tool_input, output=output
        )
    review.fixes.append(fix)
    review.findings.append(finding)
    return fix


def numbered_body(count: int) -> str:
    """A body with `count` distinct wrong numbers, one sentence each."""
    lines = ["# Many numbers\n"]
    lines += [f"Segment {i} revenue was ${i + 1000}.5M in the year.\n" for i in range(count)]
    return "\n".join(lines)


def make_review_with_fixes(count: int, **kwargs: Any) -> Review:
    review = make_review(body=numbered_body(count), with_fixes=False, **kwargs)
    for i in range(count):
        add_fix(
            review,
            f"${i + 1000}.5M",
            f"${i + 1000}.7M",
            "close_but_wrong",
            "deterministic",
            0.5 + (i % 50) / 100,
            f"evidence: segment_{i} = {i + 1000}.7",
            [
                ("evidence_search", {"query": f"segment {i}"}, f"segment_{i}: {i + 1000}.7"),
                ("calculator", {"expression": f"{i + 1000}.7 * 1"}, f"{i + 1000}.7"),
            ],
            {"source_ref": "gurufocus-nvo-2024", "label": f"segment_{i}", "excerpt": "..."},
        )
    return review
