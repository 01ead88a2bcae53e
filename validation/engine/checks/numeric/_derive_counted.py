"""An amount a count of equal amounts makes, for the derived search (:mod:`._derive`).

"The board declared four dividends of $0.40 a share, $1.60 for the year" multiplies a
price its sentence states by the number of things the sentence counts ("four dividends",
"both instalments", "the 12 monthly payments"). The count is written in words or before a
noun, so it is no operand of the pool; each price (an amount written to the cent) the
sentence itself states, times that count, is a candidate, weighed among themselves.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from validation.engine.checks.numeric._counts_said import things_counted
from validation.engine.checks.numeric._derive_candidates import Candidate, is_price
from validation.engine.checks.numeric._derive_pool import STATED, Operand

COUNTED = "count times amount"


def counted_amounts(operands: Sequence[Operand], words: str) -> Iterator[Candidate]:
    """Each price stated in the sentence times the count the sentence says, if any."""
    count = things_counted(words)
    if count < 2:
        return
    for price in operands:
        if price.strength == STATED and price.reported and is_price(price):
            yield 0, count * price.value, "{} * {}", COUNTED, (str(count), price)
