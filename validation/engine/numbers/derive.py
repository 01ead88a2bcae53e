"""The derived search: is a claim a sum, difference, product, ratio, share or
percent change of two numbers the report relies on?

Bounded: it pairs at most POOL numbers - the evidence numbers the claim's
paragraph cites, a few unsupported numbers of the claim's own sentence, the
JSON numbers whose labels share words with the claim's, for a valuation gap
("margin of safety", "discount", "premium", "upside", "downside") the prices,
values and targets of the evidence, and the neighbours of the cited numbers -
and two evidence-only numbers must come from the same
evidence item (no cross-source aggregation). Numbers with fewer than 3
significant digits are only derived from numbers the report itself cites.
Engine-internal: `numeric.analyze` is the entry point.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from validation.engine.numbers.evidence import EvidenceIndex, EvidenceNumber
from validation.engine.numbers.extract import NumberMention
from validation.engine.numbers.matching import PERCENT_UNITS, Claim, Derivation

POOL = 10  # numbers paired in the derived search
# Words of a percent gap between a price and a value ("margin of safety", "25% upside"),
# and the labels of the numbers such a gap is computed from.
_VALUATION_GAP = frozenset(("safety", "upside", "downside", "discount", "premium"))
_GAP_OPERANDS = frozenset(("price", "intrinsicvalue", "target"))


@dataclass(slots=True)
class _Operand:
    entry: int  # the evidence entry, or -1 for a number of the report itself
    value: float
    written: float  # the value before its scale ("15,500 million" -> 15500)
    percent: bool
    item: int
    cited: bool  # the report itself cites this number nearby
    mention: NumberMention | None = None  # for a number of the report


def derive(
    claim: Claim,
    cited: Sequence[EvidenceNumber],
    unsupported: Sequence[NumberMention],
    index: EvidenceIndex,
) -> Derivation | None:
    """A sum, difference, product, ratio, share or percent change of two evidence
    numbers that equals the claim at the precision shown (bounded search)."""
    mention = claim.mention
    coarse = mention.significant_digits < 3
    percent_target = mention.is_percent
    ratio_ok = mention.unit in ("x", "")
    step = float(Decimal(1).scaleb(-mention.decimals))
    slack = 2.0 if mention.approx else 1.0
    # (target, half a step, compare with the operands as written rather than scaled)
    targets: list[tuple[float, float, bool]] = []
    if percent_target:
        targets.append((float(abs(mention.written)), step / 2 * slack, False))
    else:
        targets.append((float(abs(mention.value)), step * float(mention.scale) / 2 * slack, False))
        if mention.scale == 1 or mention.scale_from_context:
            # "12,345" beside JSON in millions: add the numbers as written.
            targets.append((float(abs(mention.written)), step / 2 * slack, True))
    own = claim.hit.number.entry if claim.hit is not None else -1
    # The pool is a function of these inputs, so they key the remembered answer.
    key = (
        "derive",
        tuple(targets),
        percent_target,
        ratio_ok,
        coarse,
        own,
        tuple(number.entry for number in cited[: POOL // 2]),
        tuple(other.written for other in unsupported),
        mention.tokens,
    )
    if key in index.memo:
        remembered: Derivation | None = index.memo[key]
        return remembered
    pool = _pool(claim, cited, unsupported, index)
    derivation = None
    if len(pool) >= 2:
        derivation = _search_pairs(pool, targets, percent_target, ratio_ok, coarse, index)
    index.remember(key, derivation)
    return derivation


def _search_pairs(
    pool: Sequence[_Operand],
    targets: Sequence[tuple[float, float, bool]],
    percent_target: bool,
    ratio_ok: bool,
    coarse: bool,
    index: EvidenceIndex,
) -> Derivation | None:
    count = len(pool)
    percents = [operand.percent for operand in pool]
    items = [operand.item for operand in pool]
    cites = [operand.cited for operand in pool]
    for target, half, as_written in targets:
        values = [operand.written if as_written else operand.value for operand in pool]
        half = half * 1.000001 + target * 1e-12
        low, high = target - half, target + half
        for i in range(count):
            a, a_percent, a_item, a_cited = values[i], percents[i], items[i], cites[i]
            for j in range(i + 1, count):
                if not (a_cited or cites[j]) and (coarse or a_item != items[j]):
                    continue
                b, b_percent = values[j], percents[j]
                found: tuple[str, float] | None
                if not (percent_target or a_percent or b_percent):
                    # The common case, inline: sum, difference, product, ratio.
                    if low <= a + b <= high:
                        found = ("a+b", a + b)
                    elif low <= a - b <= high or low <= b - a <= high:
                        found = ("a-b", abs(a - b))
                    elif low <= a * b <= high:
                        found = ("a*b", a * b)
                    elif ratio_ok and b and low <= a / b <= high:
                        found = ("a/b", a / b)
                    elif ratio_ok and a and low <= b / a <= high:
                        found = ("b/a", b / a)
                    else:
                        continue
                else:
                    found = _pair(a, b, a_percent, b_percent, target, half, percent_target)
                if found is not None:
                    return _derivation(found, pool[i], pool[j], index)
    return None


def _pair(
    a: float,
    b: float,
    a_percent: bool,
    b_percent: bool,
    target: float,
    half: float,
    percent_target: bool,
) -> tuple[str, float] | None:
    """The operation on (a, b) that yields `target` within `half`, when a
    percentage is involved (the all-plain case is inlined in _derive)."""
    if percent_target:
        if not a_percent and not b_percent:
            if b:
                if abs(a / b * 100 - target) <= half:
                    return "a/b%", a / b * 100
                if abs(abs(a - b) / b * 100 - target) <= half:
                    return "(a-b)/b%", abs(a - b) / b * 100
            if a:
                if abs(b / a * 100 - target) <= half:
                    return "b/a%", b / a * 100
                if abs(abs(b - a) / a * 100 - target) <= half:
                    return "(b-a)/a%", abs(b - a) / a * 100
        elif a_percent and b_percent:
            if abs(abs(a - b) - target) <= half:
                return "a-b", abs(a - b)
            if abs(a + b - target) <= half:
                return "a+b", a + b
        return None
    if a_percent != b_percent and abs(a * b / 100 - target) <= half:
        return "a*b%", a * b / 100
    return None


_FORMULAS = {
    "a/b%": "{a} / {b} * 100",
    "(a-b)/b%": "({a} - {b}) / {b} * 100",
    "b/a%": "{b} / {a} * 100",
    "(b-a)/a%": "({b} - {a}) / {a} * 100",
    "a+b": "{a} + {b}",
    "a*b": "{a} * {b}",
    "a*b%": "{a} * {b} / 100",
    "a/b": "{a} / {b}",
    "b/a": "{b} / {a}",
}


def _derivation(
    found: tuple[str, float], left: _Operand, right: _Operand, index: EvidenceIndex
) -> Derivation:
    operation, value = found
    first, second = _operand_text(left, index), _operand_text(right, index)
    if operation == "a-b":
        template = "{a} - {b}" if left.value >= right.value else "{b} - {a}"
    else:
        template = _FORMULAS[operation]
    formula = template.format(a=first, b=second)
    refs = sorted({_source_of(left, index), _source_of(right, index)})
    return Derivation(
        value=Decimal(repr(value)), formula=formula, source_ref=" + ".join(refs), label=formula
    )


def _source_of(operand: _Operand, index: EvidenceIndex) -> str:
    return "report" if operand.entry < 0 else index.number(operand.entry).source_ref


def _operand_text(operand: _Operand, index: EvidenceIndex) -> str:
    """How a formula names a number: "call_volume 10899", or "report 95"."""
    if operand.mention is not None:
        return f"report {_plain(abs(operand.mention.written))}"
    number = index.number(operand.entry)
    name = number.label.rsplit(".", 1)[-1] if number.label else ""
    if len(name) > 40 or not name:
        return number.raw
    return f"{name} {number.raw}"


def _plain(value: Decimal) -> str:
    text = format(value, "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def _pool(
    claim: Claim,
    cited: Sequence[EvidenceNumber],
    unsupported: Sequence[NumberMention],
    index: EvidenceIndex,
) -> list[_Operand]:
    """At most POOL numbers to pair: the evidence numbers the claim's paragraph
    cites, a few numbers of the report nearby that no evidence supports (so a
    percentage computed from the report's own estimate is derived from it, and
    only the estimate is a finding), the JSON numbers whose labels share words
    with the claim's, and the neighbours of the cited numbers in their item."""
    pool: list[_Operand] = []
    seen: set[int] = set()
    own = claim.hit.number.entry if claim.hit is not None else -1
    seen.add(own)

    def add(entry: int, is_cited: bool) -> None:
        if entry in seen or len(pool) >= POOL:
            return
        seen.add(entry)
        magnitude, written, unit, item, mantissa = index.operand(entry)
        if not mantissa:
            pool.append(_Operand(entry, magnitude, written, unit in PERCENT_UNITS, item, is_cited))

    for number in cited[: POOL // 2]:
        add(number.entry, True)
    for mention in unsupported:
        value = float(abs(mention.value))
        pool.append(
            _Operand(-1, value, float(abs(mention.written)), mention.is_percent, -1, True, mention)
        )
    tokens = claim.mention.tokens
    if not _VALUATION_GAP.isdisjoint(tokens) and "rate" not in tokens:
        # A margin of safety, discount, premium, upside or downside is a percent gap
        # between a price and a value or target, wherever the report cites them.
        for entry in index.related(_GAP_OPERANDS, 4):
            add(entry, True)
    for entry in index.related(tokens, 6):
        add(entry, False)
    for number in cited[:3]:
        if len(pool) >= POOL:
            break
        for neighbour in index.neighbours(number.entry, 2):
            add(neighbour, False)
    return pool
