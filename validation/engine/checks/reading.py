"""One reading of a report: its body parsed once and shared by every check.

``validate()`` makes one :class:`ReportReading` per bundle and hands it to each check,
so no check parses the body again for something another check has read already:

- ``masked`` -- the body with its code blanked out (offsets unchanged), and
  ``lines``/``masked_lines``, each line with its offset;
- ``blocks`` -- headings, tables, list items, paragraphs and code, and ``sentences``:
  every sentence of every block (a heading or a table is one), in report order;
- ``links`` and ``urls`` -- Markdown links and bare URLs outside code;
- ``citations`` -- the report's citations resolved to the evidence, with the findings
  about the ones that resolve to nothing, and ``references``, the spans that only
  name a source (a number inside one is not a claim);
- ``mentions`` -- every number the numeric check reads in the body, and ``newlines``,
  where each line ends (a line's bounds by bisect);
- ``times`` -- the clock times it states ("9 am", "11:30 pm", "noon");
- ``terms`` -- the body's words as the query check compares them.

Each part is read on first use (a stage that is not needed costs nothing) and kept.
A check called on its own, without a reading, makes one from the body: the result is
the same, the reading is only what the checks share.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

from validation.engine.caps import MAX_NUMBERS_JUDGED
from validation.engine.checks._citations import Citation, Resolver, read_citations
from validation.engine.checks._clock import ClockTime, report_times
from validation.engine.checks._markdown import (
    Block,
    Link,
    UrlMention,
    blocks,
    find_links,
    lines_with_offsets,
    mask_code,
    raw_urls,
    sentences,
)
from validation.engine.checks._query_words import terms
from validation.engine.checks.numeric import NumberMention, extract_judged, newlines_of
from validation.engine.types import EvidenceItem, Finding


@dataclass(frozen=True)
class Sentence:
    """A sentence of the report (a heading or a whole table counts as one) and the
    block it belongs to."""

    start: int
    end: int
    block: Block


@dataclass(frozen=True)
class CitationReading:
    """The report's citations, the resolver that resolved them, and a finding for
    each citation that names no evidence (in the order they were read)."""

    citations: tuple[Citation, ...]
    findings: tuple[Finding, ...]
    resolver: Resolver


class ReportReading:
    """The parts of one report body that more than one check needs (module docstring)."""

    def __init__(self, body: str, evidence: Sequence[EvidenceItem] = ()) -> None:
        self.body = body
        self.evidence = tuple(evidence)

    @cached_property
    def masked(self) -> str:
        return mask_code(self.body)

    @cached_property
    def lines(self) -> tuple[tuple[int, str], ...]:
        return lines_with_offsets(self.body)

    @cached_property
    def masked_lines(self) -> tuple[tuple[int, str], ...]:
        return lines_with_offsets(self.masked)

    @cached_property
    def blocks(self) -> tuple[Block, ...]:
        return tuple(blocks(self.body, self.masked))

    @cached_property
    def sentences(self) -> tuple[Sentence, ...]:
        found = [
            Sentence(start, end, block)
            for block in self.blocks
            for start, end in sentences(self.body, block)
        ]
        found.sort(key=lambda sentence: sentence.start)
        return tuple(found)

    @cached_property
    def links(self) -> tuple[Link, ...]:
        return tuple(find_links(self.masked))

    @cached_property
    def urls(self) -> tuple[UrlMention, ...]:
        """Bare URLs: those outside every link."""
        return tuple(raw_urls(self.masked, list(self.links)))

    @cached_property
    def citations(self) -> CitationReading:
        resolver = Resolver(self.evidence)
        findings: list[Finding] = []
        found = read_citations(
            self.body, self.masked, resolver, findings, links=self.links, urls=self.urls
        )
        return CitationReading(tuple(found), tuple(findings), resolver)

    @cached_property
    def references(self) -> tuple[tuple[int, int], ...]:
        """Spans that only name a source (``[§4.2]``, ``[^1]``, a URL), in order."""
        spans = (citation.reference for citation in self.citations.citations)
        return tuple(sorted(span for span in spans if span is not None))

    @cached_property
    def _judged(self) -> tuple[tuple[NumberMention, ...], int]:
        found, count = extract_judged(self.body, MAX_NUMBERS_JUDGED)
        return tuple(found), count

    @property
    def mentions(self) -> tuple[NumberMention, ...]:
        """The numbers the numbers check judges, and the first past its cap (the rest are
        only counted: ``mention_count``)."""
        return self._judged[0]

    @property
    def mention_count(self) -> int:
        """How many numbers the body states."""
        return self._judged[1]

    @cached_property
    def newlines(self) -> list[int]:
        """The offset of every ``\\n`` (only that character ends a line here, where
        ``lines`` also splits at the other line separators)."""
        return newlines_of(self.body)

    @cached_property
    def times(self) -> tuple[ClockTime, ...]:
        return tuple(report_times(self.body))

    @cached_property
    def terms(self) -> frozenset[str]:
        return frozenset(terms(self.body))

    def line_start(self, position: int) -> int:
        """Where the line holding ``position`` starts."""
        before = bisect_left(self.newlines, position)
        return self.newlines[before - 1] + 1 if before else 0
