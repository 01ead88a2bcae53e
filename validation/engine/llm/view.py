"""What the LLM sees: a bounded view of the evidence, and the report in parts.

Token counts are estimated as ``ceil(characters / 4)``: no tokenizer is needed to keep a
prompt well inside a context window, and the estimate errs large for English prose.

Evidence (:func:`evidence_view`): the items the report cites come first (their
``source_ref`` or URL occurs in the body), then the others by relevance (shared words with
the query and the report), until the token budget is spent; an item that does not fit
whole is cut at a line or sentence end and marked ``[… truncated]``.

Report (:func:`split_report`): a report within the budget is one part. A longer one is cut
at its markdown headings and packed into parts of at most the budget; a section longer
than the budget is cut between sentences (or paragraphs), never inside one. Only a single
"sentence" longer than the budget (a wall of text with no sentence end) is cut, between
words, as a last resort: a context overflow would lose more than a cut sentence.

Both run in time linear in their input.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from validation.engine.types import EvidenceItem

CHARS_PER_TOKEN = 4
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]{2,}")
_HEADING = re.compile(r"^#{1,6}[ \t]", re.MULTILINE)
# The end of a sentence (its punctuation, closing quotes/brackets, then space) or of a
# paragraph. Each alternative consumes at least one character and cannot backtrack far.
_SENTENCE_END = re.compile(r"[.!?][\"')\]*_]*[ \t]+|\n")
_TRUNCATED = "\n[… truncated]"


def approx_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def content_text(item: EvidenceItem) -> str:
    if isinstance(item.content, str):
        return item.content
    return json.dumps(item.content, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class EvidenceView:
    text: str
    included: list[str]  # source_refs shown (whole or cut)
    truncated: list[str]  # source_refs cut to fit
    omitted: list[str]  # source_refs left out


def cited_refs(body: str, evidence: Sequence[EvidenceItem]) -> set[str]:
    cited = set()
    for item in evidence:
        if item.source_ref in body or (item.url and item.url in body):
            cited.add(item.source_ref)
    return cited


def _words(text: str) -> set[str]:
    return {word.lower() for word in _WORD.findall(text)}


def evidence_view(
    evidence: Sequence[EvidenceItem], *, body: str, query: str, token_budget: int
) -> EvidenceView:
    cited = cited_refs(body, evidence)
    wanted = _words(query) | _words(body)

    def relevance(item: EvidenceItem) -> float:
        words = _words(content_text(item)[:200_000])
        return len(words & wanted) / math.sqrt(len(words) + 1)

    ranked = sorted(
        enumerate(evidence),
        key=lambda pair: (pair[1].source_ref not in cited, -relevance(pair[1]), pair[0]),
    )
    budget = token_budget * CHARS_PER_TOKEN
    blocks: list[str] = []
    included: list[str] = []
    truncated: list[str] = []
    omitted: list[str] = []
    for _, item in ranked:
        header = f"[{item.source_ref}] (kind: {item.kind}" + (
            f", url: {item.url})" if item.url else ")"
        )
        content = content_text(item)
        room = budget - len(header) - 2
        if room < 200 and included:
            omitted.append(item.source_ref)
            continue
        if len(content) > room:
            content = cut_at_boundary(content, max(room - len(_TRUNCATED), 0)) + _TRUNCATED
            truncated.append(item.source_ref)
        block = f"{header}\n{content}"
        blocks.append(block)
        included.append(item.source_ref)
        budget -= len(block) + 2
    return EvidenceView("\n\n".join(blocks), included, truncated, omitted)


def cut_at_boundary(text: str, limit: int) -> str:
    """The longest prefix of ``text`` of at most ``limit`` characters that ends at a
    sentence or line end; a hard cut only when no such end exists in its second half."""
    if len(text) <= limit:
        return text
    window = text[:limit]
    best = -1
    for match in _SENTENCE_END.finditer(window):
        best = match.end()
    if best >= limit // 2:
        return window[:best].rstrip()
    return window


def _between_words(body: str, start: int, end: int, limit: int) -> list[tuple[int, int]]:
    pieces = []
    while end - start > limit:
        cut = body.rfind(" ", start + limit // 2, start + limit)
        cut = cut + 1 if cut > start else start + limit
        pieces.append((start, cut))
        start = cut
    pieces.append((start, end))
    return pieces


@dataclass(frozen=True)
class ReportPart:
    number: int  # 1-based
    start: int  # offset of the part in the body
    text: str


def split_report(body: str, token_budget: int) -> list[ReportPart]:
    limit = token_budget * CHARS_PER_TOKEN
    if len(body) <= limit:
        return [ReportPart(1, 0, body)]
    cuts = [0, *(match.start() for match in _HEADING.finditer(body) if match.start() > 0)]
    sections = list(zip(cuts, [*cuts[1:], len(body)], strict=True))
    atoms: list[tuple[int, int]] = []
    for start, end in sections:
        if end - start <= limit:
            atoms.append((start, end))
            continue
        cursor = start
        for match in _SENTENCE_END.finditer(body, start, end):
            atoms.append((cursor, match.end()))
            cursor = match.end()
        if cursor < end:
            atoms.append((cursor, end))
    atoms = [piece for atom in atoms for piece in _between_words(body, *atom, limit)]
    parts: list[ReportPart] = []
    part_start, part_end = atoms[0]
    for start, end in atoms[1:]:
        if end - part_start <= limit:
            part_end = end
            continue
        parts.append(ReportPart(len(parts) + 1, part_start, body[part_start:part_end]))
        part_start, part_end = start, end
    parts.append(ReportPart(len(parts) + 1, part_start, body[part_start:part_end]))
    return parts
