"""Support that flows from the evidence only: results stated in words, as a fixpoint.

A number of the report is *supported* when it matches the evidence, or when an
operation over supported numbers gives it at its precision. Support is computed
as a fixpoint from the evidence: the numbers the evidence vouches for first, then
every number an operation over them gives, round after round, until nothing
changes. An unsupported number never vouches for another ("up 418 million, at
1,377 million compared with 959 million": if 1,377 is in no evidence, neither it
nor the 418 is supported by the other).

The operation a number is the result of comes from its words
(:mod:`validation.engine.numbers.cues`) and from what it is; the search for it
(:mod:`validation.engine.numbers.search`) takes its operands from anywhere in the
report - the nearest supported numbers, before or after it, in other paragraphs
and bullets - and from the evidence numbers beside them (the prior year in the
same table row: "decreased by $214 million to $2,486 million" is 2,700 - 2,486).
The pool is bounded: at most `REPORT_POOL` report numbers, found within `_SCAN`
numbers of the claim, and `EVIDENCE_POOL` evidence numbers.

What is still unsupported afterwards is judged by :mod:`validation.engine.numbers.misses`.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from validation.engine.numbers import operations as ops
from validation.engine.numbers import search
from validation.engine.numbers.cues import GAP, Cue, cue_of
from validation.engine.numbers.evidence import EvidenceIndex
from validation.engine.numbers.matching import Claim
from validation.engine.numbers.operations import Operand

REPORT_POOL = search.MAX_RUN  # supported report numbers offered to one result, nearest first
EVIDENCE_POOL = 6  # evidence numbers beside them, or sharing the result's label
MAX_ROUNDS = 6  # fixpoint rounds (a chain of results stated one from another)
_SCAN = 64  # report numbers looked at to fill a pool (a wall of unsupported ones ends it)
_GAP_OPERANDS = frozenset(("price", "intrinsicvalue", "target"))
_BLANK_LINE = re.compile(r"\n[ \t]*\n")

Sentence = Callable[[int, int], tuple[int, int]]


@dataclass
class Grounding:
    """The report's claims and what the fixpoint found: which are supported, the
    cue of each, its paragraph, and derived amounts in full units."""

    body: str
    claims: Sequence[Claim]
    index: EvidenceIndex
    sentence: Sentence
    starts: list[int] = field(default_factory=list)
    paragraphs: list[int] = field(default_factory=list)
    cues: list[Cue] = field(default_factory=list)
    supported: list[bool] = field(default_factory=list)
    full: dict[int, float] = field(default_factory=dict)
    pending: list[int] = field(default_factory=list)  # eligible and still unsupported

    def pool(self, position: int) -> list[Operand]:
        """The supported report numbers nearest the claim (either side, any
        paragraph), then evidence numbers beside their matches or sharing the
        claim's label (a valuation gap's: the prices, values and targets)."""
        claims, supported = self.claims, self.supported
        claim = claims[position]
        value = abs(claim.mention.written)
        pool: list[Operand] = []
        entries: list[int] = []
        for other_position in self._nearest(position):
            if len(pool) >= REPORT_POOL:
                break
            if not supported[other_position]:
                continue
            other = claims[other_position]
            if other.mention.in_range or (
                abs(other.mention.written) == value and other.hit is None
            ):
                continue  # a bound is not a quantity; a number never supports itself
            operand = search.operand_of(
                other, other_position, self.index, self.full.get(other_position)
            )
            pool.append(
                replace(
                    operand,
                    paragraph=self.paragraphs[other_position],
                    year=self.cues[other_position].year,
                )
            )
            if other.hit is not None:
                entries.append(other.hit.number.entry)
        return pool + self._evidence(claim, entries, GAP in self.cues[position].kinds)

    def _nearest(self, position: int) -> list[int]:
        """Up to `_SCAN` claims around `position`, nearest first."""
        starts = self.starts
        start = starts[position]
        left, right = position - 1, position + 1
        order: list[int] = []
        while len(order) < _SCAN and (left >= 0 or right < len(starts)):
            if left >= 0 and (
                right >= len(starts) or start - starts[left] <= starts[right] - start
            ):
                order.append(left)
                left -= 1
            else:
                order.append(right)
                right += 1
        return order

    def _evidence(self, claim: Claim, entries: list[int], gap: bool) -> list[Operand]:
        index = self.index
        seen = {-1 - entry for entry in entries}
        if claim.hit is not None:
            seen.add(-1 - claim.hit.number.entry)
        extra: list[Operand] = []

        def add(entry: int, cited: bool = False) -> None:
            if len(extra) < EVIDENCE_POOL and -1 - entry not in seen:
                seen.add(-1 - entry)
                operand = search.evidence_operand(index, entry, cited)
                if operand is not None:
                    extra.append(operand)

        if gap:
            # A gap's operands are the prices, values and targets, wherever they are.
            for entry in index.related(_GAP_OPERANDS, 4):
                add(entry, cited=True)
        for entry in entries[:3]:
            for neighbour in index.neighbours(entry, 2):
                add(neighbour)
        if claim.mention.tokens and len(extra) < EVIDENCE_POOL:
            for entry in index.related(claim.mention.tokens, EVIDENCE_POOL):
                add(entry)
        return extra


def ground(
    body: str,
    claims: Sequence[Claim],
    index: EvidenceIndex,
    sentence: Sentence,
    eligible: Callable[[Claim], bool],
    supported_at_start: Callable[[Claim], bool],
) -> Grounding:
    """Derive, as a fixpoint from the evidence, every `eligible` claim an operation
    over supported numbers gives (``claim.derivation``)."""
    grounding = Grounding(body, claims, index, sentence)
    starts = grounding.starts = [claim.mention.start for claim in claims]
    breaks = [match.start() for match in _BLANK_LINE.finditer(body)]
    grounding.paragraphs = [bisect_right(breaks, start) for start in starts]
    grounding.cues = _cues(body, claims, sentence)
    supported = grounding.supported = [supported_at_start(claim) for claim in claims]
    pending = [
        position
        for position, claim in enumerate(claims)
        if not supported[position] and eligible(claim)
    ]
    for _ in range(MAX_ROUNDS):
        found: list[int] = []
        for position in pending:
            claim = claims[position]
            outcome = search.search(
                claim.mention,
                grounding.cues[position],
                grounding.pool(position),
                grounding.paragraphs[position],
            )
            if outcome is not None:
                claim.derivation = search.derivation(outcome, index)
                if not outcome.written and outcome.op in _AMOUNTS:
                    grounding.full[position] = outcome.value  # at its operands' scale
                found.append(position)
        if not found:
            break
        for position in found:
            supported[position] = True
        pending = [position for position in pending if not supported[position]]
    grounding.pending = pending
    return grounding


_AMOUNTS = ops.SAME_UNITS | {ops.PRODUCT}


def _cues(body: str, claims: Sequence[Claim], sentence: Sentence) -> list[Cue]:
    """Each claim's cue; a number stated as an alternative of the one before it
    ("an increase of 190, or 22.57 percent") is the same kind of result."""
    cues: list[Cue] = []
    for position, claim in enumerate(claims):
        mention = claim.mention
        low, high = sentence(mention.start, mention.end)
        following = claims[position + 1].mention.start if position + 1 < len(claims) else len(body)
        previous = claims[position - 1].mention.end if position else 0
        cue = cue_of(
            body, mention.start, mention.end, (low, max(high, mention.end)), previous, following
        )
        if cue.alternate and not cue.kinds and cues:
            cue = replace(cue, kinds=cues[-1].kinds, years=cues[-1].years)
        cues.append(cue)
    return cues
