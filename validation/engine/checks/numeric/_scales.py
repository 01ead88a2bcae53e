"""Scale declarations of a document: "(in millions)", "$ in thousands", "US$'000",
"USDm", "€m", and table header cells such as "$ million" or "RMB'Million". A table's
numbers stand in the scale its document declares, which is
how "44.1" in a report can be known to mean 44.1 million - and "-$12.6 thousand"
computed from it to be wrong.

Linear: one pass of a regex without nested quantifiers over the text.
"""

from __future__ import annotations

import re
from decimal import Decimal

_WORD_SCALES = {"thousand": Decimal(10**3), "million": Decimal(10**6), "billion": Decimal(10**9)}
_DECLARATION = re.compile(
    # The lookahead names every character a declaration can start with (a superset:
    # "in", "of", "amounts", "(", currency signs and codes, quotes). It changes no
    # match, but lets the scan reject most positions at once (twice as fast).
    r"(?i)(?=[ioa(\$€£¥urhegdpcjk'\u2018\u2019])"
    r"(?:\b(?:in|of|amounts?\s*in)\s*(?:[$€£¥]\s?|(?:us|usd|eur|gbp|rmb|hk)\$?\s?"
    r"|u\.s\.\s|dollars\s|euros?\s|pounds\s)?(thousand|million|billion)s?\b"
    r"|\(\s?(thousand|million|billion)s?\s?\)"
    r"|(?:[$€£¥]|\b(?:us|usd|rmb|hk|eur|gbp|aud|cad|chf|jpy|inr))\$?\s?['\u2018\u2019]?\s?"
    r"(thousand|million|billion)s?\b"
    r"|(?:[$€£¥]|\b(?:us|usd|rmb|hk|eur|gbp))\s?['\u2018\u2019]?(000)s?\b"
    r"|['\u2018\u2019](000)s?\b"
    r"|(?:\b(?:us|usd|eur|gbp|rmb)|[$€£¥])\s?(m|bn|k)\b)"
)
_LETTERS = {"000": Decimal(10**3), "k": Decimal(10**3), "m": Decimal(10**6), "bn": Decimal(10**9)}


# What every declaration writes, in some case: a scale word, "000", a currency sign or
# the code before "m", "bn" or "k" ("usd" holds "us").
_NEEDED = ("thousand", "million", "billion", "000", "$", "us", "eur", "gbp", "rmb")


def declared_scales(text: str) -> frozenset[Decimal]:
    """Every scale `text` declares for its numbers."""
    if text.isascii():
        # A tool's JSON keys and strings mostly declare nothing: a plain search for what
        # every declaration writes answers first (for ASCII text, `lower` folds case as
        # the pattern's IGNORECASE does).
        lowered = text.lower()
        if not any(needed in lowered for needed in _NEEDED):
            return frozenset()
    found: set[Decimal] = set()
    for match in _DECLARATION.finditer(text):
        word = next(group for group in match.groups() if group)
        word = word.lower()
        found.add(_WORD_SCALES.get(word) or _LETTERS[word])
    return frozenset(found)


def single_scale(scales: frozenset[Decimal]) -> Decimal | None:
    """The scale when exactly one is declared, else None (nothing, or ambiguous)."""
    return next(iter(scales)) if len(scales) == 1 else None
