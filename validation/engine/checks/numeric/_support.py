"""Support that flows from the evidence only: results stated in words, as a fixpoint.

A number of the report is *supported* when it matches the evidence, or when an
operation over supported numbers gives it at its precision. Support is computed
as a fixpoint from the evidence: the numbers the evidence vouches for first, then
every number an operation over them gives, round after round, until nothing
changes. An unsupported number never vouches for another ("up 418 million, at
1,377 million compared with 959 million": if 1,377 is in no evidence, neither it
nor the 418 is supported by the other).

The operation a number is the result of comes from its words
(:mod:`validation.engine.checks.numeric._cues`) and from what it is; the search for it
(:mod:`validation.engine.checks.numeric._search`) takes its operands from anywhere in the
report - the nearest supported numbers, before or after it, in other paragraphs
and bullets - and from the evidence numbers beside them (the prior year in the
same table row: "decreased by $214 million to $2,486 million" is 2,700 - 2,486).
The pool is bounded: at most `REPORT_POOL` report numbers, found within `_SCAN`
numbers of the claim, and `EVIDENCE_POOL` evidence numbers.

What is still unsupported afterwards is judged by :mod:`validation.engine.checks.numeric._misses`.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace

from validation.engine.checks.numeric import _operations as ops
from validation.engine.checks.numeric import _search as search
from validation.engine.checks.numeric._cues import GAP, Cue, cue_of, mark_of, year_of
from validation.engine.checks.numeric._evidence import EvidenceIndex
from validation.engine.checks.numeric._lexicon import written_as_multiple
from validation.engine.checks.numeric._matching import Claim, small_integer
from validation.engine.checks.numeric._operations import Operand

REPORT_POOL = search.MAX_RUN  # supported report numbers offered to one result, nearest first
EVIDENCE_POOL = 6  # evidence numbers beside them, or sharing the result's label
MAX_ROUNDS = 6  # fixpoint rounds (a chain of results stated one from another)
_SCAN = 64  # report numbers looked at to fill a pool (a wall of unsupported ones ends it)
_GAP_OPERANDS = frozenset(("price", "intrinsicvalue", "target"))
_UNSUPPORTED = 3  # unsupported numbers nearby a result may follow from
_UNSUPPORTED_SCAN = 7  # numbers looked at on each side for them, nearest first
_UNSUPPORTED_REACH = 600  # characters
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
    sections: list[int] = field(default_factory=list)  # a heading or a question opens one
    # Read from the words alone: another grounding of the same claims may share them.
    cues: dict[int, Cue] = field(default_factory=dict)
    supported: list[bool] = field(default_factory=list)
    full: dict[int, float] = field(default_factory=dict)
    sources: dict[int, frozenset[int]] = field(default_factory=dict)  # of derived numbers
    pending: list[int] = field(default_factory=list)  # eligible and still unsupported
    # Made once per report (operands) or per round (pools: support changes between).
    _operands: dict[int, Operand] = field(default_factory=dict)
    _evidence_operands: dict[tuple[int, bool], Operand | None] = field(default_factory=dict)
    _pools: dict[int, list[Operand]] = field(default_factory=dict)
    _reaches: dict[int, tuple[int, int]] = field(default_factory=dict)
    _supported_positions: list[int] | None = None

    def pool(self, position: int) -> list[Operand]:
        """The supported report numbers nearest the claim (either side, any
        paragraph), then evidence numbers beside their matches or sharing the
        claim's label (a valuation gap's: the prices, values and targets)."""
        pool = self._pools.get(position)
        if pool is not None:
            return pool
        claims = self.claims
        claim = claims[position]
        value = abs(claim.mention.written)
        # Multiples are operands of multiples only ("from 12.1x to 14.3x, 2.2 turns").
        plain = not written_as_multiple(self.body, claim.mention)
        pool = []
        entries: list[int] = []
        section = self.sections[position]
        for other_position in self._supported_near(position):
            if len(pool) >= REPORT_POOL:
                break
            if self.sections[other_position] != section:
                continue  # the answer to another question
            other = claims[other_position]
            if other.mention.in_range or (
                abs(other.mention.written) == value and other.hit is None
            ):
                continue  # a bound is not a quantity; a number never supports itself
            if plain and written_as_multiple(self.body, other.mention):
                continue  # "2.7 times" is a ratio, no part of a share, change or sum
            pool.append(self.operand(other_position))
            if other.hit is not None:
                entries.append(other.hit.number.entry)
        pool += self._evidence(claim, entries, GAP in self.cue(position).kinds)
        self._pools[position] = pool
        return pool

    def _supported_near(self, position: int) -> Iterator[int]:
        """Supported claims within `_SCAN` claims of `position`, nearest first (by the
        sorted supported positions: a wall of unsupported numbers costs nothing)."""
        ordered = self._supported_positions
        if ordered is None:
            ordered = self._supported_positions = [
                at for at, supported in enumerate(self.supported) if supported
            ]
        starts = self.starts
        start = starts[position]
        right = bisect_left(ordered, position)
        left = right - 1
        if right < len(ordered) and ordered[right] == position:
            right += 1
        while left >= 0 or right < len(ordered):
            take_left = left >= 0 and (
                right >= len(ordered)
                or start - starts[ordered[left]] <= starts[ordered[right]] - start
            )
            other = ordered[left] if take_left else ordered[right]
            if abs(other - position) > _SCAN:
                if take_left:
                    left = -1
                else:
                    right = len(ordered)
                continue
            yield other
            if take_left:
                left -= 1
            else:
                right += 1

    def operand(self, position: int) -> Operand:
        """The report number at `position` as an operand (supported or not)."""
        operand = self._operands.get(position)
        if operand is None:
            operand = search.operand_of(
                self.claims[position],
                position,
                self.index,
                self.full.get(position),
                paragraph=self.paragraphs[position],
                year=self._year(position),
                mark=mark_of(
                    self.body, self.claims[position].mention.start, self._previous_end(position)
                ),
                sources=self.sources.get(position, frozenset()),
            )
            self._operands[position] = operand
        return operand

    def unsupported_near(self, position: int) -> list[Operand]:
        """Up to `_UNSUPPORTED` unsupported report numbers nearest the claim, within
        `_UNSUPPORTED_REACH` characters, those of its own sentence first ("increased by
        2.3%, from $27,954 million in 2021 to $28,604 million in 2022"): what a result
        may follow from."""
        claims, starts, supported = self.claims, self.starts, self.supported
        mention = claims[position].mention
        low, high = self.sentence(mention.start, mention.end)
        start = starts[position]
        near: list[tuple[bool, int, int]] = []
        for other in range(
            max(0, position - _UNSUPPORTED_SCAN), min(len(claims), position + _UNSUPPORTED_SCAN + 1)
        ):
            distance = abs(starts[other] - start)
            if other == position or supported[other] or distance > _UNSUPPORTED_REACH:
                continue
            found = claims[other].mention
            if not found.in_range and not small_integer(found):
                near.append((not low <= found.start < high, distance, other))
        near.sort()
        return [self.operand(other) for _, _, other in near[:_UNSUPPORTED]]

    def cue(self, position: int) -> Cue:
        """What the claim's words say it is; a number stated as an alternative of the
        one before it ("an increase of 190, or 22.57 percent") is the same kind."""
        cue = self.cues.get(position)
        if cue is None:
            claims, body = self.claims, self.body
            mention = claims[position].mention
            low, high = self.sentence(mention.start, mention.end)
            cue = cue_of(
                body,
                mention.start,
                mention.end,
                (low, max(high, mention.end)),
                self._previous_end(position),
                self._next_start(position),
            )
            if cue.alternate and not cue.kinds and position:
                before = self.cue(position - 1)
                cue = replace(
                    cue, kinds=before.kinds, years=before.years, direction=before.direction
                )
            self.cues[position] = cue
        return cue

    def _year(self, position: int) -> int:
        cue = self.cues.get(position)
        if cue is not None:
            return cue.year  # read by its cue over the same bounds
        mention = self.claims[position].mention
        low, _ = self.sentence(mention.start, mention.end)
        return year_of(
            self.body,
            mention.start,
            mention.end,
            max(low, self._previous_end(position)),
            self._next_start(position),
        )

    def _previous_end(self, position: int) -> int:
        return self.claims[position - 1].mention.end if position else 0

    def _next_start(self, position: int) -> int:
        claims = self.claims
        return claims[position + 1].mention.start if position + 1 < len(claims) else len(self.body)

    def reset(self) -> None:
        """Forget the pools and operands made so far (support changed)."""
        self._operands.clear()
        self._pools.clear()
        self._supported_positions = None

    def supports(self, positions: Sequence[int]) -> None:
        """`positions` are supported from now on (derived: their operands change)."""
        for position in positions:
            self.supported[position] = True
            self._operands.pop(position, None)
        self._pools.clear()
        self._supported_positions = None

    def reach(self, position: int) -> tuple[int, int]:
        """The first and last of the `_SCAN` claims nearest `position` (nearer by start; of
        two as near, the one before it): they are consecutive, so a bisection finds them.
        A claim is searched again only when a number in its reach became supported."""
        found = self._reaches.get(position)
        if found is not None:
            return found
        starts = self.starts
        start = starts[position]
        wanted = min(_SCAN, len(starts) - 1)
        after = len(starts) - 1 - position  # claims on the right
        # The k-th claim on the left is taken when k plus the claims on the right
        # strictly nearer than it are at most `wanted`; the largest such k is the count.
        low, high = max(0, wanted - after), min(position, wanted)
        while low < high:
            k = (low + high + 1) // 2
            distance = start - starts[position - k]
            nearer = bisect_left(starts, start + distance, position + 1) - position - 1
            if k + nearer <= wanted:
                low = k
            else:
                high = k - 1
        found = self._reaches[position] = (position - low, position + wanted - low)
        return found

    def _evidence(self, claim: Claim, entries: list[int], gap: bool) -> list[Operand]:
        index = self.index
        seen = {-1 - entry for entry in entries}
        if claim.hit is not None:
            seen.add(-1 - claim.hit.number.entry)
        extra: list[Operand] = []
        made = self._evidence_operands

        def add(entry: int, cited: bool = False) -> None:
            if len(extra) < EVIDENCE_POOL and -1 - entry not in seen:
                seen.add(-1 - entry)
                key = (entry, cited)
                if key not in made:
                    made[key] = search.evidence_operand(index, entry, cited)
                operand = made[key]
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


def laid_out(
    body: str,
    claims: Sequence[Claim],
    index: EvidenceIndex,
    sentence: Sentence,
    cues: dict[int, Cue] | None = None,
) -> Grounding:
    """A grounding of the claims with where each stands: its paragraph and section;
    `cues`, those an earlier grounding of the same claims read (shared, not read again)."""
    grounding = Grounding(body, claims, index, sentence)
    if cues is not None:
        grounding.cues = cues
    starts = grounding.starts = [claim.mention.start for claim in claims]
    breaks = [match.start() for match in _BLANK_LINE.finditer(body)]
    grounding.paragraphs = [bisect_right(breaks, start) for start in starts]
    opened = _section_starts(body, breaks)
    grounding.sections = [bisect_right(opened, paragraph) for paragraph in grounding.paragraphs]
    return grounding


def ground(
    body: str,
    claims: Sequence[Claim],
    index: EvidenceIndex,
    sentence: Sentence,
    eligible: Callable[[Claim], bool],
    supported_at_start: Callable[[Claim], bool],
    doubt: Callable[[Grounding], Sequence[int]] | None = None,
) -> Grounding:
    """Derive, as a fixpoint from the evidence, every `eligible` claim an operation
    over supported numbers gives (``claim.derivation``). `doubt` names the claims
    whose evidence match is set aside before (they are results, judged as such)."""
    grounding = laid_out(body, claims, index, sentence)
    supported = grounding.supported = [supported_at_start(claim) for claim in claims]
    if doubt is not None:
        doubted = doubt(grounding)
        for position in doubted:
            supported[position] = False
        if doubted:
            grounding.reset()
    pending = [
        position
        for position, claim in enumerate(claims)
        if not supported[position] and eligible(claim)
    ]
    searched = pending
    for _ in range(MAX_ROUNDS):
        found: list[int] = []
        for position in searched:
            claim = claims[position]
            outcome = search.search(
                claim.mention,
                grounding.cue(position),
                grounding.pool(position),
                grounding.paragraphs[position],
                sentence=sentence(claim.mention.start, claim.mention.end),
            )
            if outcome is not None:
                claim.derivation = search.derivation(outcome, index)
                if not outcome.written and outcome.op in _AMOUNTS:
                    grounding.full[position] = outcome.value  # at its operands' scale
                if outcome.op in _ADDITIVE:
                    grounding.sources[position] = frozenset(
                        key
                        for operand in outcome.operands
                        for key in (operand.key, *operand.sources)
                    )
                found.append(position)
        if not found:
            break
        grounding.supports(found)
        pending = [position for position in pending if not supported[position]]
        # Only a claim with a newly supported number within reach can find more.
        newly = sorted(found)
        searched = [
            position for position in pending if _any_within(newly, *grounding.reach(position))
        ]
    grounding.pending = pending
    return grounding


def _any_within(ordered: Sequence[int], first: int, last: int) -> bool:
    """Whether sorted `ordered` holds a value from `first` to `last`."""
    at = bisect_left(ordered, first)
    return at < len(ordered) and ordered[at] <= last


_AMOUNTS = ops.SAME_UNITS | {ops.PRODUCT}
_ADDITIVE = frozenset((ops.DIFF, ops.SUM))  # what a sum or difference undoes


def _section_starts(body: str, breaks: Sequence[int]) -> list[int]:
    """The paragraphs that open a section: a heading ("### Change in revenue"), a bold
    line, or a question ("**2. What was the change in ...?**"). A report answering
    several questions answers each in its own section, from its own numbers."""
    starts: list[int] = []
    bounds = [0, *breaks, len(body)]
    for paragraph in range(len(bounds) - 1):
        text = body[bounds[paragraph] : bounds[paragraph + 1]].strip()
        if not text:
            continue
        first_line = text.split("\n", 1)[0].strip()
        if (
            first_line.startswith("#")
            or (first_line.startswith("**") and first_line.endswith("**"))
            or first_line.endswith(("?", "?**", "?*"))
        ):
            starts.append(paragraph)
    return starts
