"""Counts its words divide by, for the derived search's pool (:mod:`._derive_pool`).

A table "(dollars in thousands)" may count things too: its "Restaurants sold" row holds
restaurants, not thousands of dollars, though the pool reads every bare cell of it at the
declared scale. "Per restaurant sold, gains came to roughly $342 thousand" names the row it
divides by: that row's whole numbers are offered again as written (46,164 thousand over 135
restaurants), beside their reading at the table's scale.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

from validation.engine.checks.numeric._labels import label_tokens

# "per restaurant sold", "per employee"; never "per cent" or "per annum".
_PER = re.compile(r"(?i)\bper[ \t]+(?!cent\b|annum\b)([a-z][a-z-]{2,})")


class _Cell(Protocol):
    """What is read of a pool's operand (`_derive_pool.Operand`)."""

    @property
    def value(self) -> float: ...
    @property
    def digits(self) -> float: ...
    @property
    def row(self) -> int: ...
    @property
    def percent(self) -> bool: ...
    @property
    def unit(self) -> str: ...


def per_counts(
    words: str, operands: Sequence[_Cell], tokens: Sequence[frozenset[str]]
) -> list[int]:
    """The places in `operands` of the cells of the rows a "per ..." of `words` names (the
    rows' label words are `tokens`), to be offered as written: whole numbers with no unit
    that the pool reads at a declared scale."""
    if "per" not in words.lower():
        return []
    nouns = frozenset().union(*(label_tokens(match.group(1)) for match in _PER.finditer(words)))
    if not nouns:
        return []
    found: list[int] = []
    for place, operand in enumerate(operands):
        if (
            operand.row < 0
            or operand.percent
            or operand.unit
            or operand.digits <= 1
            or not nouns & tokens[operand.row]
        ):
            continue
        written = operand.value / operand.digits
        if written == round(written):
            found.append(place)
    return found
