"""Where a number stands in the report: its line and sentence, the citations near it,
and the numbers quoted from the query.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable
from decimal import Decimal

from validation.engine.checks.numeric._evidence import EvidenceIndex
from validation.engine.checks.numeric._extract import extract
from validation.engine.checks.numeric._types import NumberMention

_BY_BEFORE = re.compile(r"(?i)\bby[ \t]$")
# Multiplication only: "/ 100" may divide by a cited 100 (the calculation graph decides).
_OPERATOR_BEFORE = re.compile(r"(?:[*\u00d7]|(?<![A-Za-z])[xX])[ \t]*$")
_OPERATOR_AFTER = re.compile(r"[ \t]*(?:[*\u00d7]|[xX](?![A-Za-z]))")


# ------------------------------------------------------------------ query and citations


_CITATION = re.compile(r"\[([^\[\]\n]{1,300})\]")


def _citations(body: str, index: EvidenceIndex) -> list[tuple[int, int]]:
    """(position, evidence item) of every `[source-ref]` citation in the body."""
    if "[" not in body or not index.refs:
        return []
    found: list[tuple[int, int]] = []
    for match in _CITATION.finditer(body):
        for part in re.split(r"[,;]", match.group(1)):
            item = index.refs.get(part.strip().strip("`*^"))
            if item is not None:
                found.append((match.start(), item))
    return found


def _cited_in(citations: list[tuple[int, int]], span: tuple[int, int]) -> frozenset[int]:
    """Evidence items cited within `span` (citations are sorted by position)."""
    if not citations:
        return frozenset()
    low, high = span
    first = bisect_left(citations, (low, -1))
    last = bisect_left(citations, (high, -1))
    return frozenset(item for _, item in citations[first:last])


def _query_numbers(query: str) -> set[Decimal]:
    values: set[Decimal] = set()
    if not query:
        return values
    for mention in extract(query):
        values.add(abs(mention.written))
        values.add(abs(mention.value))
        if mention.is_percent:  # "more than 20%" is quoted again as "0.20 *"
            values.add(abs(mention.written) / 100)
    return values


def _quoted(mention: NumberMention, quoted: set[Decimal]) -> bool:
    return bool(quoted) and (abs(mention.written) in quoted or abs(mention.value) in quoted)


def newlines_of(body: str) -> list[int]:
    """Positions of every line break: a line's bounds by bisect, where a search of the
    body from each number made a report without line breaks quadratic."""
    return [match.start() for match in _NEWLINE.finditer(body)]


_NEWLINE = re.compile("\n")


def _line_start(newlines: list[int], position: int) -> int:
    """`body.rfind("\n", 0, position) + 1`."""
    before = bisect_left(newlines, position)
    return newlines[before - 1] + 1 if before else 0


def _sentence(body: str, newlines: list[int], start: int, end: int) -> tuple[int, int]:
    # A sentence ends at ". ", or at a stop its closing quote or bracket follows ('not." ').
    reach = max(0, start - 300)
    low = max(
        max(
            (at + len(stop) for stop in _STOPS if (at := body.rfind(stop, reach, start)) >= 0),
            default=0,
        ),
        _line_start(newlines, start),
    )
    high = len(body)
    for boundary in (*_STOPS, "\n"):
        found = body.find(boundary, end, end + 300)
        if 0 <= found < high:
            high = found
    return low, high


_STOPS = (". ", '." ', ".\u201d ", ".' ", ".) ")


def sentence_reader(body: str, newlines: list[int]) -> Callable[[int, int], tuple[int, int]]:
    """`_sentence` of `body` as a function of a number's span, each span read once (the
    grounding asks for a claim's sentence for its cue, its year, its neighbours...)."""
    read: dict[tuple[int, int], tuple[int, int]] = {}

    def sentence(start: int, end: int) -> tuple[int, int]:
        found = read.get((start, end))
        if found is None:
            found = read[start, end] = _sentence(body, newlines, start, end)
        return found

    return sentence


def _line(newlines: list[int], size: int, position: int) -> tuple[int, int]:
    after = bisect_left(newlines, position)  # the first break at or after `position`
    return _line_start(newlines, position), newlines[after] if after < len(newlines) else size


_NEARBY_STEPS = 64  # claims looked at for a sentence's unsupported numbers
