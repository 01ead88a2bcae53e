"""A percentage stated with the change it is of ("a decrease of $2,315 thousand, or about
18.5%"): the writer's derivation is that change over the level it started from, so a
percentage nothing supports is recomputed from it (issue 25, point 4).

The change names its operands: it is a supported amount of the percentage's own
sentence, before it, with nothing between them but the change's own ends ("fell by $6.2
million to $63.3 million, a decline of about 9.8%"), and it is the difference of two
levels of one line item — two amounts the sentence states, or two cells of one evidence
row. The words' direction (a rise, a fall) says which of the two it started from: the
smaller for a rise, the larger for a fall. A change that restates a table cell may be a
level, not a change: then only its own row's periods, or a row its sentence names, are
its ends. The percentage is fixed only when

- every pair of levels the change is the difference of gives the same percentage at the
  precision written (no other candidate: two line items that moved by the same amount
  to different percentages leave it ambiguous, and nothing is proposed);
- the written percentage is no reading of the change at all: not over the start taken
  from the exact cells, nor from the rounded figures the sentence states;
- it is within a quarter of the right one (`MISS_REACH`): a slip of the hand, not
  another quantity ("or 3.2% of sales" is a share, and is left alone).
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Sequence
from decimal import Decimal

from validation.engine.checks.numeric._cues import MEAN, MULTIPLE, POINTS, SHARE, SUM, cue_of
from validation.engine.checks.numeric._derive_pool import direction_of, supported
from validation.engine.checks.numeric._derive_rows import _rows
from validation.engine.checks.numeric._evidence import EvidenceIndex
from validation.engine.checks.numeric._formatting import replace_digits
from validation.engine.checks.numeric._labels import label_tokens
from validation.engine.checks.numeric._matching import Claim, Hit, small_integer
from validation.engine.checks.numeric._misses import MISS_REACH
from validation.engine.checks.numeric._outcome import _Output
from validation.engine.checks.numeric._readings import PERCENT_UNITS
from validation.engine.checks.numeric._types import NumberMention
from validation.engine.checks.numeric._worded_fix import worded_result_fix
from validation.engine.types import EvidenceExcerpt, ToolCallRecord

_OTHER_RESULTS = frozenset((SHARE, MULTIPLE, MEAN, SUM, POINTS))
_ROW_CELLS = 12  # cells of one row paired (a wide row costs the same as a narrow one)
_MAX_ROWS = 400  # rows looked at per percentage (a wall of tables costs the same)
CONFIDENCE = 0.85  # the start is read from the cells, not written: below a calculation's


class StatedChange:
    """The recomputed percentage: its value at the precision written, the formula."""

    __slots__ = ("formula", "value")

    def __init__(self, value: Decimal, formula: str) -> None:
        self.value, self.formula = value, formula


def stated_change_of(
    body: str,
    index: EvidenceIndex,
    claims: Sequence[Claim],
    position: int,
    sentence: tuple[int, int],
) -> StatedChange | None:
    """For an unsupported percentage stated after its change: the change over its start,
    when that reading is the one (module docstring)."""
    claim = claims[position]
    mention = claim.mention
    if not mention.is_percent or mention.unit != "%" or not mention.written:
        return None
    if supported(claim) or claim.depends or claim.operand or claim.in_expression:
        return None
    if claim.calculation is not None or mention.in_range or mention.written < 0:
        return None
    low, high = sentence
    direction = direction_of(body, claims, position, low, high)
    if not direction:
        return None
    words = label_tokens(body[low:high])
    found = _change_before(index, claims, position, low, direction, words)
    if found is None:
        return None
    change, starts = found
    cue = cue_of(body, mention.start, mention.end, (low, high), change.end, mention.end)
    if cue.of_after or cue.kinds & _OTHER_RESULTS:
        return None  # "or 3.2% of sales": a share of something else, not the change's rate
    size = abs(change.value)
    written = abs(mention.written)
    window = Decimal(1).scaleb(-mention.decimals) / 2
    values: set[Decimal] = set()
    formula = ""
    for start, exact in starts:
        value = exact / start * 100
        # A reading of the change as written, over the exact cells or the rounded
        # figure: the writer's own, not a slip.
        for reading in (value, size / start * 100):
            if abs(reading - written) <= window * Decimal("1.000001"):
                return None
        values.add(round(value, max(mention.decimals, 0)))
        formula = f"{_shown(exact)} / {_shown(start)} * 100 = {value:.6f}"
    if len(values) != 1:
        return None
    right = values.pop()
    if not right or abs(written - right) > right * Decimal(str(MISS_REACH)):
        return None
    return StatedChange(right, formula)


def _change_before(
    index: EvidenceIndex,
    claims: Sequence[Claim],
    position: int,
    low: int,
    direction: int,
    words: frozenset[str],
) -> tuple[NumberMention, list[tuple[Decimal, Decimal]]] | None:
    """The change the percentage is stated with, and the starts it may be over: the
    nearest supported amount before it in its sentence that is the difference of two
    levels, with nothing between them but those levels (at most `_BETWEEN`)."""
    for at in range(position - 1, max(position - 2 - _BETWEEN, -1), -1):
        other = claims[at]
        mention = other.mention
        if mention.start < low:
            return None
        if mention.is_percent or not supported(other) or small_integer(mention):
            return None  # another result, or a figure nothing supports, stands between
        if not mention.value:
            continue
        levels = _levels(claims, at, position, low)
        starts = _starts(index, mention, direction, levels, other.hit, words)
        if not starts:
            continue
        between = [abs(claims[near].mention.value) for near in range(at + 1, position)]
        if all(_an_end(level, starts, abs(mention.value), mention) for level in between):
            return mention, starts
        return None
    return None


def _levels(claims: Sequence[Claim], at: int, position: int, low: int) -> list[Decimal]:
    """The supported amounts of the sentence before the percentage, but the change."""
    levels: list[Decimal] = []
    for near in range(position - 1, max(position - 1 - _LEVELS, -1), -1):
        level = claims[near]
        if level.mention.start < low:
            break
        mention = level.mention
        if near != at and not mention.is_percent and supported(level) and mention.value:
            levels.append(abs(mention.value))
    return levels


_LEVELS = 6  # amounts of the sentence before a percentage read as a change's ends
_BETWEEN = 2  # amounts between a change and its percentage (its ends)


def _an_end(
    level: Decimal, starts: Sequence[tuple[Decimal, Decimal]], size: Decimal, change: NumberMention
) -> bool:
    """The level is an end of the change: its start, or where it went."""
    tolerance = max(level * Decimal("0.005"), Decimal(1).scaleb(-change.decimals) * change.scale)
    return any(
        abs(level - start) <= tolerance
        or abs(level - start - size) <= tolerance
        or abs(level - start + size) <= tolerance
        for start, _ in starts
    )


def _starts(
    index: EvidenceIndex,
    change: NumberMention,
    direction: int,
    levels: Sequence[Decimal],
    own: Hit | None,
    words: frozenset[str],
) -> list[tuple[Decimal, Decimal]]:
    """(start, exact change), at the change's own scale, of every pair of levels of one
    line item the change is the difference of: two amounts its sentence states, or two
    cells of one evidence row (compared at any scale: a ratio has none). A cell the
    change itself restates is a level, not an end of it: its pairs are not read."""
    size = abs(change.value)
    half = Decimal(1).scaleb(-change.decimals) * change.scale / 2 * Decimal("1.000001")
    found: list[tuple[Decimal, Decimal]] = []
    for first, second in _pairs(levels):
        if abs(abs(first - second) - size) <= half:
            found.append((_start(first, second, direction), abs(first - second)))
    differences, pairs = _row_differences(index)
    # A change that restates a table cell is that row's own change (a column of changes:
    # its periods differ by it), or a level: another row's difference only when the
    # sentence names that row; one that restates a sentence of prose ("increased $67.2
    # million") may be any row's.
    rows = _rows(index)
    own_row = None if own is None else rows.row_of.get(own.number.entry)
    target, power = _mantissa(float(size))
    reach = float(half) / 1000.0**power
    at = bisect_left(differences, target - reach)
    while at < len(differences) and differences[at] <= target + reach:
        row, first, second = pairs[at]
        at += 1
        scale = Decimal(1000) ** power / Decimal(1000) ** _mantissa(float(abs(first - second)))[1]
        if abs(abs(first - second) * scale - size) > half:
            continue
        if own_row is not None and row != own_row and not rows.tokens[row] & words:
            continue
        if abs(first * scale - size) <= half or abs(second * scale - size) <= half:
            continue  # a cell that restates the change is a level, not its end
        found.append((_start(first, second, direction) * scale, abs(first - second) * scale))
    return found


def _mantissa(value: float) -> tuple[float, int]:
    """`value` as m x 1000^k with 1 <= m < 1000 (a change and its cells' difference are
    compared at any scale word: thousands, millions, billions)."""
    power = math.floor(math.log(value, 1000)) if value > 0 else 0
    mantissa = value / 1000.0**power
    if mantissa >= 1000:  # the logarithm's rounding
        mantissa, power = mantissa / 1000, power + 1
    return mantissa, power


def _row_differences(
    index: EvidenceIndex,
) -> tuple[list[float], list[tuple[int, Decimal, Decimal]]]:
    """Every pair of positive amount cells of one evidence row (the first `_ROW_CELLS` of
    each of the first `_MAX_ROWS` rows), by the mantissa of their difference: built once
    per evidence index, so each percentage's look-up is a binary search."""
    remembered: tuple[list[float], list[tuple[int, Decimal, Decimal]]] | None = index.memo.get(
        ("stated-change-pairs",)
    )
    if remembered is not None:
        return remembered
    rows = _rows(index)
    keyed: list[tuple[float, int, Decimal, Decimal]] = []
    for row, cells in enumerate(rows.cells[:_MAX_ROWS]):
        if len(cells) < 2:
            continue
        values = []
        for entry in cells[:_ROW_CELLS]:
            if index.unit(entry) in PERCENT_UNITS:
                continue
            value = index.value_of(entry)
            if value > 0:
                values.append((value, float(value)))
        # Keyed by the floats' difference: the look-up's window is wide enough for a last
        # bit, and `_starts` compares every pair it takes exactly.
        for at, (first, near) in enumerate(values):
            for second, far in values[at + 1 :]:
                if first != second:
                    keyed.append((_mantissa(abs(near - far))[0], row, first, second))
    keyed.sort(key=lambda entry: entry[0])
    built = ([entry[0] for entry in keyed], [entry[1:] for entry in keyed])
    index.remember(("stated-change-pairs",), built)
    return built


def _pairs(values: Sequence[Decimal]) -> list[tuple[Decimal, Decimal]]:
    return [
        (values[i], values[j])
        for i in range(len(values))
        for j in range(i + 1, len(values))
        if values[i] != values[j]
    ]


def _start(first: Decimal, second: Decimal, direction: int) -> Decimal:
    return min(first, second) if direction > 0 else max(first, second)


def _shown(value: Decimal) -> str:
    return f"{value.normalize():,f}"


def stated_change_finding(body: str, claim: Claim, found: StatedChange, result: _Output) -> None:
    """The finding and fix of a percentage its stated change does not give."""
    mention = claim.mention
    replacement = replace_digits(mention, found.value)
    proof = EvidenceExcerpt(source_ref="calculator", excerpt=found.formula, label="percent change")
    worded_result_fix(
        body,
        mention,
        result,
        message=(
            f'"{mention.text}" does not follow from the change it is stated with: '
            f"{found.formula}, which is {replacement}"
        ),
        replacement=replacement,
        proof=proof,
        call=ToolCallRecord(
            tool="calculator",
            input={"expression": found.formula.split(" = ")[0]},
            output=found.formula.split(" = ")[-1],
        ),
        verified_with=f"calculator: {found.formula}",
        confidence=CONFIDENCE,
    )
