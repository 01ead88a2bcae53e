"""The numeric check's result (`NumericResult`), its limits, and what its steps share
while they build it: the output so far, the report's numbers by sentence, the
nearest and the unambiguous evidence hit.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from validation.engine.checks.numeric._context import _NEARBY_STEPS, _sentence
from validation.engine.checks.numeric._matching import Claim, Hit
from validation.engine.types import Finding, FixProposal, NumbersReport, ToolCallRecord

# Label agreement a close-but-wrong number needs before its evidence value is proposed
# as the fix (a number-changing fix on a correct report is the worst outcome).
MIN_FIX_LABEL = 0.5
# Fixes proposed for one report at most. Each needs a FIND unique in the body (searches of
# the whole body), and a reviewer gains nothing from the 101st: the findings stay complete,
# and the rest get their fixes on the next revision.
MAX_FIXES = 100
# The digits and the label agree with an evidence number; only the scale word differs.
SCALE_FIX_CONFIDENCE = 0.9


@dataclass
class NumericResult:
    report: NumbersReport
    findings: list[Finding] = field(default_factory=list)
    fixes: list[FixProposal] = field(default_factory=list)
    tool_calls: list[ToolCallRecord] = field(default_factory=list)
    claim_spans: list[tuple[int, int]] = field(default_factory=list)


@dataclass(slots=True)
class _Output:
    """Findings and fixes as plain dicts until one validation at the end."""

    tool_calls: list[ToolCallRecord]
    finding_dicts: list[dict[str, Any]] = field(default_factory=list)
    fix_dicts: list[dict[str, Any]] = field(default_factory=list)
    claim_spans: list[tuple[int, int]] = field(default_factory=list)

    def fixes_full(self) -> bool:
        return len(self.fix_dicts) >= MAX_FIXES


def _nearest(hits: Sequence[Hit]) -> Hit | None:
    if not hits:
        return None
    return min(hits, key=lambda hit: (round(hit.distance, 12), -hit.label, hit.number.entry))


def _distinct(hits: Sequence[Hit]) -> list[Hit]:
    """One hit per distinct evidence value (the best-labelled one)."""
    by_value: dict[Decimal, Hit] = {}
    for hit in hits:
        key = abs(hit.number.value) / hit.factor
        current = by_value.get(key)
        if current is None or hit.label > current.label:
            by_value[key] = hit
    return list(by_value.values())


def _unambiguous(hits: Sequence[Hit]) -> Hit | None:
    """The one evidence number a close claim should become, or None when another
    candidate is nearly as good (nearest wins; a rival with a clearly better label,
    or a similar label at a similar distance, makes it ambiguous)."""
    candidates = _distinct(hits)
    best = _nearest(candidates)
    if best is None:
        return None
    for other in candidates:
        if other is best:
            continue
        if other.label >= best.label + 0.2:
            return None
        if other.label >= best.label - 0.1 and other.distance <= 2 * best.distance:
            return None
    return best


@dataclass(frozen=True, slots=True)
class _SentenceNumbers:
    """The report's numbers, in order, to ask what else a claim's sentence says."""

    claims: Sequence[Claim]
    starts: Sequence[int]
    newlines: list[int]

    def beside(self, body: str, claim: Claim) -> list[Claim]:
        """The other numbers of the claim's sentence."""
        low, high = _sentence(body, self.newlines, claim.mention.start, claim.mention.end)
        position = bisect_left(self.starts, low)
        found: list[Claim] = []
        for other in self.claims[position : position + _NEARBY_STEPS]:
            if other.mention.start >= high:
                break
            if other is not claim:
                found.append(other)
        return found

    def text(self, body: str, claim: Claim) -> str:
        """The claim's sentence."""
        low, high = _sentence(body, self.newlines, claim.mention.start, claim.mention.end)
        return body[low:high]

    def period_fix_plain(self, body: str, claim: Claim) -> bool:
        """A wrong period's fix to `claim` is the one reading of its sentence: no other
        number of the sentence is unsupported (that one may be the slip the result
        reveals), and none is derived from `claim` as written (the writer used it as
        it is: "1.6 times the $21.93 of 2018")."""
        for other in self.beside(body, claim):
            unsupported = other.hit is None and other.derivation is None and not other.computed
            if unsupported and (other.calculation is None or not other.calculation.correct):
                return False
            if other.derivation is not None and _uses(other.derivation.formula, claim):
                return False
        return True

    def restates(self, body: str, claim: Claim) -> bool:
        """Another number of the claim's sentence is the claim at another scale ("$58,442
        thousand, or roughly $58.4 million"): the claim says it again, and stands or falls
        with it, whatever evidence value lies near."""
        mention = claim.mention
        half = Decimal(1).scaleb(-mention.decimals) * mention.scale / 2
        for other in self.beside(body, claim):
            said = other.mention
            if said.scale != mention.scale and abs(abs(said.value) - abs(mention.value)) <= half:
                return True
        return False

    def writes(self, body: str, claim: Claim, value: Decimal) -> bool:
        """Another number of the claim's sentence is written as `value` ("$10.40 to
        $10.60, with a mid-point of $10.50"): the report tells the two apart."""
        low, high = _sentence(body, self.newlines, claim.mention.start, claim.mention.end)
        position = bisect_left(self.starts, low)
        for other in self.claims[position : position + _NEARBY_STEPS]:
            if other.mention.start >= high:
                break
            if other is not claim and abs(other.mention.written) == value:
                return True
        return False


_FORMULA_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


def _uses(formula: str, claim: Claim) -> bool:
    """The formula takes the claim's value as an operand ("41.8 / 25.9" uses "$25.90")."""
    value = abs(claim.mention.written)
    for found in _FORMULA_NUMBER.finditer(formula):
        if Decimal(found.group().replace(",", "")) == value:
            return True
    return False
