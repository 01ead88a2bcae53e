"""Numbered names the evidence does not know: "Tier 2" where the evidence only ever
writes "Tier 1", "Phase 3" where it writes "Phase 2".

The extractor skips reference numbers ("Tier 1", "page 67"): they are not amounts. A
number that names a *thing* (a capital tier, a trial phase, a product series) is still
a claim about that thing, and when the evidence writes the same name with other numbers
and never with this one, the report names something the evidence does not. Names of
places in a document (page, table, note, section) are left alone: the evidence often
does not carry its own page numbers.

One regex pass over the body, and - only when the body has such a name - one pass over
each evidence text, remembered on the index. Each unknown name is reported once, at its
first place, and at most `MAX_REPORTED` of them (a wall of "Tier 2" is one finding).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from validation.engine.checks.numeric._evidence import EvidenceIndex

_NAME_WORDS = (
    "tier",
    "phase",
    "stage",
    "level",
    "class",
    "series",
    "grade",
    "gen",
    "version",
    "model",
)
# A literal word at a word boundary, a number that is not part of a longer one or a
# decimal; tried only where str.find saw the word ("gen" finds "generation" too).
_NAMED = re.compile(
    r"(?i)\b(tier|phase|stage|level|class|series|grade|generation|gen|version|model)"
    r"[ \t]+(\d{1,4})(?![\d]|[.,]\d)"
)


MAX_REPORTED = 20


@dataclass(frozen=True, slots=True)
class UnknownReference:
    start: int  # the span of the name and its number in the body
    end: int
    name: str  # "Tier 2", as written
    known: tuple[str, ...]  # what the evidence writes with that word ("Tier 1")


def unknown_references(body: str, index: EvidenceIndex) -> list[UnknownReference]:
    found: list[UnknownReference] = []
    reported: set[tuple[str, str]] = set()
    evidence: dict[str, frozenset[str]] | None = None
    for match in _named(body):
        if evidence is None:
            evidence = _evidence_names(index)
        word, number = match.group(1).lower(), str(int(match.group(2)))
        known = evidence.get(word)
        if known and number not in known and (word, number) not in reported:
            reported.add((word, number))
            found.append(
                UnknownReference(
                    start=match.start(),
                    end=match.end(),
                    name=match.group(0),
                    known=tuple(f"{match.group(1)} {other}" for other in sorted(known)[:3]),
                )
            )
            if len(found) == MAX_REPORTED:
                break
    return found


def _evidence_names(index: EvidenceIndex) -> dict[str, frozenset[str]]:
    """word -> the numbers the evidence texts write after it."""
    cached = index.memo.get("named-references")
    if cached is not None:
        return cached  # type: ignore[no-any-return]
    names: dict[str, set[str]] = {}
    for item in index.items:
        for match in _named(item.text or ""):
            names.setdefault(match.group(1).lower(), set()).add(str(int(match.group(2))))
    frozen = {word: frozenset(numbers) for word, numbers in names.items()}
    index.remember("named-references", frozen)
    return frozen


def _named(text: str) -> list[re.Match[str]]:
    """The numbered names of `text`, in order. A regex scan of every position costs
    ~50 ns a character; str.find of each word in the lowered text is a C loop, and the
    regex runs only where a word stands. (A lowering that changes the length, which a
    few non-ASCII letters do, falls back to the scan.)"""
    lowered = text.lower()
    if len(lowered) != len(text):
        return list(_NAMED.finditer(text))
    found: dict[int, re.Match[str]] = {}
    for word in _NAME_WORDS:
        at = lowered.find(word)
        while at >= 0:
            match = _NAMED.match(text, at)
            if match is not None:
                found[at] = match
            at = lowered.find(word, at + len(word))
    return [found[at] for at in sorted(found)]
