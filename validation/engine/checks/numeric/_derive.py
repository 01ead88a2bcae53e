"""What did the writer compute this from? The closed search over the report's operands.

A number the matching and the fixpoint left unsupported gets one more look, as a
careful reader with the evidence open would give it. Its *operands* are:

- the supported numbers the report states in the claim's sentence (strongest), and the
  evidence rows the claim's own words name;
- the cells beside those: the other columns of the same row (other periods), the other
  cells of the same column (the total), and every other supported number the report
  states anywhere.

The *operations* are a closed family, whatever the words: difference, sum (of two, or
of a whole row, column or list), ratio or multiple, share of a total, percentage
change, change in points, average (of two, or of a row's first periods), CAGR over n
periods, a ratio per unit; conversions of scale are free (operands in full units, the
claim read at its own scale or at the scale of the operands' digits, or in cents).

*Acceptance is by evidence, not by closeness.* The candidates are generated in tiers
(both operands near the claim; one near, one beside; both beside). A hit in tier t is
weighed against every candidate of tiers 0..t: the chance that one of them lands in
the claim's rounding window by coincidence is estimated from the number of candidate
values within a factor ``_SPREAD`` of the claim, times the window's width relative to
that range. A derivation is accepted only when that chance is below ``ACCEPT``; its
formula carries the chance, so the proof shows how strong it is.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal

from validation.engine.checks.numeric._cues import (
    _WORD,
    CAGR,
    CHANGE,
    MEAN,
    MULTIPLE,
    POINTS,
    SHARE,
    SUM,
    _direction,
    cue_of,
)
from validation.engine.checks.numeric._evidence import EvidenceIndex
from validation.engine.checks.numeric._labels import label_tokens
from validation.engine.checks.numeric._matching import (
    Claim,
    Derivation,
    small_integer,
    wrong_calculation,
)
from validation.engine.checks.numeric._types import NumberMention

ACCEPT = 0.05  # the largest chance of a coincidence a derivation may carry
_NEAR_MISS = 0.15  # a slip of the writer's own operation lands this close, relatively
_SPREAD = 3.0  # candidates within this factor of the claim make its neighbourhood
_LOG_SPREAD = 2 * math.log(_SPREAD)
_MAX_POOL = 40  # operands offered to one claim
_MAX_NAMED = 3  # rows named by one text
_MAX_GROUP = 8  # cells of a row or column summed or averaged as a whole
_STATED, _NEAR, _NAMED, _BESIDE = 4, 3, 2, 1  # operand strengths
_TIERS = 5
_GROUP_TIER = {_STATED: 0, _NEAR: 1, _NAMED: 2, _BESIDE: 4}


@dataclass(frozen=True, slots=True)
class Operand:
    value: float  # full units; a percentage as written (22.5 for 22.5 %)
    text: str
    percent: bool
    digits: float  # the scale its digits are written at (1e6 in a table in millions)
    strength: int
    row: int  # the evidence row it lies in, or -1
    column: int  # its place in that row, or -1
    unscaled: bool = False  # evidence digits at a scale nothing states
    item: int = -1  # the evidence item of its cell
    reported: bool = False  # a number the report states
    change: bool = False  # a difference the report derives ("an increase of $11.3 million")
    entry: int = -1  # its evidence entry, if it is a cell
    position: int = -1  # its claim, if the report states it


@dataclass(frozen=True, slots=True)
class Explained:
    value: float
    formula: str
    operation: str
    chance: float
    tier: int
    # (the stated number, the cell of its row the derivation takes instead)
    conflict: tuple[Operand, Operand] | None = None


@dataclass(frozen=True, slots=True)
class _Rows:
    """The evidence in rows: each non-twin entry's row and column, each row's cells."""

    row_of: dict[int, int]
    column_of: dict[int, int]
    cells: list[list[int]]
    tokens: list[frozenset[str]]
    by_item_column: dict[tuple[int, int], list[int]]


def _rows(index: EvidenceIndex) -> _Rows:
    remembered: _Rows | None = index.memo.get(("derive-rows",))
    if remembered is not None:
        return remembered
    row_of: dict[int, int] = {}
    column_of: dict[int, int] = {}
    cells: list[list[int]] = []
    tokens: list[frozenset[str]] = []
    by_item_column: dict[tuple[int, int], list[int]] = {}
    last: tuple[int, str] | None = None
    json_columns: dict[tuple[int, str], list[int]] = {}
    for entry in range(len(index)):
        if index.is_mantissa(entry):
            continue
        number = index.number(entry)
        label = number.label
        column_key = ""
        if index.items[number.item].text is None and "." in label:
            # A JSON path: the object holding the number is its row ("line_items.Total"),
            # its key the column ("2019").
            label, column_key = label.rsplit(".", 1)
        key = (number.item, label)
        if key != last or len(cells[-1]) >= _MAX_GROUP * 2:
            cells.append([])
            tokens.append(label_tokens(label))
            last = key
        row = len(cells) - 1
        row_of[entry] = row
        column_of[entry] = len(cells[row])
        cells[row].append(entry)
        if column_key:
            json_columns.setdefault((number.item, column_key), []).append(entry)
    for entries in cells:
        if len(entries) < 2 or index.items[index.number(entries[0]).item].text is None:
            continue  # a lone number (prose) is no table row; JSON has its keys
        item = index.number(entries[0]).item
        for column, entry in enumerate(entries):
            by_item_column.setdefault((item, column), []).append(entry)
    for (json_item, _), entries in json_columns.items():
        for entry in entries:
            by_item_column.setdefault((json_item, column_of[entry]), []).append(entry)
    lone = [place for place, members in by_item_column.items() if len(members) < 2]
    for place in lone:
        del by_item_column[place]
    found = _Rows(row_of, column_of, cells, tokens, by_item_column)
    index.remember(("derive-rows",), found)
    return found


def units_of(claims: Sequence[Claim]) -> dict[int, float]:
    """For each evidence item whose numbers carry no scale, the scale the report reads
    them at ("$788.9 million" for a table's 788,948: thousands), when its reads agree."""
    seen: dict[int, set[float]] = {}
    for claim in claims:
        hit = claim.hit
        if hit is None or hit.number.has_scale or hit.number.is_percent:
            continue
        if claim.mention.is_percent or not claim.mention.has_explicit_scale:
            continue
        scale = float(claim.mention.scale / hit.factor)
        seen.setdefault(hit.number.item, set()).add(scale)
    return {item: scales.pop() for item, scales in seen.items() if len(scales) == 1}


def _evidence_operand(
    index: EvidenceIndex, rows: _Rows, units: dict[int, float], entry: int, strength: int
) -> Operand:
    number = index.number(entry)
    if number.mantissa and entry > 0:
        entry -= 1  # the scaled twin stands before its digits
        number = index.number(entry)
    full = float(number.full_value)
    written = float(number.written)
    percent = number.is_percent
    digits = 1.0 if percent or not written else abs(full / written)
    unscaled = False
    if not number.has_scale and not percent:
        unit = units.get(number.item)
        if unit is None:
            declared = index.declared_scale(number.item)
            unscaled = declared is None
            unit = float(declared) if declared is not None else 1.0
        full *= unit
        digits *= unit
    return Operand(
        value=full,
        text=number.raw,
        percent=percent,
        digits=digits,
        strength=strength,
        row=rows.row_of.get(entry, -1),
        column=rows.column_of.get(entry, -1),
        unscaled=unscaled,
        item=number.item,
        entry=entry,
    )


def supported(claim: Claim) -> bool:
    return (
        claim.hit is not None
        or (claim.calculation is not None and claim.calculation.correct)
        or claim.derivation is not None
        or bool(claim.computed)
    )


def _report_operand(
    claim: Claim, index: EvidenceIndex, rows: _Rows, units: dict[int, float], strength: int
) -> Operand:
    mention = claim.mention
    hit = claim.hit
    if hit is not None and hit.number.is_percent == mention.is_percent:
        operand = _evidence_operand(index, rows, units, hit.number.entry, strength)
        return replace(operand, text=mention.text, reported=True, position=claim.index)
    how = claim.computed
    if claim.derivation is not None:
        how = claim.derivation.formula
    elif claim.calculation is not None and claim.calculation.correct:
        how = claim.calculation.calculation.expression
    if claim.derivation is not None and not mention.is_percent:
        value = float(claim.derivation.value)
    else:
        value = float(mention.value)
    return Operand(
        value=value,
        text=mention.text,
        percent=mention.is_percent,
        digits=1.0 if mention.is_percent else float(mention.scale),
        strength=strength,
        row=-1,
        column=-1,
        reported=True,
        change=not mention.is_percent and bool(_DIFFERENCE.fullmatch(_bare(how))),
    )


def _bare(formula: str) -> str:
    """A formula without its chance or its written result."""
    return formula.split(" (chance")[0].split(" = ")[0]


_DIFFERENCE = re.compile(r"[^-+*/()]+ - [^-+*/()]+")


def _digits(full: Decimal, written: Decimal) -> float:
    return abs(float(full / written)) if written else 1.0


def pool(
    position: int,
    claims: Sequence[Claim],
    index: EvidenceIndex,
    sentence: tuple[int, int],
    words: str,
    units: dict[int, float],
) -> list[Operand]:
    """The operands offered to the claim at `position`, strongest first."""
    rows = _rows(index)
    found: list[Operand] = []
    seen: set[tuple[float, bool]] = set()
    claim_value = abs(claims[position].mention.value)

    def add(operand: Operand) -> None:
        key = (round(operand.value, 9), operand.percent)
        if key not in seen and len(found) < _MAX_POOL and operand.value != 0:
            seen.add(key)
            found.append(operand)

    low, high = sentence
    near: list[Claim] = []
    others: list[Claim] = []
    for other_position in _around(position, len(claims)):
        other = claims[other_position]
        if not supported(other) or other.mention.in_range:
            continue
        if abs(other.mention.value) == claim_value and other.hit is None:
            continue
        (near if low <= other.mention.start < high else others).append(other)
    periods: list[int] = []  # the same line item's other periods
    column: list[int] = []  # the same period's other line items (its total)
    for other in near:
        operand = _report_operand(other, index, rows, units, _STATED)
        add(operand)
        if operand.row >= 0:
            periods += rows.cells[operand.row][:_MAX_GROUP]
            item = index.number(rows.cells[operand.row][0]).item
            column += rows.by_item_column.get((item, operand.column), ())
    for entry in periods:
        add(_evidence_operand(index, rows, units, entry, _NEAR))
    own, named = _named_rows(rows, claims[position].mention.label, words)
    for row in own:
        for entry in rows.cells[row][:_MAX_GROUP]:
            add(_evidence_operand(index, rows, units, entry, _NEAR))
    for row in named:
        for entry in rows.cells[row][:_MAX_GROUP]:
            add(_evidence_operand(index, rows, units, entry, _NAMED))
    for entry in column:
        add(_evidence_operand(index, rows, units, entry, _NAMED))
    later: list[int] = []
    for other in others:
        operand = _report_operand(other, index, rows, units, _BESIDE)
        add(operand)
        if operand.row >= 0:
            later += rows.cells[operand.row][:_MAX_GROUP]
    for entry in later:
        add(_evidence_operand(index, rows, units, entry, _BESIDE))
    return found


def _named_rows(rows: _Rows, label: str, words: str) -> tuple[list[int], list[int]]:
    """The evidence rows the claim's words name: most of a row's label words stand in
    the claim's own label, or in its sentence; more shared words first."""
    own: list[int] = []
    named: list[int] = []
    for found, text in ((own, label), (named, words)):
        wanted = label_tokens(text)
        if not wanted:
            continue
        scored = sorted(
            (-len(wanted & tokens), row)
            for row, tokens in enumerate(rows.tokens)
            if tokens and len(wanted & tokens) * 2 >= len(tokens)
        )
        found += [row for _, row in scored[:_MAX_NAMED] if row not in own]
    return own, named


def _percent_target(mention: NumberMention) -> bool:
    return mention.is_percent


def _multiple(mention: NumberMention, body: str) -> bool:
    if mention.unit == "x":
        return True
    after = body[mention.end : mention.end + 8].lower()
    return after.startswith((" times", "x ", "-fold", " fold"))


# (tier, value, a format of its formula, operation, the operands' texts)
_Candidate = tuple[int, float, str, str, tuple["Operand | str", ...]]


def _candidates(
    operands: Sequence[Operand],
    kind: str,
    periods: Sequence[int],
    direction: int,
    only: frozenset[str] = frozenset(),
) -> Iterator[_Candidate]:
    """(tier, value, formula, operation, its operands) for every candidate, tier by tier. A change
    whose words say a rise (`direction` 1) or a fall (-1) is taken on that base only."""
    amounts = [operand for operand in operands if not operand.percent]
    percents = [operand for operand in operands if operand.percent]
    if only:
        for candidate in _candidates(operands, kind, periods, direction):
            if candidate[3] in only:
                yield candidate
        return
    for tier in range(_TIERS):
        chosen = amounts if kind != "points" else percents
        yield from _pairs(chosen, kind, tier, periods, direction)
        if kind == "percent":
            yield from _pairs(percents, "points", tier, periods, direction)
        if kind == "amount":
            yield from _groups(amounts, tier)


def _tier(first: Operand, second: Operand) -> int:
    """How strongly a pair of operands is the writer's: 0 both stated in the claim's
    sentence; 1 both near it (stated in it, or in the rows of those numbers or of its own
    label), or one stated in it and the other in the same row or column; 2 one near and
    the other in its row or column or stated elsewhere in the report; 3 one of them
    named by the sentence; 4 neither."""
    weaker, stronger = sorted((first.strength, second.strength))
    if weaker == _STATED:
        return 0
    linked = (first.row >= 0 and first.row == second.row) or (
        first.column >= 0 and first.item == second.item and first.column == second.column
    )
    if weaker >= _NEAR or (stronger == _STATED and linked):
        return 1
    if stronger >= _NEAR and (linked or first.reported or second.reported):
        return 2
    return 3 if stronger >= _NAMED else 4


def _pairs(
    operands: Sequence[Operand], kind: str, tier: int, periods: Sequence[int], direction: int
) -> Iterator[_Candidate]:
    values = sorted(abs(operand.value) for operand in operands)
    for i, first in enumerate(operands):
        for second in operands[i + 1 :]:
            if _tier(first, second) != tier:
                continue
            a, b = first.value, second.value
            ta, tb = first, second
            if kind == "amount":
                yield tier, abs(a - b), "{} - {}", "difference", (ta, tb)
                yield tier, abs(a + b), "{} + {}", "sum", (ta, tb)
                yield tier, abs(a + b) / 2, "({} + {}) / 2", "average", (ta, tb)
                if b:
                    yield tier, abs(a / b), "{} / {}", "per unit", (ta, tb)
                if a:
                    yield tier, abs(b / a), "{} / {}", "per unit", (tb, ta)
            elif kind == "multiple":
                if b:
                    yield tier, abs(a / b), "{} / {}", "multiple", (ta, tb)
                if a:
                    yield tier, abs(b / a), "{} / {}", "multiple", (tb, ta)
            elif kind == "points":
                yield tier, abs(a - b), "{} - {}", "points", (ta, tb)
                yield tier, abs(a + b) / 2, "({} + {}) / 2", "average", (ta, tb)
            elif kind == "percent":
                for top, bottom, tt, tb_, part in (
                    (a, b, ta, tb, first),
                    (b, a, tb, ta, second),
                ):
                    if not bottom:
                        continue
                    if not (part.change and _wrong_base(top, bottom, direction, values)):
                        yield tier, abs(top / bottom * 100), "{} / {} * 100", "share", (tt, tb_)
                    change = (top - bottom) / bottom * 100
                    if direction * change < 0:
                        continue  # "up 15.3%" is never a change taken from the later value
                    yield tier, abs(change), "({0} - {1}) / {1} * 100", "percent change", (tt, tb_)
                    if top / bottom > 0:
                        for n in _periods(first, second, periods):
                            rate = ((top / bottom) ** (1 / n) - 1) * 100
                            formula = "(({} / {}) ^ (1 / {}) - 1) * 100"
                            yield tier, abs(rate), formula, "CAGR", (tt, tb_, str(n))


def _wrong_base(change: float, base: float, direction: int, values: Sequence[float]) -> bool:
    """A rise of `change` taken over the level it rose *to* (or a fall over the level it
    fell to): the other end of the change is among the operands, on the wrong side."""
    if not direction:
        return False
    wrong = abs(base) - direction * abs(change)
    right = abs(base) + direction * abs(change)
    tolerance = abs(change) * 0.01
    position = bisect_left(values, wrong - tolerance)
    if position >= len(values) or values[position] > wrong + tolerance:
        return False
    position = bisect_left(values, right - tolerance)
    return position >= len(values) or values[position] > right + tolerance


def _periods(first: Operand, second: Operand, named: Sequence[int]) -> list[int]:
    """The periods a compound rate between two values is over: the span of the years
    its sentence names; two cells of one row span the columns between them, and
    with years named they must span one of those."""
    found = [n for n in named if n > 1]
    if first.row >= 0 and first.row == second.row:
        distance = abs(first.column - second.column)
        if found:
            return [distance] if distance in found else []
        return [distance] if distance > 1 else []
    return found


def _groups(operands: Sequence[Operand], tier: int) -> Iterator[_Candidate]:
    """Sums and averages of three or more: a row's first periods, a column, a list."""
    groups: dict[tuple[str, int], list[Operand]] = {}
    for operand in operands:
        if operand.row >= 0:
            groups.setdefault(("row", operand.row), []).append(operand)
    if tier == 0:
        near = [operand for operand in operands if operand.strength == _STATED]
        if len(near) >= 3:
            groups[("list", 0)] = near
    for (kind, row), members in groups.items():
        strongest = max(member.strength for member in members)
        if kind == "row" and tier != _GROUP_TIER[strongest]:
            continue
        if kind == "row":
            members = sorted(members, key=lambda operand: operand.column)
        for size in range(3, min(len(members), _MAX_GROUP) + 1):
            chosen = members[:size]
            total = sum(member.value for member in chosen)
            written = " + ".join(member.text for member in chosen)
            yield tier, abs(total), written, "sum", ()
            yield tier, abs(total) / size, f"({written}) / {size}", "average", ()
        del row


def _readings(
    mention: NumberMention, body: str, operands: Sequence[Operand]
) -> list[tuple[float, float]]:
    """(value, width of its rounding window) for each reading of an amount."""
    written = abs(float(mention.written))
    step = 10.0**-mention.decimals
    if mention.has_explicit_scale:
        scale = float(mention.scale)
        readings = [(written * scale, step * scale)]
        if any(operand.unscaled for operand in operands):
            readings.append((written, step))  # "$92.0 million" of a table in millions
        return readings
    readings = [(written, step)]
    for scale in sorted({operand.digits for operand in operands} - {1.0}):
        readings.append((written * scale, step * scale))
    if body[mention.end : mention.end + 6].lower().startswith((" cent", "¢")):
        readings.append((written / 100, step / 100))
    return readings


_YEAR = re.compile(r"\b(?:19[5-9]\d|20[0-4]\d)\b")


def periods_named(words: str) -> list[int]:
    """The counts of periods between the years a sentence names ("since 2015" in a
    sentence about 2019: four)."""
    years = sorted({int(year) for year in _YEAR.findall(words)})
    return sorted({later - earlier for i, earlier in enumerate(years) for later in years[i + 1 :]})


def explain(
    claim: Claim,
    body: str,
    operands: Sequence[Operand],
    periods: Sequence[int],
    direction: int = 0,
    named: frozenset[str] = frozenset(),
) -> Explained | None:
    """The derivation of the claim from `operands` whose chance of a coincidence is
    below `ACCEPT`, or None. The operations its words name are searched first, alone
    (their candidates alone make the neighbourhood); then every operation."""
    mention = claim.mention
    if small_integer(mention) or not operands:
        return None
    if _percent_target(mention):
        kind = "percent"
        readings = [(abs(float(mention.written)), 10.0**-mention.decimals)]
    elif _multiple(mention, body):
        kind = "multiple"
        readings = [(abs(float(mention.written)), 10.0**-mention.decimals)]
    else:
        kind = "amount"
        readings = _readings(mention, body, operands)
    readings = [(target, width) for target, width in readings if target]
    if not readings:
        return None
    if named:
        found = _search(_candidates(operands, kind, periods, direction, named), readings, operands)
        if found is not None:
            return found
    return _search(_candidates(operands, kind, periods, direction), readings, operands)


def _conflict(
    used: Sequence[Operand | str], operands: Sequence[Operand]
) -> tuple[Operand, Operand] | None:
    """The derivation takes a cell of a row whose other cell the sentence states
    instead ("to $126 million from $59 million", explained with the row's 67): the
    stated number and the cell, when exactly one such pair exists."""
    cells = [operand for operand in used if isinstance(operand, Operand)]
    if not any(cell.strength == _STATED for cell in cells):
        return None
    found: list[tuple[Operand, Operand]] = []
    for cell in cells:
        if cell.strength == _STATED or cell.row < 0:
            continue
        for stated in operands:
            if stated.strength != _STATED:
                break
            if stated.row == cell.row and stated not in cells:
                found.append((stated, cell))
    return found[0] if len(found) == 1 else None


def _search(
    candidates: Iterator[_Candidate],
    readings: list[tuple[float, float]],
    operands: Sequence[Operand],
) -> Explained | None:
    neighbourhood = 0
    missed: set[str] = set()  # operations over the sentence's own numbers that nearly fit
    hit: tuple[int, float, str, str, tuple[Operand | str, ...], float, float] | None = None
    current = 0
    # Past this many neighbours no hit can be accepted any more: the search may stop.
    enough = ACCEPT / min(width / (target * _LOG_SPREAD) for target, width in readings if target)
    for tier, value, formula, operation, texts in candidates:
        if tier != current:
            if hit is not None or neighbourhood >= enough:
                break
            current = tier
        for target, width in readings:
            if target / _SPREAD <= value <= target * _SPREAD:
                neighbourhood += 1
                off = abs(value - target)
                if hit is None and off <= width / 2 * 1.000001:
                    hit = (tier, value, formula, operation, texts, target, width)
                elif tier == 0 and off <= target * _NEAR_MISS:
                    missed.add(operation)
    if hit is None:
        return None
    tier, value, formula, operation, texts, target, width = hit
    if tier and operation in missed:
        # The numbers stated beside it, in the same operation, miss it: the writer
        # computed from those and slipped; another pair landing on it is chance.
        return None
    chance = min(1.0, max(1, neighbourhood) * width / (target * _LOG_SPREAD))
    if chance >= ACCEPT:
        return None
    conflict = _conflict(texts, operands) if tier else None
    shown = [text.text if isinstance(text, Operand) else text for text in texts]
    written = formula.format(*shown) if texts else formula
    return Explained(value, f"{written} (chance {chance:.1%})", operation, chance, tier, conflict)


def rescue(
    body: str,
    claims: Sequence[Claim],
    index: EvidenceIndex,
    sentence_of: Callable[[int, int], tuple[int, int]],
) -> None:
    """Give each number still unsupported (an orphan, or a miss of the operation its
    words name) the derivation the closed search accepts, if any; its finding goes."""
    units = units_of(claims)
    budget = [_MAX_RESCUES]
    for position, claim in enumerate(claims):
        if budget[0] <= 0:
            break
        derivation = claim.derivation
        if derivation is not None and claim.hit is None:
            low, high = sentence_of(claim.mention.start, claim.mention.end)
            if _wrong_base_change(
                derivation.formula, _direction_of(body, claims, position, low, high)
            ):
                claim.derivation = None  # the search below may still find the writer's
            elif _stated_cells(claims, position, low, high) >= 2:
                # The fixpoint's result where its sentence states operands: does the
                # writer's row take another cell in place of one of them (a wrong period)?
                claim.derivation = None
                budget[0] -= 1
                if not _rescue(body, claims, position, index, sentence_of, units):
                    claim.derivation = derivation
    for _ in range(_ROUNDS):
        changed = False
        for position, claim in enumerate(claims):
            if _eligible(claim) and budget[0] > 0:
                budget[0] -= 1
                changed = _rescue(body, claims, position, index, sentence_of, units) or changed
        if not changed:
            break


_CHANGE_FORMULA = re.compile(r"\((?P<a>[^()]+) - (?P<b>[^()]+)\) / (?P<base>[^()]+) \* 100")
_LAST_NUMBER = re.compile(r"-?[\d,]*\.?\d+(?!.*\d)")


def _wrong_base_change(formula: str, direction: int) -> bool:
    """A percentage change taken over the level it ended at: "up" over the larger of
    the two, "down" over the smaller."""
    found = _CHANGE_FORMULA.fullmatch(_bare(formula))
    if found is None or not direction:
        return False
    numbers = []
    for name in ("a", "b", "base"):
        number = _LAST_NUMBER.search(found.group(name))
        if number is None:
            return False
        numbers.append(abs(float(number.group().replace(",", ""))))
    first, second, base = numbers
    if base not in (first, second) or first == second:
        return False
    end = max(first, second) if direction > 0 else min(first, second)
    return base == end


def _direction_of(body: str, claims: Sequence[Claim], position: int, low: int, high: int) -> int:
    """A rise (1) or a fall (-1) the claim's words say, else the nearest word of
    direction before it in its sentence ("a decline of $93.3 million, or about 7.7%")."""
    mention = claims[position].mention
    before = claims[position - 1].mention.end if position else low
    after = claims[position + 1].mention.start if position + 1 < len(claims) else high
    cue = cue_of(body, mention.start, mention.end, (low, high), before, after)
    return cue.direction or _direction(_WORD.findall(body[low : mention.start].lower()))


# What the words name (`_cues`), as the operations of this search.
_OPERATIONS = {
    CHANGE: ("difference", "percent change", "points"),
    SUM: ("sum",),
    MEAN: ("average",),
    SHARE: ("share",),
    MULTIPLE: ("multiple",),
    POINTS: ("points",),
    CAGR: ("CAGR",),
}
_REACH = 24  # claims looked at on each side for operands
_MAX_RESCUES = 300  # numbers of one report given the search (a wall stops there)
_ROUNDS = 2  # a result stated from another derived one in a later sentence


def _eligible(claim: Claim) -> bool:
    mention = claim.mention
    return not (
        supported(claim)
        or wrong_calculation(claim)
        or claim.operand
        or mention.in_range
        or small_integer(mention)
    )


def _stated_cells(claims: Sequence[Claim], position: int, low: int, high: int) -> int:
    """How many other numbers of the sentence match an evidence cell."""
    return sum(
        1
        for at in _around(position, len(claims))
        if claims[at].hit is not None and low <= claims[at].mention.start < high
    )


def _around(position: int, count: int) -> Iterator[int]:
    """The positions of the claims nearest `position`, either side, nearest first: a
    bounded window, so a wall of numbers costs the same per number as a memo."""
    for step in range(1, _REACH + 1):
        if position - step >= 0:
            yield position - step
        if position + step < count:
            yield position + step


def _rescue(
    body: str,
    claims: Sequence[Claim],
    position: int,
    index: EvidenceIndex,
    sentence_of: Callable[[int, int], tuple[int, int]],
    units: dict[int, float],
) -> bool:
    claim = claims[position]
    mention = claim.mention
    low, high = sentence_of(mention.start, mention.end)
    words = body[low:high]
    operands = pool(position, claims, index, (low, high), words, units)
    direction = _direction_of(body, claims, position, low, high)
    cue = cue_of(body, mention.start, mention.end, (low, high), low, high)
    named = frozenset(operation for kind in cue.kinds for operation in _OPERATIONS.get(kind, ()))
    found = explain(claim, body, operands, periods_named(words), direction, named)
    if found is None:
        return False
    if found.conflict is not None:
        stated, cell = found.conflict
        other = next(
            (
                claims[at]
                for at in _around(position, len(claims))
                if claims[at].index == stated.position
            ),
            None,
        )
        if other is not None and other.hit is not None and cell.entry >= 0:
            # The stated number is another period's cell of the row the result needs.
            other.other_period = index.number(cell.entry)
            other.other_period_proof = f"{mention.text} = {found.formula}"
        else:
            return False
    claim.derivation = Derivation(
        value=Decimal(repr(found.value)),
        formula=found.formula,
        source_ref="calculator",
        label=found.operation,
    )
    claim.miss = None
    claim.rescaled = None
    claim.close = []
    claim.depends = ()
    return True
