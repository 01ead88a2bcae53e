"""Goals by meaning: a small lexicon of what the reports Redline serves write for a goal
word, so a goal is met by the thing it names and not only by its word.

=================  ==========================================================
goal word          the report may write instead
=================  ==========================================================
valuation          a multiple ("16.5 times earnings"), P/E, EV/EBITDA, intrinsic
                   or fair value, a price target, a DCF
mix                the parts' shares: share, percent (or a "%"), proportion,
                   portion, split, breakdown, weight, contribution
count, number      a number of the thing counted: "store count" is met by
                   "1,146 stores" (a figure right before the goal's other noun)
=================  ==========================================================

Inflections come with the stems (``_query_words``): "valuations", "multiples". An
unmet goal names the words it looked for, alternatives included.
"""

from __future__ import annotations

import re

from validation.engine.checks._query_words import stem, terms

_LEXICON: dict[str, tuple[str, ...]] = {
    "valuation": (
        "P/E",
        "EV/EBITDA",
        "multiple",
        "times earnings",
        "intrinsic value",
        "price target",
        "fair value",
        "DCF",
        "price-to-earnings",
        "times sales",
        "EV/sales",
        "target price",
        "discounted cash flow",
    ),
    "mix": (
        "share",
        "percent",
        "proportion",
        "portion",
        "split",
        "breakdown",
        "weight",
        "contribution",
    ),
}
# Each alternative as the terms it must all have.
ALTERNATIVES: dict[str, tuple[frozenset[str], ...]] = {
    stem(word): tuple(frozenset(terms(phrase)) for phrase in phrases)
    for word, phrases in _LEXICON.items()
}
PHRASES: dict[str, tuple[str, ...]] = {stem(word): phrases for word, phrases in _LEXICON.items()}
COUNT_TERMS = frozenset({stem("count"), stem("number")})
PERCENT = "%"  # in ``counted_terms``: the report states percentages
_SHARE_TERMS = frozenset({stem("mix")})

# A figure and the word after it: "1,146 stores", "12 new restaurants" (one adjective).
_COUNTED = re.compile(r"(?<![\w.,])\d[\d,]*(?:\.\d+)?[ ]+(?:[a-z]+[ ]+)?([A-Za-z]+)")


def counted_terms(body: str) -> frozenset[str]:
    """Terms of the nouns the report gives a number of ("1,146 stores": ``stor``)."""
    found: set[str] = set()
    nouns: set[str] = set()  # read once each: a long report counts the same nouns often
    for match in _COUNTED.finditer(body):
        noun = match.group(1)
        if noun not in nouns:
            nouns.add(noun)
            found.update(terms(noun))
    if "%" in body:
        found.add(PERCENT)
    return frozenset(found)


def phrases_for(word: str) -> tuple[str, ...]:
    """What the lexicon lets a report write for the goal word ``word``."""
    return PHRASES.get(stem(word.lower()), ())


def covered_by_meaning(
    term: str, others: set[str], report_terms: set[str], counted: frozenset[str]
) -> bool:
    """Whether the report meets the goal word ``term`` by meaning (module docstring);
    ``others`` are the goal's other terms."""
    if any(alternative <= report_terms for alternative in ALTERNATIVES.get(term, ())):
        return True
    if term in _SHARE_TERMS and PERCENT in counted:
        return True  # "retail 62%, wholesale 38%" is a mix
    return term in COUNT_TERMS and bool(others & counted)
