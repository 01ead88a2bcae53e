"""The label words of a number in running text (a report's prose, or an evidence text):
the words before it, within its clause and back to the previous number, or else the words
just after it ("revenue of $5M", "a $9.6 million drop in trade payables"). Unit and scale
words are no label; a layout's dot leaders ("Net sales . . .") end no sentence.
"""

from __future__ import annotations

import re
from functools import lru_cache

from validation.engine.checks.numeric._labels import wordset

# Label words: words, and years (they say *which* number: "2024 revenue").
_WORDS = re.compile(
    r"(?<![0-9A-Za-z.,])(?:[A-Za-z][A-Za-z0-9&'\u2019_/-]*|(?:19|20)[0-9]{2}(?![0-9]))"
)
# Unit and scale words say nothing about *what* a number is.
_NOT_LABEL_WORDS = wordset(
    """
    k m b t bn mn mm mln tn x pp bp bps percent pct per cent thousand thousands million
    millions billion billions trillion trillions usd eur gbp dkk jpy
    """
)
_CLAUSE_BOUNDARIES = ("\n", "|", ";", ". ")


def prose_label(text: str, start: int, end: int, prev_end: int, next_start: int) -> str:
    """The label words of a number in running text (used for evidence text too)."""
    before, after = _prose_label(text, start, end, prev_end, next_start, before_only=True)
    return before if before else after


def _prose_label(
    text: str, start: int, end: int, prev_end: int, next_start: int, before_only: bool = False
) -> tuple[str, str]:
    """(words before, words after) the number, within its clause. Before-words stop
    at the previous number when there are words in between ("OCF $15.5B - CapEx
    $0.7B": the label of $0.7B is "CapEx"), else reach back to the clause start."""
    low = max(0, start - 160)
    window = text[low:start]
    period = _sentence_end(window)
    clause = low + max(
        window.rfind("\n") + 1,
        window.rfind("|") + 1,
        window.rfind(";") + 1,
        period + 2 if period >= 0 else 0,
    )
    words: list[str] | tuple[str, ...] = []
    if prev_end > clause:
        words = _words_between(text[prev_end - 1 : start])
    if not words:
        words = _last_label_words(_WORDS.findall(text, clause, start))
    if not words and clause > 0 and text[clause - 1] == "\n" and prev_end < clause:
        # A number alone on its line (a table extracted from a PDF, one cell a line,
        # "$" on a line of its own): its label is the words on the lines above, back to
        # the previous number.
        words = _last_label_words(_WORDS.findall(text, max(prev_end, clause - 160), clause))
    before = " ".join(words).strip(" -/")
    if before and before_only:
        return before, ""  # `prose_label` reads the words after only when none stand before
    high = min(len(text), end + 60, max(next_start, end))
    return before, _words_after(text[end:high])


def _sentence_end(window: str) -> int:
    """Where the last sentence of `window` ends (its ". "), or -1. A dot after a space or
    another dot is a layout's leader ("Systems .", "Net sales . . ."), no sentence's end."""
    period = window.rfind(". ")
    while period > 0 and window[period - 1] in " .":
        period = window.rfind(". ", 0, period)
    return period


# The words between two numbers, and after a number, are read once per distinct text (a
# report's numbers stand among the same few words again and again).
@lru_cache(maxsize=4096)
def _words_between(text: str) -> tuple[str, ...]:
    """The label words of `text[1:]`, its first character the previous number's last (the
    words pattern looks one character back)."""
    return tuple(_last_label_words(_WORDS.findall(text, 1)))


@lru_cache(maxsize=4096)
def _words_after(tail: str) -> str:
    """The first label words of `tail`, up to its clause's end."""
    for boundary in _CLAUSE_BOUNDARIES:
        found = tail.find(boundary)
        if found >= 0:
            tail = tail[:found]
    after = [word for word in _WORDS.findall(tail)[:5] if word.lower() not in _NOT_LABEL_WORDS]
    return " ".join(after[:3])


def _last_label_words(words: list[str]) -> list[str]:
    """The words before a number up to eight content words (unit and scale words
    are dropped; small words like "to", "of" do not count towards the eight)."""
    kept: list[str] = []
    content = 0
    for word in reversed(words[-16:]):
        lowered = word.lower()
        if lowered in _NOT_LABEL_WORDS:
            continue
        kept.append(word)
        if lowered not in _SMALL_WORDS:
            content += 1
            if content == 8:
                break
    kept.reverse()
    return kept


_SMALL_WORDS = wordset(
    "a an the of in on at to for and or by with from as is was were are be been its it this "
    "that than then which who up down"
)
