"""One line item the evidence gives twice, for the derived search (:mod:`._derive_pool`):
rounded in prose ("net sales of $1.2 billion ... from $757.3 million") and to the unit in
a table (1,200,181 and 757,338, in thousands). A writer who states the rounded figure
computes from the table's digits, so the stated number's row takes the table row whose
cell its own cell rounds as its row too: that row's other periods are its other periods.

A cell names a finer row only when it has three significant digits or more (two digits
round too many cells to say which one) and the table's cell writes more digits than it.
Built once per row and kept in the evidence index's memo.

A result the report derives keeps its exact value as an operand, in full units
(`in_full_units`): one worked out over digits a document declares in millions is brought
to the scale the report states it at.
"""

from __future__ import annotations

import math
from decimal import Decimal

from validation.engine.checks.numeric._derive_rows import MAX_GROUP, _Rows
from validation.engine.checks.numeric._evidence import EvidenceIndex

_SCALES = (1.0, 1e3, 1e6, 1e9)  # the scales a table's bare digits may be written at
_MIN_DIGITS = 3  # significant digits a rounded cell needs to point at one table cell
_MAX_FINER = 2  # finer rows one row takes
_LOOKED_AT = 8  # evidence numbers looked at for each cell and scale


def finer_rows(index: EvidenceIndex, rows: _Rows, units: dict[int, float], row: int) -> list[int]:
    """The rows of other evidence items whose cells the row's cells round ("$757.3
    million" over a table's 757,338 in thousands)."""
    key = ("derive-finer", row, tuple(sorted(units.items())))
    remembered: list[int] | None = index.memo.get(key)
    if remembered is not None:
        return remembered
    found: list[int] = []
    for entry in rows.cells[row][:MAX_GROUP]:
        number = index.number(entry)
        digits = _digits(number.written)
        if number.is_percent or digits < _MIN_DIGITS:
            continue
        full = _full(index, units, entry)
        half = _half_step(number.written) * full / float(abs(number.written))
        for scale in _SCALES:
            low, high = (full - half) / scale, (full + half) / scale
            for other in index.nearest(full / scale, low, high, _LOOKED_AT):
                place = rows.row_of.get(other)
                if place is None or place == row or place in found:
                    continue
                # Its item and digits as written, before its full record is built.
                if index.item_of(other) == number.item:
                    continue
                if _digits(Decimal(index.raw_of(other))) <= digits:
                    continue
                if abs(_full(index, units, other) - full) <= half * 1.000001:
                    found.append(place)
        if len(found) >= _MAX_FINER:
            break
    found = found[:_MAX_FINER]
    index.remember(key, found)
    return found


def finer_cells(index: EvidenceIndex, rows: _Rows, units: dict[int, float], row: int) -> list[int]:
    """The cells of the row's finer rows (`finer_rows`), as many as a row gives."""
    return [
        cell
        for found in finer_rows(index, rows, units, row)
        for cell in rows.cells[found][:MAX_GROUP]
    ]


def _full(index: EvidenceIndex, units: dict[int, float], entry: int) -> float:
    """An evidence number in full units, at the scale it states, else at the one the
    report reads its item at or its document declares (as :mod:`._derive_pool` reads it)."""
    number = index.number(entry)
    full = abs(float(number.full_value))
    if number.has_scale or number.is_percent:
        return full
    unit = units.get(number.item)
    if unit is None:
        declared = index.declared_scale(number.item)
        unit = float(declared) if declared is not None else 1.0
    return full * unit


def _digits(written: Decimal) -> int:
    return len(abs(written).normalize().as_tuple().digits) if written else 0


def _half_step(written: Decimal) -> float:
    """Half a unit of the last digit written ("757.3": 0.05)."""
    exponent = written.as_tuple().exponent
    return 0.5 * 10.0 ** (exponent if isinstance(exponent, int) else 0)


def in_full_units(derived: float, stated: float) -> float:
    """A derived result's exact value in full units: a result worked out over digits a
    document declares in millions ("2,964.6 - 2,755.1" = 209.5 for "$209.5 million")
    is brought to the scale the report states it at, by the power of a thousand between
    them."""
    if not derived or not stated:
        return derived or stated
    power = round(math.log10(abs(stated / derived)) / 3)
    return derived * 1000.0**power
