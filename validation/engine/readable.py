"""Numbers as people read them: at the precision of their inputs, with thousands separators.

A calculator answers in 28 significant digits and floating point leaves tails
(``16400000.000000004``); a person reads ``16,400,000``. Everything a person reads -- proofs,
tool calls, the Attempts tab, the Markdown export -- goes through :func:`readable_number` or
:func:`readable_text`; machine outputs (JSON exports, the API, the stored rows) keep the
exact values. Linear in the text: one left-to-right scan with a regex that cannot backtrack
across a number (digit runs are possessive).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation, localcontext

# More decimals than any input a report or a piece of evidence writes: a computed tail.
MAX_DECIMALS = 6
# A number in running text: rewritten when it has a computed tail (7+ places) or 5+ whole
# digits written without separators. Not part of a word, a code, a date or an already
# separated number (nothing word-like, "-", "/", or "."/"," and a digit joined to it).
_REWRITE = re.compile(r"(?<![\w\-/])(?<!\d[.,])(-?)(\d++)(?:\.(\d++))?(?![\w\-/])(?![.,]\d)")
_WRITTEN = re.compile(r"\d++(?:\.(\d++))?")
# Only a number with 5+ digits in a row (a whole part, or a computed tail) can be rewritten.
_WORTH_A_LOOK = re.compile(r"\d{5}")


def decimals_written(text: str) -> int:
    """The most decimal places among the numbers written in `text` (0 when none): the
    precision of a calculation's inputs, read off its expression."""
    most = 0
    for match in _WRITTEN.finditer(text):
        if match.group(1):
            most = max(most, len(match.group(1)))
    return min(most, MAX_DECIMALS)


def readable_number(value: Decimal | float | int | str, decimals: int | None = None) -> str:
    """`value` with thousands separators, rounded to `decimals` places (the inputs'
    precision) with trailing zeros dropped; `decimals` None: the fewest places (up to
    MAX_DECIMALS) that keep the value, so a floating-point tail goes and real digits stay.
    What is not a number comes back as it was given."""
    try:
        number = Decimal(str(value))
    except InvalidOperation:
        return str(value)
    if not number.is_finite():
        return str(value)
    with localcontext() as context:  # as many digits as the whole part has, and then some
        context.prec = max(28, number.adjusted() + MAX_DECIMALS + 3)
        if decimals is None:
            decimals = _places_kept(number)
        decimals = max(0, min(decimals, MAX_DECIMALS))
        rounded = number.quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_EVEN)
    text = f"{rounded:,.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _places_kept(number: Decimal) -> int:
    """The fewest decimal places that hold `number` to a part in a billion."""
    tolerance = max(abs(number), Decimal(1)) * Decimal("1e-9")
    for places in range(MAX_DECIMALS + 1):
        if abs(number.quantize(Decimal(1).scaleb(-places)) - number) <= tolerance:
            return places
    return MAX_DECIMALS


def readable_text(text: str) -> str:
    """`text` with each computed tail rounded away and each long bare whole number
    separated ("87300000.0000000000" -> "87,300,000"); everything else as written."""
    pieces: list[str] = []
    last = 0
    for start, end, shown in readable_spans(text):
        pieces += [text[last:start], shown]
        last = end
    pieces.append(text[last:])
    return "".join(pieces)


def readable_spans(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, as shown) of each number of `text` that reads differently for people."""
    if _WORTH_A_LOOK.search(text) is None:  # most proof text: nothing to rewrite
        return
    for match in _REWRITE.finditer(text):
        shown = _rewrite(match)
        if shown != match.group(0):
            yield match.start(), match.end(), shown


def _rewrite(match: re.Match[str]) -> str:
    sign, whole, fraction = match.groups()
    if whole.startswith("0") and len(whole) > 1:  # a code or an identifier, not a quantity
        return match.group(0)
    if fraction is not None and len(fraction) > MAX_DECIMALS:  # a computed tail
        return readable_number(f"{sign}{whole}.{fraction}")
    if len(whole) < 5:
        return match.group(0)
    return readable_number(match.group(0), len(fraction or ""))
