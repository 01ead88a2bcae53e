"""Words that count or total what a sentence speaks of: "the four note issues", "both",
"the 7 officers", "in total", "combined". Read once per clause or sentence (each number
of it asks), however long it is.
"""

from __future__ import annotations

import re
from functools import lru_cache

from validation.engine.checks.numeric._number_words import ONES

_COUNT = re.compile(r"(?i)\b(both|two|three|four|five|six|seven|eight|nine|ten)\b")
# The count words read here ("two" to "ten"), from the engine's one table of number words.
_COUNT_WORDS = {**{word: value for word, value in ONES.items() if value >= 2}, "ten": 10}


@lru_cache(maxsize=512)
def said_count(clause: str) -> int:
    """How many things the clause says in words ("the four note issues", "both"), or 0."""
    said = _COUNT.search(clause)
    if said is None:
        return 0
    word = said.group(1).lower()
    return 2 if word == "both" else _COUNT_WORDS[word]


@lru_cache(maxsize=256)
def says_total(text: str) -> bool:
    """The text says "total" or a word like it ("combined", "altogether", "in all"). Each
    number of a sentence asks: read once per sentence, however long it is."""
    return _TOTAL_WORDS.search(text) is not None


_TOTAL_WORDS = re.compile(
    r"\b(?:total|totals|totalled|totaled|combined|altogether|aggregate|in all|all told)\b",
    re.IGNORECASE,
)


@lru_cache(maxsize=256)
def things_counted(clause: str) -> int:
    """How many things the clause counts, in words or in digits before a noun ("the four
    note issues", "the 7 officers"), or 0. Each number of a sentence asks: read once per
    sentence, however long it is."""
    said = said_count(clause)
    if said:
        return said
    digits = _COUNTED_DIGITS.search(clause)
    return int(digits.group(1)) if digits is not None else 0


_COUNTED_DIGITS = re.compile(r"(?i)\b(?:the|all|these|those)[ \t]+([3-9]|1[0-9])[ \t]+[a-z]")
