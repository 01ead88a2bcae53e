"""Sources (docs/validation-phase-spec.md §4.2 URLs, §4.5 source metadata): are the report's
citations real, and does every numeric claim carry one?

Recognised citation syntaxes (code spans and fenced code are never read):

1. **Links** -- ``[text](url)``, ``![alt](url)``, ``<url>``, a reference definition
   ``[label]: url``, and a raw ``https://…`` URL (which the format check separately
   asks to be a link). The URL cites the evidence item whose ``url`` it is or whose
   content contains it (compared without scheme, ``www.``, fragment or trailing slash).
2. **Bracketed refs** -- ``[quote-NVO]``, ``[§4.2]``, ``[tool-7; dcf-NVO]``,
   ``[source: quote-NVO]``. Bracket text counts as a citation when it resolves to an
   evidence ref, when it is labelled (``source:``/``sources:``/``ref:``), or when it
   looks like an identifier (``§4.2``, ``tool-7``, ``quote_XYZ``, ``[3]``); other
   bracket text (``[sic]``, ``[ ]``) is prose. ``[3]`` resolves through a numbered
   reference list line starting ``[3]`` in the report.
3. **Labels** -- ``Source: X`` / ``Sources: X, Y`` (capital S, to the end of the line)
   and ``(source: X)`` / ``(sources: X; Y)`` / ``(ref: X)`` in any case. A line that
   starts with such a label (``Source: …``, ``*Sources:* …``) cites its whole paragraph,
   a label right after a sentence (``… $104.20. Source: quote-NVO``) cites that
   sentence, and a label line right under or above a table cites the table.
4. **Footnotes** -- ``[^1]``, resolved when a definition ``[^1]: …`` exists.
5. **Section marks** -- a bare ``§4.2`` in prose, but only when some evidence
   ``source_ref`` starts with ``§`` (otherwise it names a section of the report).

A cited name *resolves* when, ignoring case, emphasis and extra spaces, it equals an
evidence ``source_ref``; or is the start of one followed by a space, ``:`` or ``(``
(``§4.2`` -> ``§4.2 gurufocus-NVO-cashflow``, ``memory-nvo`` -> ``memory-nvo: note``);
or contains one as a whole word (``quote-NVO (Yahoo)``); or contains an evidence URL;
or is a section ``§4`` of which some ref is a part (``§4.1 …``).

Findings:

* ``unknown_url`` (``no_hallucinations``, major) -- a URL no evidence item holds;
* ``unknown_ref`` (``source_metadata_present``, major) -- a citation that resolves to
  nothing (or a footnote without a definition);
* ``missing_source`` (``source_metadata_present``, minor) -- a sentence (a whole table
  for table rows) with numeric claims and no citation at all, checked only when there
  is evidence to cite. A citation that does not resolve is reported as ``unknown_ref``
  only, not as missing too.
* ``uncited_claims`` (``source_metadata_present``, major) -- the citation policy is
  broken, once per report: under ``citations="claims"`` (the seed's rule, the default)
  when any sentence is ``missing_source`` ("2 of 3 sentences with numeric claims cite no
  source"), under ``citations="report"`` when the report makes numeric claims and cites
  nothing anywhere. ``citations="none"`` asks for no citation at all. Each uncited
  sentence stays minor, so the policy fails the check once and a long uncited report
  lands in REVISE ("missing citations", docs/validation-phase-spec.md §5), not RETRY.

Whatever the policy, a citation that is given must be real: ``unknown_url`` and
``unknown_ref`` are always checked.

Fix: when every matched number of an uncited sentence came from the same one or two
evidence items, the sentence gets `` [source_ref]`` before its closing punctuation
(confidence 0.85, 0.80 when a number is only derived).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence

from validation.engine.checks._citations import _CLOSERS, Citation, Resolver, _finding
from validation.engine.checks._markdown import (
    MAX_FIXES,
    Block,
    Mask,
    in_span_order,
    unique_find,
)
from validation.engine.checks.reading import ReportReading
from validation.engine.types import (
    Citations,
    EvidenceExcerpt,
    EvidenceItem,
    Finding,
    FixProposal,
    NumberMatch,
)

MISSING_SOURCE_CONFIDENCE = 0.85
DERIVED_SOURCE_CONFIDENCE = 0.80


def reference_spans(
    body: str, evidence: Sequence[EvidenceItem], *, reading: ReportReading | None = None
) -> list[tuple[int, int]]:
    """Spans that only name a source (``[§4.2]``, ``[^1]``, ``§4.2``, a URL): a number
    inside one is part of a reference, not a claim."""
    return list((reading or ReportReading(body, evidence)).references)


def check_sources(
    body: str,
    evidence: Sequence[EvidenceItem],
    claim_spans: Sequence[tuple[int, int]] = (),
    matches: Sequence[NumberMatch] = (),
    citations: Citations = "claims",
    *,
    reading: ReportReading | None = None,
) -> tuple[list[Finding], list[FixProposal]]:
    """Findings about links, cited refs and uncited numeric claims (as strict as
    ``citations`` asks); fixes adding refs. ``reading`` is the report as
    ``validate()`` read it (one is made from ``body`` and ``evidence`` without it)."""
    reading = reading or ReportReading(body, evidence)
    read = reading.citations
    findings: list[Finding] = list(read.findings)
    found = list(read.citations)
    fixes: list[FixProposal] = []
    if evidence and claim_spans and citations == "claims":
        uncited, units = _missing_sources(
            reading, claim_spans, matches, found, read.resolver, findings, fixes
        )
        if uncited:
            findings.append(
                _policy_finding(
                    f"{uncited} of {units} {'sentence' if units == 1 else 'sentences'} with "
                    f"numeric claims {'cites' if uncited == 1 else 'cite'} no source "
                    "(policy: every numeric claim carries a source reference)"
                )
            )
    elif evidence and claim_spans and citations == "report" and not found:
        findings.append(
            _policy_finding(
                f"the report makes {len(claim_spans)} numeric "
                f"{'claim' if len(claim_spans) == 1 else 'claims'} and cites none of its "
                "sources (policy: the report cites its sources)"
            )
        )
    return in_span_order(findings, fixes)


def _policy_finding(message: str) -> Finding:
    return Finding(
        check="source_metadata_present",
        kind="uncited_claims",
        severity="major",
        message=message,
        start=0,
        end=0,
    )


# ---------------------------------------------------------------- missing sources


def _missing_sources(
    reading: ReportReading,
    claim_spans: Sequence[tuple[int, int]],
    matches: Sequence[NumberMatch],
    citations: list[Citation],
    resolver: Resolver,
    findings: list[Finding],
    fixes: list[FixProposal],
) -> tuple[int, int]:
    """Report each uncited unit (sentence, table) with numeric claims; returns how many
    were uncited and how many units hold claims."""
    body = reading.body
    coverage = _Coverage(reading, citations)
    units = reading.sentences
    starts = [unit.start for unit in units]
    claims_by_unit: dict[int, list[tuple[int, int]]] = {}
    for claim in sorted(set(claim_spans)):
        index = bisect_right(starts, claim[0]) - 1
        if index >= 0 and claim[0] < units[index].end:
            claims_by_unit.setdefault(index, []).append(claim)

    uncited = 0
    by_start = _ByStart(matches)
    for index, claims in sorted(claims_by_unit.items()):
        start, end, block = units[index].start, units[index].end, units[index].block
        if coverage.cited(start, end, block):
            continue
        uncited += 1
        quoted = ", ".join(f'"{body[s:e]}"' for s, e in claims[:4])
        what = "table" if block.kind == "table" else "sentence"
        findings.append(
            _finding(
                "source_metadata_present",
                "missing_source",
                "minor",
                f"{what} with numeric claim{'s' if len(claims) > 1 else ''} {quoted} "
                "has no source reference",
                start,
                end,
                body,
            )
        )
        if block.kind != "table" and len(fixes) < MAX_FIXES:
            fix = _cite_fix(
                body, start, end, claims, by_start.within(start, end), resolver, len(findings) - 1
            )
            if fix is not None:
                fixes.append(fix)
    return uncited, len(claims_by_unit)


class _Coverage:
    """Answers "is this sentence cited?" in O(sentence length + log citations)."""

    def __init__(self, reading: ReportReading, citations: list[Citation]) -> None:
        self.body = body = reading.body
        self.reading = reading
        found_blocks = reading.blocks
        self.spans = Mask(len(body))
        for citation in citations:
            self.spans.mark(citation.start, max(citation.end, citation.start + 1))
        self.labels = sorted(c.start for c in citations if c.label)
        self.wide = sorted(c.start for c in citations if c.paragraph_wide)
        self.blocks = found_blocks
        self.position = {id(block): index for index, block in enumerate(found_blocks)}

    def cited(self, start: int, end: int, block: Block) -> bool:
        if not self.spans.free(start, end):
            return True
        following = bisect_left(self.labels, end)
        if following < len(self.labels) and not self.body[end : self.labels[following]].strip():
            return True  # "Price $104.20. Source: quote-NVO"
        if self._wide_label_in(block.start, block.end):
            return True
        if block.kind == "table":  # a "Source: …" caption line right above or below it
            position = self.position[id(block)]
            neighbours = self.blocks[max(0, position - 1) : position]
            neighbours += self.blocks[position + 1 : position + 2]
            return any(self._wide_label_in(n.start, n.end, first_line=True) for n in neighbours)
        return False

    def _wide_label_in(self, start: int, end: int, *, first_line: bool = False) -> bool:
        for label in self.wide[bisect_left(self.wide, start) : bisect_left(self.wide, end)]:
            if not first_line or self.reading.line_start(label) == start:
                return True
        return False


class _ByStart:
    """The matches that start inside a span, in their original order: a bisect instead of
    a scan of every match for each uncited sentence (quadratic on a number-dense report)."""

    def __init__(self, matches: Sequence[NumberMatch]) -> None:
        self.matches = matches
        self.order = sorted(range(len(matches)), key=lambda position: matches[position].start)
        self.starts = [matches[position].start for position in self.order]

    def within(self, start: int, end: int) -> list[NumberMatch]:
        inside = self.order[bisect_left(self.starts, start) : bisect_left(self.starts, end)]
        return [self.matches[position] for position in sorted(inside)]


def _cite_fix(
    body: str,
    start: int,
    end: int,
    claims: list[tuple[int, int]],
    matches: Sequence[NumberMatch],
    resolver: Resolver,
    finding_index: int,
) -> FixProposal | None:
    supported = [
        match
        for match in matches
        if start <= match.start < end
        and match.status in ("exact", "rounded", "derived")
        and match.source_ref
    ]
    if not supported or len(supported) < len(claims):
        return None  # an unsupported number in the sentence: citing would vouch for it
    refs = list(dict.fromkeys(match.source_ref for match in supported if match.source_ref))
    if len(refs) > 2 or any(ref not in {i.source_ref for i in resolver.evidence} for ref in refs):
        return None
    insert_at = end
    while insert_at > start and body[insert_at - 1] in _CLOSERS:
        insert_at -= 1
    if insert_at == start:
        return None
    citation = " [" + "; ".join(refs) + "]"
    anchor = unique_find(body, start, end)
    if anchor is None:
        return None
    find, offset = anchor
    relative = insert_at - offset
    items = {item.source_ref: item for item in resolver.evidence}
    excerpts = [
        EvidenceExcerpt(
            source_ref=match.source_ref or "",
            url=items[match.source_ref or ""].url,
            excerpt=f"{match.evidence_label or 'value'}: {match.evidence_value}"[:2000],
            label=match.evidence_label,
        )
        for match in supported
    ]
    shown = "; ".join(
        f"{match.text} = {match.evidence_value} ({match.source_ref}"
        + (f", {match.evidence_label})" if match.evidence_label else ")")
        for match in supported
    )
    derived = any(match.status == "derived" for match in supported)
    return FixProposal(
        find=find,
        replace=find[:relative] + citation + find[relative:],
        verified_with=f"evidence: {shown}",
        confidence=DERIVED_SOURCE_CONFIDENCE if derived else MISSING_SOURCE_CONFIDENCE,
        kind="missing_source",
        offset=offset,
        finding_index=finding_index,
        evidence=excerpts,
    )
