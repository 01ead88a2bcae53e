"""Which evidence rows a text names, for the derived search's operands (:mod:`._derive_pool`):
most of a row's label words in the claim's own clause or its sentence, a long label's four
words, a label's word in capitals; and a lone figure of the evidence's prose, by the noun
phrase its own words end in (`_derive_rows.head_words`), after every row a label names.
Whether a sentence names the row of a figure it quotes (`names_row`) is asked before a
coarse figure is fixed to another period's cell (`_findings`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from validation.engine.checks.numeric._derive_rows import _CAPITALS, _Rows, _rows, row_of_cell
from validation.engine.checks.numeric._evidence import EvidenceIndex
from validation.engine.checks.numeric._labels import label_tokens

_MAX_NAMED = 3  # rows named by one text
_COMMON = 64  # a word in more rows than this names none of them


def named_rows(
    rows: _Rows, label: str, words: str, clause: Sequence[str] = ()
) -> tuple[list[int], list[int]]:
    """The evidence rows the claim's words name: most of a row's label words stand in
    the claim's own clause (the words before it and the phrase after it; else its label,
    back to the clause's start), or in its sentence; more shared words first."""
    own: list[int] = []
    named: list[int] = []
    texts = [(own, text) for text in clause] + [(own, label), (named, words)]
    for position, (found, text) in enumerate(texts):
        if found is own and position == len(clause) and own:
            continue  # its own clause named its row: the label's words reach past it
        wanted = label_tokens(text)
        if not wanted:
            continue
        candidates: set[int] = set()
        for token in wanted:
            posting = rows.postings.get(token, ())
            if len(posting) <= _COMMON:
                candidates.update(posting)
        # More shared words first; of as many, the rows whose label adds fewest words
        # the text does not write (named the most plainly). A lone figure named only by
        # the noun phrase its words end in comes after every row its label names.
        scored = sorted(
            (
                not _names(len(wanted & rows.tokens[row]), len(rows.tokens[row])),
                -len(wanted & rows.tokens[row]),
                len(rows.tokens[row] - wanted),
                row,
            )
            for row in candidates
            if _names(len(wanted & rows.tokens[row]), len(rows.tokens[row]))
            or (row in rows.heads and rows.heads[row] <= wanted)
        )
        if found is named:
            # A label's word in capitals names its row alone ("of EBT": "Earnings before
            # taxes EBT"), when it names few rows.
            for acronym in _capitals(text) if rows.acronyms else ():
                posting = rows.acronyms.get(acronym, ())
                if len(posting) <= _MAX_NAMED:
                    found += [row for row in posting if row not in own and row not in found]
                if len(found) >= _MAX_NAMED:
                    break
        found += [row for *_, row in scored[:_MAX_NAMED] if row not in own and row not in found]
        if found is named and len(found) < _MAX_NAMED:
            found += [row for row in _proper_names(rows, text) if row not in own + found]
    return own, named


def names_row(index: EvidenceIndex, entry: int, words: str) -> bool:
    """`words` name the evidence row of `entry` (or of the scaled number whose twin it is)."""
    rows = _rows(index)
    row = row_of_cell(rows, entry)
    return row is not None and row in named_rows(rows, "", words)[1]


def _proper_names(rows: _Rows, text: str) -> list[int]:
    """The rows a name the sentence writes with a capital names alone: "Transportation and
    Industrial account for ..." names "Transportation Solutions" and "Industrial Solutions"
    when each word stands in one row label only. A capital that opens the sentence, or
    follows a colon, says nothing of a name."""
    found: list[int] = []
    for name in _names_in(text):
        posting = rows.postings.get(name, ())
        if len(posting) == 1 and posting[0] not in found:
            found.append(posting[0])
    return found[:_MAX_NAMED]


@lru_cache(maxsize=16)
def _names_in(text: str) -> tuple[str, ...]:
    # Each number of a sentence asks: its names read once per sentence.
    names: list[str] = []
    for match in _PROPER.finditer(text):
        before = text[max(0, match.start() - 8) : match.start()].rstrip(" *_")
        if not before or before[-1] in ".!?:;\n-|#(":
            continue  # a sentence's, a bullet's or a heading's first word
        names += [token for token in label_tokens(match.group()) if token.isalpha()]
    return tuple(dict.fromkeys(names))


_PROPER = re.compile(r"\b[A-Z][a-z]{3,}\b")


@lru_cache(maxsize=16)
def _capitals(text: str) -> tuple[str, ...]:
    # Each number of a sentence asks for its words in capitals: read once per sentence.
    return tuple(dict.fromkeys(_CAPITALS.findall(text)))


def _names(shared: int, words: int) -> bool:
    """A text names a row when it shares half of the row's label words, or at least
    `_NAMING_WORDS` of them (a long label: "total deferred tax assets before valuation
    allowances" is named by "gross deferred tax assets")."""
    return shared * 2 >= words or shared >= _NAMING_WORDS


_NAMING_WORDS = 4  # label tokens, pairs of words included ("deferredtax")
