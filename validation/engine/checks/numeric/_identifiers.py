"""Numbers a person reads inside identifiers and dimensions of the evidence.

The extractor skips digits glued to letters ("AS1283", "Q3") and a run of digits is
one value ("5035550172"); a report restates them in parts: "flight 1283" for the
flight "AS1283", "(503) 555-0172" for the phone "5035550172", "2880 x 1800" for a
display of "2880x1800". The evidence index reads these parts beside the numbers
(they only ever add values to the evidence, never claims to a report):

- the digits after a short capital prefix of a code ("AS1283", "UA 90" is already
  read): three to five digits after one to three capitals;
- the two sides of a dimension written with an "x" ("2880x1800", "1920\u00d71080");
- the area code, exchange and line of a ten-digit phone number written as one run.

One pass of a pattern without nested quantifiers.
"""

from __future__ import annotations

import re
from decimal import Decimal

_PARTS = re.compile(
    r"(?<![A-Za-z0-9])(?:[A-Z]{1,3}(?P<code>[0-9]{3,5})"
    r"|(?P<wide>[0-9]{2,5})[x\u00d7](?P<high>[0-9]{2,5})"
    r"|(?P<area>[0-9]{3})(?P<exchange>[0-9]{3})(?P<line>[0-9]{4}))(?![A-Za-z0-9])"
)
_ONE = Decimal(1)


def identifier_parts(text: str) -> list[tuple[int, int, str, Decimal, str]]:
    """(start, end, digits, scale 1, no unit) of each part (module docstring)."""
    found: list[tuple[int, int, str, Decimal, str]] = []
    for match in _PARTS.finditer(text):
        for group in ("code", "wide", "high", "area", "exchange", "line"):
            digits = match.group(group)
            if digits is not None:
                start, end = match.span(group)
                found.append((start, end, digits.lstrip("0") or "0", _ONE, ""))
    return found


def with_identifier_parts(
    text: str, numbers: list[tuple[int, int, str, Decimal, str]]
) -> list[tuple[int, int, str, Decimal, str]]:
    """``numbers`` (read from ``text`` in order) with the parts of its identifiers."""
    parts = identifier_parts(text)
    if not parts:
        return numbers
    return sorted(numbers + parts, key=lambda number: number[0])
