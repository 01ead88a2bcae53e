"""Matching one report number to the evidence.

A report number is read in every way that makes sense in evidence terms (its
*readings*: as written with its scale; unscaled when the scale came from
"(in millions)"; 22.5% as 0.225; at another scale when labels agree) and looked
up in the index: exact or rounded at the precision shown under the most natural
reading that fits, else close (within the tolerance, about the same thing).
Engine-internal: `analyze` (`_check`) is the entry point.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal
from itertools import product
from typing import Literal

from validation.engine.checks.numeric._evidence import EvidenceIndex, EvidenceNumber
from validation.engine.checks.numeric._labels import overlap, wordset
from validation.engine.checks.numeric._operations import Miss
from validation.engine.checks.numeric._prose_rows import row_words
from validation.engine.checks.numeric._readings import (
    _FULL_UNITS,
    _LOOSE_ROUNDING,
    _ONE,
    EPSILON,
    PERCENT_UNITS,
    Probe,
    _units_fit,
    readings_of,
)
from validation.engine.checks.numeric._types import CheckedCalculation, NumberMention

SMALL_INTEGER = 10
CLOSE_CANDIDATES = 5  # evidence numbers examined for a close match, nearest first


@dataclass(slots=True)
class Hit:
    """An evidence number a claim matches (or is close to) under one reading."""

    number: EvidenceNumber
    status: Literal["exact", "rounded", "close"]
    distance: float  # relative
    label: float
    factor: Decimal
    # Read at the scale the figure gives a table that states none (`_writers_scale`): one
    # figure's reading, which teaches the table no scale of its own.
    writers_scale: bool = False


@dataclass(slots=True)
class Derivation:
    """How a claim follows from two numbers ("call_volume 10,899 + put_volume 9,976")."""

    value: Decimal
    formula: str
    source_ref: str
    label: str
    # The evidence cells it takes (its operands' entries): the writer's operands of a
    # result stated from it ("it averaged X ... and grew Y%" takes X's two cells).
    entries: tuple[int, ...] = ()


@dataclass(slots=True)
class Claim:
    """One report number being judged, and what was found for it."""

    index: int  # position in the body's mentions
    mention: NumberMention
    hit: Hit | None = None
    close: list[Hit] = field(default_factory=list)
    derivation: Derivation | None = None
    calculation: CheckedCalculation | None = None
    cited: frozenset[int] = frozenset()  # evidence items cited on the claim's line
    search_ms: float = 0.0
    operand: bool = False  # an operand of a written calculation: a citation, never derived
    in_expression: bool = False  # one of the numbers of a written expression, linked or not
    computed: str = ""  # for an operand the report computed itself: how
    miss: Miss | None = None  # a result its words name, that its operation misses
    rescaled: Hit | None = None  # an evidence number its digits state at another scale
    depends: tuple[str, ...] = ()  # the unsupported numbers it follows from
    # Every number it follows from was supported later (`_misses.settle`): unexplained itself.
    settled: bool = False
    doubted: bool = False  # its evidence match was set aside: judged as a result (`_doubt`)
    # The cell of the same row a result stated from this number needs instead (a wrong
    # period), and how that result follows from it.
    other_period: EvidenceNumber | None = None
    other_period_proof: str = ""
    other_period_chance: float = 1.0  # the chance that result's derivation is a coincidence
    # The closed search's strongest hit, too likely a coincidence to be proof: "formula
    # (chance N%)", said to the reviewer with the flag (`_derive_accept._search`).
    guess: str = ""


def small_integer(mention: NumberMention) -> bool:
    return mention.is_plain_integer() and abs(mention.written) <= SMALL_INTEGER


def wrong_calculation(claim: Claim) -> bool:
    return (
        claim.calculation is not None
        and not claim.calculation.correct
        and claim.calculation.calculation.strict
    )


def calculated(claim: Claim) -> bool:
    return claim.calculation is not None and claim.calculation.correct


def match_claim(
    claim: Claim,
    index: EvidenceIndex,
    tolerance: float,
    *,
    operand: bool = False,
    multiple: bool = False,
) -> None:
    """Find the evidence number a claim stands for. First within the precision
    shown (exact / rounded) under every reading of the claim; only if none fits,
    the nearest label-related numbers within the tolerance (close). An `operand`
    of a written calculation says by its place what it is, so its percentage
    readings ("2.9%" for a plain 2.9 in a column of percentages) need no label. A
    `multiple` ("about 4.5 times the Canadian allocation") is a ratio: never an amount
    restated at another scale (4,534 of the foreign line, read in thousands), nor an
    amount of money or a rate ("roughly 1.3 times" is no "$1.2 million")."""
    mention = claim.mention
    # Everything the search below reads of the claim: the same number, written the same
    # way, with the same label words and citations, finds the same evidence (the next
    # revision of a report is mostly the same numbers).
    memo_key = (
        "claim",
        mention.text,
        mention.unit,
        mention.scale,
        mention.scale_text,
        mention.scale_from_context,
        mention.approx,
        mention.negative,
        mention.tokens,
        claim.cited,
        tolerance,
        operand,
        multiple,
    )
    remembered: tuple[Hit | None, tuple[Hit, ...], Hit | None] | None = index.memo.get(memo_key)
    if remembered is not None:
        claim.hit, claim.close, claim.rescaled = remembered[0], list(remembered[1]), remembered[2]
        return
    _search(claim, index, tolerance, operand, multiple)
    if claim.hit is None and not claim.close and mention.has_explicit_scale:
        claim.rescaled = _at_another_scale(claim, index)
    index.remember(memo_key, (claim.hit, tuple(claim.close), claim.rescaled))


def _search(
    claim: Claim, index: EvidenceIndex, tolerance: float, operand: bool, multiple: bool
) -> None:
    mention = claim.mention
    claimed = float(abs(mention.value))
    best: Hit | None = None
    for probe in readings_of(mention):
        if multiple and probe.shifted:
            continue
        target = probe.target
        half = probe.half
        target_float = probe.target_float
        key = ("fit", target_float, probe.half_float, probe.units, probe.shifted)
        found: list[tuple[EvidenceNumber, Decimal]] | None = index.memo.get(key)
        if found is None:
            found = []
            reach = float(half) + target_float * 1e-12
            for entry in index.nearest(
                target_float, target_float - reach, target_float + reach, 16
            ):
                if probe.shifted and (
                    index.has_scale(entry)
                    or _FULL_UNITS <= index.magnitude(entry) < claimed
                    or _dollars_in_prose(index, entry)
                ):
                    continue  # its scale is known, or it is too large to be in larger units
                if not _units_fit(probe.units, index.unit(entry)):
                    continue
                number = index.number(entry)
                difference = abs(abs(number.value) - target)
                if difference <= half:
                    found.append((number, difference))
            index.remember(key, found)
        if not found:
            continue
        for number, difference in found:
            if multiple and number.unit not in ("", "x"):
                continue  # "roughly 1.3 times" is no "$1.2 million": a ratio has no unit
            if number.mantissa and mention.has_explicit_scale and not probe.shifted:
                # "$3.06 million" for 3,063,117 of a table in thousands: its digits read as
                # dollars against the table's scale word, a figure at the wrong scale.
                continue
            # Labels only decide between several fits, or vouch for another scale.
            needs_label = probe.shifted or (
                probe.units in ("percent", "fraction") and not number.is_percent
            )
            label = (
                _label_score(claim, number.tokens, number.context, number.item)
                if len(found) > 1 or needs_label
                else 0.0
            )
            # Only a reading that needs a label asks who vouches for it (labels and
            # declared scales are looked up lazily, and most fits need neither).
            if needs_label and not (
                (operand and not probe.shifted)
                or _vouched(claim, number, index)
                or _declared(claim.mention, probe, number, index)
            ):
                continue
            if _against_declared(mention, probe, number, index):
                continue  # "$1.17 million" for 1,169 where the document says "in millions"
            if difference and small_integer(mention):
                continue  # "2 risks" is not a rounded 2.35: small counts must be exact
            if difference and probe.shifted and target < 1:
                continue  # "$0.7 million" of a table in millions: its cell's digits, exactly
            if (
                difference > target * _LOOSE_ROUNDING
                and not claim.mention.tokens & number.tokens
                and number.item not in claim.cited
            ):
                # "1%" covers 0.5% to 1.5%: a coarse number far from an evidence number it
                # rounds to must at least be about the same thing.
                continue
            if (
                difference
                and mention.decimals > number.decimals
                and not mention.has_explicit_scale
                and not claim.mention.tokens & number.tokens
                and number.item not in claim.cited
            ):
                # "25.9%" is no restatement of a coarser "26%": written finer than the
                # cell, it is another figure unless its words are about the same thing.
                continue
            status: Literal["exact", "rounded", "close"] = "exact" if not difference else "rounded"
            distance = float(difference / target) if target else 0.0
            hit = Hit(number, status, distance, label, probe.factor)
            if best is None or _better(hit, best):
                best = hit
        if best is not None:
            break  # readings are tried most natural first
    claim.hit = best
    if best is not None or not tolerance:
        return
    limit = Decimal(repr(tolerance))
    for probe in readings_of(mention):
        if not probe.close or not probe.target:
            continue
        target = probe.target
        near_key = ("near", float(target), probe.units, tolerance)
        near: list[tuple[int, frozenset[str], int]] | None = index.memo.get(near_key)
        if near is None:
            target_float = float(target)
            reach = target_float * tolerance * 1.000001
            near = [
                (entry, index.tokens(entry), index.item_of(entry))
                for entry in index.nearest(
                    target_float, target_float - reach, target_float + reach, CLOSE_CANDIDATES
                )
                if _units_fit(probe.units, index.unit(entry))
            ]
            index.remember(near_key, near)
        for entry, tokens, item in near:
            if not claim.mention.tokens & tokens:
                continue  # near a number about something else: chance, not a slip
            if (multiple and index.unit(entry) not in ("", "x")) or (
                mention.has_explicit_scale and index.is_mantissa(entry)
            ):
                continue  # a ratio, or a figure at another scale than its cell's (above)
            label = _label_score(claim, tokens, index.context_tokens(entry), item)
            number = index.number(entry)
            difference = abs(abs(number.value) - target)
            if difference > target * limit:
                continue
            claim.close.append(
                Hit(number, "close", float(difference / target), label, probe.factor)
            )
    coarser = _coarser_evidence(claim, index)
    if coarser is not None:
        claim.hit, claim.close = coarser, []


def _at_another_scale(claim: Claim, index: EvidenceIndex) -> Hit | None:
    """An evidence number the claim's digits state at another scale, about the same
    thing: "$47.5 million" for revenue of 47,525 in a table "in millions" (the digits
    of $47.5 billion), "$88,136 billion" for a net income of 88,136,000,000. The
    hit's `factor` is the scale the claim should carry."""
    mention = claim.mention
    if mention.is_percent or not mention.written:
        return None
    written = abs(mention.written)
    step = _ONE.scaleb(-mention.decimals)
    one_digit = mention.significant_digits < 2
    # A bare cell stands at the scale its document declares, where it declares one (read
    # for the items of the cells found only: a tool's JSON declares for its own digits).
    for scale, divisor in product(_RESCALES, (_ONE, *_RESCALES[:3])):
        if scale == mention.scale:
            continue
        target = written * scale / divisor
        half = step * scale / divisor / 2 * EPSILON
        reach = float(half)
        for entry in index.nearest(float(target), float(target) - reach, float(target) + reach, 4):
            if index.unit(entry) in PERCENT_UNITS:
                continue
            number = index.number(entry)
            if not number.has_scale and index.declared_scale(number.item) not in (None, divisor):
                continue  # 1,169 of a document "in millions" is no $1.17 thousand
            if divisor != _ONE and (
                number.has_scale or index.declared_scale(number.item) != divisor
            ):
                continue
            off = abs(abs(number.full_value) - target)
            if off > half or (off and one_digit):
                # "$3 million" beside "$3.4 billion" shares one digit by chance: a single
                # digit is another scale's figure only where the evidence writes it alone.
                continue
            if claim.mention.tokens & number.tokens or number.item in claim.cited:
                return Hit(number, "close", 0.0, 1.0, scale)
    return None


_RESCALES = (Decimal(10**3), Decimal(10**6), Decimal(10**9), Decimal(10**12))


def _coarser_evidence(claim: Claim, index: EvidenceIndex) -> Hit | None:
    """An evidence number shown with less precision than the claim, that the claim
    rounds to ("$16.434 billion" and a filing's "16.4 billion"; "20.2%" and a table's
    effective tax rate of 20): the claim is consistent with it, not close-but-wrong.
    A coarse evidence number (under three significant digits) must share the label;
    a JSON number is never coarse (its trailing zeros are lost, not absent)."""
    best: Hit | None = None
    for hit in claim.close:
        number = hit.number
        if not number.written or not index.written_in_text(number.entry):
            continue
        scale = abs(number.value / number.written)
        quantum = Decimal(1).scaleb(-number.decimals) * scale
        # Precision in the same units: "$23,087 million" is finer than "$23.1 billion".
        if quantum <= Decimal(1).scaleb(-claim.mention.decimals) * hit.factor:
            continue
        claimed = abs(claim.mention.written) * hit.factor
        if abs(claimed - abs(number.value)) > quantum / 2 * EPSILON:
            continue
        if _significant_digits(number.written) < 3 and hit.label < 0.5:
            continue
        if best is None or hit.label > best.label:
            best = Hit(number, "rounded", hit.distance, hit.label, hit.factor)
    return best


def _significant_digits(value: Decimal) -> int:
    digits = str(abs(value)).replace(".", "").lstrip("0")
    return len(digits)


def _label_score(claim: Claim, tokens: frozenset[str], context: frozenset[str], item: int) -> float:
    """Label agreement in [0, 1]: what the numbers are (shared label words), a
    little for whose they are (a shared ticker or name), and a bonus when the
    claim's line cites the evidence item."""
    mine = claim.mention.tokens
    score = overlap(mine, tokens)
    if context and mine & context:
        score += 0.2
    if item in claim.cited:
        score += 0.5
    return min(1.0, score)


# Keys under which a plain JSON number is a percentage or a fraction.
_PERCENT_WORDS = wordset(
    """percent pct margin grossmargin operatingmargin netmargin yield dividendyield rate
    growth change return ratio roe roa roic cagr share weight allocation probability
    volatility iv payout yoy qoq surprise upside downside discount premium ownership stake
    utilization occupancy churn conversion"""
)


_SCALE_WORD = re.compile(r"\b(?:thousand|million|billion|trillion)s?\b", re.IGNORECASE)
_LINE_REACH = 400  # characters either side of a figure looked at for a table's marks


def _dollars_in_prose(index: EvidenceIndex, entry: int) -> bool:
    """A currency figure of evidence prose ("revenues increased $710,000") in a passage
    that writes a scale word where it means one ("$2.2 million"): its digits are in full
    units. Such a passage never leaves thousands for its reader to infer; a table's cell
    (a line with a pipe or a wide gap) may, under its header's "(in thousands)"."""
    span = index.text_span(entry)
    if span is None or not index.unit(entry):
        return False
    item = index.item_of(entry)
    text = index.items[item].text or ""
    start, end = span
    low = max(text.rfind("\n", max(0, start - _LINE_REACH), start) + 1, start - _LINE_REACH)
    high = text.find("\n", end, end + _LINE_REACH)
    line = text[low : high if high >= 0 else end + _LINE_REACH]
    if "|" in line or "  " in line or "\t" in line:
        return False
    key = ("scale-words", item)
    writes: bool | None = index.memo.get(key)
    if writes is None:
        writes = _SCALE_WORD.search(text) is not None
        index.remember(key, writes)
    return writes


def _vouched(claim: Claim, number: EvidenceNumber, index: EvidenceIndex) -> bool:
    """A match that reads the claim differently (another scale, a percentage as
    a plain number) needs more than a coincidence of digits: shared label words (a
    prose row's cell has its row's words), a percentage-like key, or a citation of
    the item."""
    if claim.mention.tokens & number.tokens or number.item in claim.cited:
        return True
    if claim.mention.tokens & row_words(index, number.entry):
        return True
    return claim.mention.is_percent and bool(number.tokens & _PERCENT_WORDS)


def _declared(
    mention: NumberMention, probe: Probe, number: EvidenceNumber, index: EvidenceIndex
) -> bool:
    """A bare evidence number read at the scale its document declares ("(in
    millions)") vouches for a report number written with that scale."""
    if not probe.shifted or number.has_scale or mention.is_percent:
        return False
    declared = index.declared_scale(number.item)
    if declared is None:
        return False
    full = abs(mention.written) * mention.scale
    step = Decimal(1).scaleb(-mention.decimals) * mention.scale
    return abs(abs(number.value) * declared - full) <= step / 2 * EPSILON


def _against_declared(
    mention: NumberMention, probe: Probe, number: EvidenceNumber, index: EvidenceIndex
) -> bool:
    """A bare evidence number read at another scale than the one its document declares:
    the table states none, but the paragraph that introduces it does ("in millions")."""
    if not probe.shifted or number.has_scale:
        return False
    declared = index.declared_scale(number.item)
    if declared is None or not probe.target:
        return False
    implied = abs(mention.written) * mention.scale / probe.target  # the cell's scale, so read
    return abs(implied / declared - 1) > Decimal("0.01")


def _better(hit: Hit, other: Hit) -> bool:
    rank = {"exact": 0, "rounded": 1}
    return (rank[hit.status], -hit.label, hit.distance) < (
        rank[other.status],
        -other.label,
        other.distance,
    )
