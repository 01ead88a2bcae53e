"""The heading a report's sentence stands under, and the sentence a pronoun points back
to, for the derived search's operands.

In a Q&A note or a memo the heading names the subject ("### Did adjusted operating costs
grow faster than revenue?") and the sentences under it say "they" or a short word ("They
rose $8.3 million"). The rows the heading names are offered after the rows the sentence
names itself (`_derive_pool.pool`). A heading is a markdown heading line; a bold lead-in
("**Discount rate**") labels a list as often as a section, and is not taken.

A sentence that opens with a pronoun speaks of what the sentence right before it named:
"Foreign current tax. It climbed by $763 thousand, roughly 80.1%" (`referred_rows`). The
rows that sentence names are offered as the heading's are.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable
from functools import lru_cache

from validation.engine.checks.numeric._derive_naming import named_rows
from validation.engine.checks.numeric._derive_rows import _Rows
from validation.engine.checks.numeric._labels import label_tokens
from validation.engine.checks.numeric._lexicon import MARGIN_REACH, clause_before, named_ratio

_HEADING = re.compile(r"(?m)^[ \t]{0,3}#{1,6}[ \t]+([^\n]{1,200})")


@lru_cache(maxsize=8)
def _headings(body: str) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """Where each heading of the body starts, and its words (read once per body)."""
    starts: list[int] = []
    texts: list[str] = []
    for found in _HEADING.finditer(body):
        starts.append(found.start())
        texts.append(found.group(1))
    return tuple(starts), tuple(texts)


def heading_of(body: str, position: int) -> str:
    """The words of the heading the text at `position` stands under, or ""."""
    starts, texts = _headings(body)
    at = bisect_right(starts, position) - 1
    return texts[at] if at >= 0 else ""


def heading_rows(rows: _Rows, heading: str) -> list[int]:
    """The evidence rows a heading names."""
    return named_rows(rows, "", heading)[1] if heading else []


_PRONOUN = re.compile(r"(?:It|Its|This|That|They|Their|These|Those)\b")
# A main clause opening with a pronoun after an opening phrase ("Adding the current and
# non-current pieces, they climbed from ...", "By year-end 2019 it was ...").
_CLAUSE_PRONOUN = re.compile(r"[,0-9][ \t]+(?:it|they|these|those)[ \t]")
_OPENING_REACH = 120  # characters of a sentence's opening read for that pronoun


def context_rows(
    rows: _Rows,
    body: str,
    sentence: tuple[int, int],
    heading: str,
    sentence_of: Callable[[int, int], tuple[int, int]],
) -> list[int]:
    """The evidence rows the sentence's heading names, then those the sentence right
    before it names when this one opens with a pronoun ("It", "They", "This"...), or its
    main clause does after an opening phrase ("Adding both pieces, they rose ...")."""
    found = heading_rows(rows, heading)
    low, high = sentence
    opening = body[low : low + 8]
    start = low + len(opening) - len(opening.lstrip(" *-\t\n"))
    if low > 1 and (
        _PRONOUN.match(body, start) is not None
        or _CLAUSE_PRONOUN.search(body, start, min(high, start + _OPENING_REACH)) is not None
    ):
        before, end = sentence_of(low - 2, low - 1)
        found += named_rows(rows, "", body[before : min(end, low)])[1]
    return found


# The words of a top line (label_tokens reads sales and turnover as revenue), and the
# line each margin is of ("EBITDA margin": the EBITDA row).
_TOP_LINE = frozenset(("revenue", "net", "total", "netrevenue", "netsales", "totalrevenue"))
_MARGIN_OF = {
    "operatingmargin": ("operatingincome",),
    "netmargin": ("netincome",),
    "grossmargin": ("grossmargin", "grossprofit"),
}


def margin_rows(rows: _Rows, body: str, low: int, start: int, margin: bool) -> list[int]:
    """The rows a margin is a share of, the rate at `start` of the sentence from `low`:
    the top line (revenue, net sales, total revenues; never "cost of revenue") and the
    line the words just before it name the margin of, a few each. A ratio the words name
    ("the current ratio") is of the rows of its two lines, margin or not."""
    ratio = named_ratio(clause_before(body, start))
    if ratio is not None:
        return [row for lines in ratio for row in named_rows(rows, "", lines)[1]]
    if not margin:
        return []
    words = body[max(low, start - MARGIN_REACH) : start]  # those `names_a_margin` read
    found = [row for row in rows.postings.get("revenue", ()) if rows.tokens[row] <= _TOP_LINE]
    lines: list[str] = []
    for token in label_tokens(words):
        if token in _MARGIN_OF:
            lines += _MARGIN_OF[token]
        elif token.endswith("margin") and len(token) > len("margin"):
            lines.append(token[: -len("margin")])  # "ebitdamargin": the EBITDA line
    for line in lines:
        found += rows.postings.get(line, ())[:_MARGIN_LINES]
    return found[: 2 * _MARGIN_LINES]


_MARGIN_LINES = 3
