"""Numbers the report writes as points ("took 9.9 points off the 2019 rate"): a difference
of two rates, so a rate itself for the closed search (:mod:`._derive`). Added back to the
rate it was taken from it gives the rate without it ("the underlying rate would have been
roughly 22.9%", 13.0% + 9.9 points). The number may restate a bare cell of a rate
reconciliation ("(9.9)"), read as a plain figure; written as points, it is a rate."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import replace

from validation.engine.checks.numeric._derive_pool import Operand, points_of
from validation.engine.checks.numeric._matching import Claim


def as_rates(operands: Sequence[Operand], claims: Sequence[Claim], body: str) -> list[Operand]:
    """`operands` with each report number written as points taken as a rate too (as
    written, it still pairs with the bare cells of its table: "fell by 0.90 points, or
    about 32.1%" of the 2.80 before it)."""
    found = list(operands)
    for operand in operands:
        if operand.position < 0 or operand.percent:
            continue
        at = bisect_left(claims, operand.position, key=lambda claim: claim.index)  # in order
        if at == len(claims) or claims[at].index != operand.position:
            continue
        mention = claims[at].mention
        if points_of(body, mention):
            found.append(replace(operand, value=float(mention.value), percent=True, digits=1.0))
    return found
