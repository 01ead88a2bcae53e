"""A year said of what a record's key names (issue 26, point 2, for years): "the arena,
which opened in 1994" against ``{"arena": {"opened": 2006}, "founded": 1994}``.

A record gives years under keys that say what happened in them ("opened", "founded",
"year_built", "renovated"). A year of the report whose own clause (back to the number
before it or a comma) says every word of such a key, while no key it says holds that
year and the record gives the year under another key, is ``number_elsewhere``
(``claims_supported``): major, naming both keys, and fixed to the key's year when the
clause says one key (or keys of one year).

Not judged: a year in prose evidence (the years check looks it up), a key of one word
that says nothing but "year" or "date", and a year no key of the record holds.

Linear: the records are walked once; each report year reads a bounded clause and looks
its words up in a dict of key words; at most ``_MAX_FINDINGS`` findings, each of which
searches the body a bounded number of times for a find that occurs once.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from validation.engine.checks._role_values import _words
from validation.engine.types import EvidenceExcerpt, EvidenceItem, Finding, FixProposal

_YEAR = re.compile(r"(?<![\w.,$/-])((?:18|19|20)\d\d)(?![\w%$]|[.,]\d)")
_VALUE = re.compile(r"(?:18|19|20)\d\d")
_CLAUSE = 60  # characters of a year's clause read before it
_MARKS = ",;:()\n.!?|"
_EMPTY = frozenset(_words("year date since"))  # key words that say nothing happened
_MAX_KEYS = 2000
_MAX_FINDINGS = 20  # each searches the body for a find of its own


@dataclass(frozen=True)
class _Keyed:
    year: str
    key: frozenset[str]
    name: str
    source_ref: str


def _keyed(evidence: Sequence[EvidenceItem]) -> list[_Keyed]:
    found: list[_Keyed] = []
    for item in evidence:
        if isinstance(item.content, str):
            continue
        for name, year in _walk(item.content):
            key = _words(name.replace("_", " ")) - _EMPTY
            if key:
                found.append(_Keyed(year, key, name, item.source_ref))
                if len(found) > _MAX_KEYS:
                    return []
    return found


def _walk(root: object) -> Iterator[tuple[str, str]]:
    """(key, year) of each value of a record that is a year, alone."""
    stack: list[object] = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key, child in node.items():
                text = str(child) if isinstance(child, (int, str)) else ""
                if isinstance(key, str) and _VALUE.fullmatch(text.strip()):
                    yield key, text.strip()
                elif isinstance(child, (dict, list)):
                    stack.append(child)
        elif isinstance(node, list):
            stack.extend(node)


def _clause(body: str, start: int) -> frozenset[str]:
    left = body[max(0, start - _CLAUSE) : start]
    cut = max(left.rfind(mark) for mark in _MARKS)
    digit = max((index for index, c in enumerate(left) if c.isdigit()), default=-1)
    return _words(left[max(cut, digit) + 1 :])


def check_year_keys(
    body: str, evidence: Sequence[EvidenceItem]
) -> tuple[list[Finding], list[FixProposal]]:
    """Findings and fixes for years said of a key that holds another year."""
    keyed = _keyed(evidence)
    if not keyed:
        return [], []
    by_word: dict[str, list[_Keyed]] = {}
    by_year: dict[str, list[_Keyed]] = {}
    for entry in keyed:
        by_year.setdefault(entry.year, []).append(entry)
        for word in entry.key:
            by_word.setdefault(word, []).append(entry)
    findings: list[Finding] = []
    fixes: list[FixProposal] = []
    for match in _YEAR.finditer(body):
        if len(findings) >= _MAX_FINDINGS:
            break  # a wall of years: the first ones tell
        year = match.group(1)
        given = by_year.get(year)
        if not given:
            continue  # the record gives it under no key
        words = _clause(body, match.start())
        said = {
            id(entry): entry
            for word in words
            for entry in by_word.get(word, [])[:64]
            if entry.key <= words
        }
        if not said or any(entry.year == year for entry in said.values()):
            continue
        years = sorted({entry.year for entry in said.values()})
        named = ", ".join(sorted({f'"{entry.name}": {entry.year}' for entry in said.values()}))
        elsewhere = given[0]
        findings.append(
            Finding(
                check="claims_supported",
                kind="number_elsewhere",
                severity="major",
                message=f'"{year}": the evidence gives {year} as "{elsewhere.name}"; what '
                f"the words name it gives as {named}",
                start=match.start(1),
                end=match.end(1),
                text=year,
                evidence=[
                    EvidenceExcerpt(
                        source_ref=elsewhere.source_ref,
                        excerpt=f'"{elsewhere.name}": {year}; {named}',
                    )
                ],
            )
        )
        at = _unique_start(body, match.start(1), match.end(1))
        if len(years) == 1 and at is not None:
            find = body[at : match.end(1)]
            fixes.append(
                FixProposal(
                    finding_index=len(findings) - 1,
                    kind="close_but_wrong",
                    find=find,
                    replace=find[: match.start(1) - at] + years[0],
                    offset=at,
                    confidence=0.6,
                    verified_with=f"evidence ({elsewhere.source_ref}): {named}",
                )
            )
    return findings, fixes


def _unique_start(body: str, start: int, end: int) -> int | None:
    """Where a find ending at ``end`` starts so that it occurs once in ``body``: the year,
    or the year with the words before it ("opened in 1994"), up to ``_CLAUSE`` characters."""
    at = start
    while True:
        text = body[at:end]
        first = body.find(text)
        if first == at and body.find(text, first + 1) < 0:
            return at
        space = body.rfind(" ", max(0, start - _CLAUSE), at - 1)
        if space < 0 or at - space <= 0:
            return None
        at = space + 1 if space + 1 < at else space
