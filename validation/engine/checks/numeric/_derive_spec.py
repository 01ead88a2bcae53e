"""A share or a multiple the claim's words specify (:mod:`._derive`), judged among its own
kind of candidates only.

"Interest cost came to about 3.8% of the opening obligation in 2019" says what was
divided by what, and when: two line items the sentence names, of the one period it
names, in a share. Such a derivation is no pair picked from a crowd: its chance of a
coincidence is counted over the candidates of that specification alone (the same
operation over two cells of rows the sentence names or states, of the period it names),
not over every pair of the pool's weaker tiers. Where the sentence names no period, the
two cells must lie in one column of one table (one period's line items).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from validation.engine.checks.numeric._cues import MULTIPLE, SHARE, Cue
from validation.engine.checks.numeric._derive_candidates import Candidate
from validation.engine.checks.numeric._derive_pool import NAMED, NEAR, Operand
from validation.engine.checks.numeric._matching import Claim
from validation.engine.checks.numeric._types import NumberMention


@dataclass(frozen=True, slots=True)
class Spec:
    """What the words fix: the operation, the period (0 when they name none), and how
    plainly the sentence names the operands' rows (`Operand.strength`, at least)."""

    operation: str
    year: int
    strength: int = NAMED


def specs_of(cue: Cue, years: frozenset[int]) -> tuple[Spec, ...]:
    """The specifications a claim's words give: "X% of", "accounts for", "a share" make a
    percentage a share; "times" makes a multiple one. The period is the claim's own year
    ("... in 2018"), else the one year its sentence names. Rows its own clause names or
    states first (`NEAR`), then any the sentence names."""
    operations = [SHARE] if SHARE in cue.kinds or cue.of_after else []
    operations += [MULTIPLE] if MULTIPLE in cue.kinds else []
    year = cue.year or (next(iter(years)) if len(years) == 1 else 0)
    return tuple(
        Spec(_OPERATION[kind], year, strength) for strength in (NEAR, NAMED) for kind in operations
    )


_OPERATION = {SHARE: "share", MULTIPLE: "multiple"}  # the candidates' names of the two


def share_named(cue: Cue, mention: NumberMention) -> frozenset[str]:
    """A percentage followed by "of" ("about 68.6% of the benchmark rate") is a share by its
    words: close to an evidence cell, it is still searched as one."""
    return frozenset(("share",)) if cue.of_after and mention.is_percent else frozenset()


def specified(found: Iterator[Candidate], spec: Spec) -> Iterator[Candidate]:
    """The candidates that meet the specification: its operation, over two cells of rows
    the sentence names or states (with `Spec.strength` NEAR, rows its own clause names or
    states), of its period (or of one column when it names none)."""
    for candidate in found:
        used = candidate[4]
        if candidate[3] != spec.operation or len(used) != 2:
            continue
        first, second = used
        if not (isinstance(first, Operand) and isinstance(second, Operand)):
            continue
        if (
            min(first.strength, second.strength) >= spec.strength
            and first.row >= 0
            and second.row >= 0
            and _one_period(first, second, spec)
        ):
            yield candidate


def _one_period(first: Operand, second: Operand, spec: Spec) -> bool:
    """Two line items of the period the words name (each cell dated to it), or, with no
    period named, two rows of one column of one table."""
    if first.row == second.row:
        return False  # one line item over time: a change, not a share of a period
    if spec.year:
        return first.year == second.year == spec.year
    return first.item == second.item >= 0 and first.column == second.column >= 0


def searched_whole(claim: Claim) -> bool:
    """Every operation is searched for the claim, not only those its words name: unless it
    is close to an evidence cell its words name (a slip of that cell, most often) and
    written with fewer than four significant digits. A derivation landing on four digits
    or more is rarely chance ("36,386" beside a cell of 34,968: two named rows' difference)."""
    return not claim.close or claim.mention.significant_digits >= _MANY_DIGITS


_MANY_DIGITS = 4


def restates_close(
    claim: Claim, operation: str, entries: Sequence[int], named: frozenset[str]
) -> bool:
    """A derivation its words do not name that takes the very cell the claim is close to
    ("$138.00" as 139.00 - 1 beside that 139.00): the cell slipped, not a result."""
    close = {hit.number.entry for hit in claim.close}
    return bool(close) and operation not in named and not close.isdisjoint(entries)
