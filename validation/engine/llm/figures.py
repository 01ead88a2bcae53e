"""Numbers as the fixer writes them: their value, the decimals shown, percent and scale
words, and whether a computed value agrees with one at the precision shown."""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal, InvalidOperation

_NUMBER = re.compile(
    r"(?<![\w.])[-\u2212]?[$€£]?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?"
    r"(?:\s?(%|percent\b|[KMB]\b|bn\b|thousand\b|million\b|billion\b|trillion\b))?"
)
_SCALE = {
    "K": Decimal(10**3),
    "thousand": Decimal(10**3),
    "M": Decimal(10**6),
    "million": Decimal(10**6),
    "B": Decimal(10**9),
    "bn": Decimal(10**9),
    "billion": Decimal(10**9),
    "trillion": Decimal(10**12),
}


@dataclass(frozen=True)
class Shown:
    """A number as written: its value, decimals shown, percent, scale multiplier."""

    text: str
    value: Decimal
    decimals: int
    percent: bool
    scale: Decimal

    def is_year(self) -> bool:
        return (
            not self.percent
            and self.decimals == 0
            and self.scale == 1
            and "," not in self.text
            and 1900 <= self.value <= 2100
            and not self.text.startswith(("$", "€", "£"))
        )


def numbers_in(text: str) -> list[Shown]:
    found = []
    for match in _NUMBER.finditer(text):
        digits = match.group(1).replace(",", "") + (match.group(2) or "")
        try:
            value = Decimal(digits)
        except InvalidOperation:  # pragma: no cover - the pattern admits only digits
            continue
        if match.group(0).lstrip().startswith(("-", "\u2212")):
            value = -value
        unit = match.group(3) or ""
        found.append(
            Shown(
                text=match.group(0),
                value=value,
                decimals=len(match.group(2) or "") - 1 if match.group(2) else 0,
                percent=unit in ("%", "percent"),
                scale=_SCALE.get(unit, Decimal(1)),
            )
        )
    return found


def agrees(shown: Shown, value: Decimal) -> bool:
    """``value`` written at ``shown``'s precision is ``shown`` (either rounding, sign-blind
    for a minus the prose may spell out; x100 for a percent; scale words multiply)."""
    candidates = [value]
    if shown.percent:
        candidates.append(value * 100)
    targets = {abs(shown.value), abs(shown.value * shown.scale)}
    quantum = Decimal(1).scaleb(-shown.decimals)
    for candidate in candidates:
        for scale in {Decimal(1), shown.scale}:
            scaled = abs(candidate) / scale
            for rounding in (ROUND_HALF_UP, ROUND_HALF_EVEN):
                try:
                    if scaled.quantize(quantum, rounding=rounding) in targets:
                        return True
                except InvalidOperation:
                    continue
    return False
