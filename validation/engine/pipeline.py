"""``validate(bundle)``: every deterministic check, merged into one
docs/spec.md §6 Verdict.

Stages (each timed in ``Verdict.timings_ms``): ``index`` (only when no index is given,
so a warm caller can build it once with :func:`build_index` and reuse it), ``numbers``
(numbers, arithmetic, derived values: :func:`validation.engine.checks.numeric.analyze`),
``references``, ``times`` (clock times: :mod:`validation.engine.checks.times`), ``counts``
(counts in words: :mod:`validation.engine.checks.counts`),
``sources``, ``format``, ``years``, ``query``, ``fields``, ``decision``, and
``total``.

The body is read once: one :class:`~validation.engine.checks.reading.ReportReading` per
validation, handed to every check, parses each part (blocks, sentences, citations,
number mentions, words) when a stage first needs it; a stage's time includes what it
was the first to read.

Merging: the findings of all stages are ordered by position in the report (then by
check, kind and message), every fix's ``finding_index`` is re-based onto that merged
list, and fixes are ordered by offset. A fix whose FIND does not occur exactly once in
the body is dropped (it could never be applied). Apart from ``timings_ms`` the verdict
is a pure function of its inputs: same bundle and settings, same verdict.

References are not claims. ``checks.numeric`` already skips section marks (``§4.2``,
"section 4.2"), footnotes and URLs; what only the evidence can tell is a reference -- a
bracketed ref whose name holds a number, ``[earnings call 17]`` -- is dropped here from
the numeric findings, fixes, claim spans and numbers report (see
:func:`validation.engine.checks.sources.reference_spans`).

RETRY signals (see :mod:`validation.engine.decision`): numeric claims with no evidence
at all (reported as a ``no_evidence`` finding of ``claims_supported``), and a report
sharing no term with the query.
"""

from __future__ import annotations

import gc
from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from time import perf_counter
from typing import TypeVar

from validation.engine.caps import cap_findings, cap_numbers, shortened
from validation.engine.checks.counts import check_counts
from validation.engine.checks.format import check_format
from validation.engine.checks.holders import check_holders
from validation.engine.checks.numeric import EvidenceIndex, NumericResult, analyze, build_index
from validation.engine.checks.query import check_query
from validation.engine.checks.ranges import check_ranges
from validation.engine.checks.ranks import check_ranks
from validation.engine.checks.reading import ReportReading
from validation.engine.checks.roles import check_roles
from validation.engine.checks.sources import check_sources, reference_spans
from validation.engine.checks.times import check_times
from validation.engine.checks.years import check_years
from validation.engine.decision import (
    RetrySignals,
    check_reasons,
    checks_from,
    confidence_from,
    decide,
    issues_from,
    revision_hints,
    suggested_fixes,
)
from validation.engine.fields import extract_fields, fields_from_mapping
from validation.engine.spans import occurs_once
from validation.engine.types import (
    CHECK_NAMES,
    Bundle,
    EngineSettings,
    Finding,
    FixProposal,
    NumberMatch,
    NumbersReport,
    ToolCallRecord,
    Verdict,
)

T = TypeVar("T")
_CHECK_ORDER = {name: position for position, name in enumerate(CHECK_NAMES)}


def validate(
    bundle: Bundle, settings: EngineSettings | None = None, *, index: EvidenceIndex | None = None
) -> Verdict:
    """Validate ``bundle.body`` against its evidence and query. Pure: no I/O, no Django.

    ``settings`` default to ``EngineSettings()``: resolved here, once, and passed down."""
    resolved = settings if settings is not None else EngineSettings()
    with _collector_paused():
        return _validate(bundle, resolved, index)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector for one validation.

    A number-dense report makes hundreds of thousands of small objects (mentions,
    claims, fractions) that all stay alive until the verdict is built; each automatic
    collection meanwhile traverses all of them, so the collector's share grows faster
    than the report (a third of the time on a 200 KB wall). The engine makes no
    reference cycles of its own; whatever garbage there is waits for the next
    collection after the verdict, as `build_index` does for the evidence."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def _validate(bundle: Bundle, settings: EngineSettings, index: EvidenceIndex | None) -> Verdict:
    timings: dict[str, float] = {}
    started = perf_counter()
    body = bundle.body

    def timed(stage: str, work: Callable[[], T]) -> T:
        begin = perf_counter()
        result = work()
        timings[stage] = round((perf_counter() - begin) * 1000, 3)
        return result

    if index is None:
        index = timed("index", lambda: build_index(bundle.evidence))
    reading = ReportReading(body, bundle.evidence)  # each part read once, when first asked
    analyzed = timed(
        "numbers",
        lambda: analyze(
            body,
            index,
            query=bundle.query,
            settings=settings,
            mentions=reading.mentions,
            counted=reading.mention_count,
            newlines=reading.newlines,
        ),
    )
    references = timed(
        "references", lambda: reference_spans(body, bundle.evidence, reading=reading)
    )
    time_findings, time_spans = timed("times", lambda: check_times(reading, bundle.evidence))
    count_findings, count_fixes = timed(
        "counts", lambda: check_counts(reading, bundle.evidence, memo=index.memo)
    )
    rank_findings = timed("ranks", lambda: check_ranks(body, bundle.evidence))
    numeric = without_references(analyzed, _union(references, time_spans))
    source_findings, source_fixes = timed(
        "sources",
        lambda: check_sources(
            body,
            bundle.evidence,
            numeric.claim_spans,
            numeric.report.matches,
            citations=settings.citations,
            reading=reading,
        ),
    )
    role_findings, role_fixes = timed(
        "roles",
        lambda: check_roles(body, bundle.evidence, numeric.report.matches, memo=index.memo),
    )
    flagged = frozenset(finding.start for finding in role_findings if finding.start is not None)
    holder_findings, holder_fixes = timed(
        "holders",
        lambda: check_holders(
            body, bundle.evidence, numeric.report.matches, flagged, memo=index.memo
        ),
    )
    range_findings, range_fixes = timed("ranges", lambda: check_ranges(body, bundle.evidence))
    format_findings, format_fixes = timed("format", lambda: check_format(body, reading=reading))
    year_findings = timed(
        "years", lambda: check_years(body, bundle.query, bundle.evidence, numeric.claim_spans)
    )
    cited = [
        match.evidence_label
        for match in numeric.report.matches
        if match.status in ("exact", "rounded") and match.evidence_label
    ]
    query = timed(
        "query",
        lambda: check_query(
            body,
            bundle.query,
            bundle.goals,
            settings,
            bundle.evidence,
            cited=cited,
            reading=reading,
        ),
    )
    fields = timed(
        "fields", lambda: extract_fields(body, previous=fields_from_mapping(bundle.fields))
    )

    begin = perf_counter()
    extra: list[Finding] = []
    signals = RetrySignals(
        claims_without_evidence=len(numeric.claim_spans) if not bundle.evidence else 0,
        unrelated_query_terms=tuple(query.missing_terms) if query.unrelated else (),
    )
    if signals.claims_without_evidence:
        extra.append(
            Finding(
                check="claims_supported",
                kind="no_evidence",
                severity="major",
                message=(
                    f"the report makes {signals.claims_without_evidence} numeric claim(s) "
                    "but no evidence was supplied"
                ),
                start=0,
                end=0,
            )
        )
    findings, fixes = merge(
        body,
        [
            (numeric.findings, numeric.fixes),
            (source_findings, source_fixes),
            (format_findings, format_fixes),
            (year_findings, []),
            (time_findings, []),
            (rank_findings, []),
            (count_findings, count_fixes),
            (role_findings, role_fixes),
            (holder_findings, holder_fixes),
            (range_findings, range_fixes),
            (query.findings, []),
            (extra, []),
        ],
    )
    findings = shortened(findings)  # hints and issues quote messages: bounded ones
    confidence = confidence_from(findings)
    checks = checks_from(findings, settings)
    decision = decide(confidence, checks, settings, query.goal_decision, retry_signal=bool(signals))
    hints = revision_hints(findings, len(fixes)) if decision == "REVISE" else ""
    failed_goals = [goal.goal for goal in query.goals if goal.status == "FAIL"]
    suggestions = (
        suggested_fixes(findings, signals, failed_goals) if decision in ("RETRY", "FAIL") else ""
    )
    # Every finding counted above; a bounded number of them listed (caps).
    listed = cap_findings(findings, fixes)
    timings["decision"] = round((perf_counter() - begin) * 1000, 3)
    timings["total"] = round((perf_counter() - started) * 1000, 3)

    return Verdict(
        decision=decision,
        confidence=confidence,
        issues=issues_from(listed.findings),
        checks=checks,
        check_reasons=check_reasons(findings, checks, settings),
        revision_hints=hints,
        suggested_fixes=suggestions,
        numbers=cap_numbers(numeric.report),
        findings=listed.findings,
        fixes=listed.fixes,
        goals=query.goals,
        goal_decision=query.goal_decision,
        fields=fields,
        tool_calls=numeric.tool_calls,
        timings_ms=timings,
    )


@dataclass
class NumericPart:
    """What the pipeline keeps of the numeric analysis."""

    report: NumbersReport
    findings: list[Finding]
    fixes: list[FixProposal]
    tool_calls: list[ToolCallRecord]
    claim_spans: list[tuple[int, int]]


def without_references(
    numeric: NumericResult, references: Sequence[tuple[int, int]]
) -> NumericPart:
    """``numeric`` without the numbers that sit inside a reference span."""
    starts = [start for start, _ in references]

    def inside(start: int, end: int) -> bool:
        position = bisect_right(starts, start) - 1
        return position >= 0 and end <= references[position][1]

    kept = [i for i, f in enumerate(numeric.findings) if not inside(f.start, f.end)]
    renumber = {old: new for new, old in enumerate(kept)}
    fixes = []
    for fix in numeric.fixes:
        if fix.finding_index is not None and fix.finding_index not in renumber:
            continue  # its finding was about a reference
        rebased = fix.model_copy()
        if fix.finding_index is not None:
            rebased.finding_index = renumber[fix.finding_index]
        fixes.append(rebased)

    def claims(matches: list[NumberMatch]) -> list[NumberMatch]:
        return [match for match in matches if not inside(match.start, match.end)]

    report = numeric.report
    dropped_exact = sum(
        match.status == "exact" and inside(match.start, match.end) for match in report.matches
    )
    return NumericPart(
        report=report.model_copy(
            update={
                "exact_matches": max(0, report.exact_matches - dropped_exact),
                "close_matches": claims(report.close_matches),
                "orphan_numbers": claims(report.orphan_numbers),
                "suspicious": claims(report.suspicious),
                "matches": claims(report.matches),
            }
        ),
        findings=[numeric.findings[i] for i in kept],
        fixes=fixes,
        tool_calls=list(numeric.tool_calls),
        claim_spans=[span for span in numeric.claim_spans if not inside(*span)],
    )


def _union(*groups: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted spans, overlapping ones joined (``without_references`` needs them so)."""
    joined: list[tuple[int, int]] = []
    for start, end in sorted(span for group in groups for span in group):
        if joined and start <= joined[-1][1]:
            joined[-1] = (joined[-1][0], max(end, joined[-1][1]))
        else:
            joined.append((start, end))
    return joined


def merge(
    body: str, parts: Sequence[tuple[Sequence[Finding], Sequence[FixProposal]]]
) -> tuple[list[Finding], list[FixProposal]]:
    """Concatenate per-stage findings in report order and re-base each fix's
    ``finding_index`` (relative to its own stage) onto the merged list."""
    tagged: list[tuple[Finding, int, int]] = []  # finding, stage, index within stage
    for stage, (stage_findings, _) in enumerate(parts):
        tagged.extend((finding, stage, i) for i, finding in enumerate(stage_findings))
    tagged.sort(
        key=lambda item: (
            item[0].start,
            item[0].end,
            _CHECK_ORDER[item[0].check],
            item[0].kind,
            item[0].message,
            item[1],
            item[2],
        )
    )
    position = {(stage, i): new for new, (_, stage, i) in enumerate(tagged)}
    fixes: list[FixProposal] = []
    for stage, (_, stage_fixes) in enumerate(parts):
        for fix in stage_fixes:
            if not occurs_once(body, fix.find) or body.find(fix.find) != fix.offset:
                continue  # could never be applied to this body
            rebased = fix.model_copy()
            if fix.finding_index is not None:
                rebased.finding_index = position.get((stage, fix.finding_index))
            fixes.append(rebased)
    fixes.sort(key=lambda fix: (fix.offset, fix.kind, fix.find))
    return [finding for finding, _, _ in tagged], fixes
