"""The whole a part and its share imply, for the derived search (:mod:`._derive`).

"An $8.0 million investment for roughly 13% of the equity ... that price points to a
whole-company value in the region of $61.5 million" divides the part by its share: 8.0 /
0.13. No operation of the family gives it (a share is a percentage; an amount's candidates
are of amounts). A writer grosses a part up so only where the words say the figure is
implied or a valuation ("implied", "implies", "points to", "values ... at", "valuation",
"whole-company", "grossed up"): there, every amount of the pool over every percentage
below 100 % is a candidate, weighed among themselves.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from functools import lru_cache

from validation.engine.checks.numeric._derive_candidates import Candidate
from validation.engine.checks.numeric._derive_pool import Operand

GROSSED = "implied whole"
_IMPLIED = re.compile(
    r"(?i)\bimpl(?:ied|ies|y|ying|icit)\b|\bpoints?[ \t]+to\b|\bvaluation\b|"
    r"\bvalu(?:es|ed|ing)\b[^.;]{0,40}\bat\b|\bwhole[- ]company\b|\bgross(?:ed|ing)?[ \t]+up\b"
)


@lru_cache(maxsize=16)
def _implies(words: str) -> bool:
    # Each number of a sentence asks: a wall that is one sentence is read once.
    return _IMPLIED.search(words) is not None


def grossed_up(operands: Sequence[Operand], words: str) -> Iterator[Candidate]:
    """Each amount over each share (a percentage above 0 and below 100), when the sentence
    says its figure is implied or a valuation; nothing otherwise."""
    if not _implies(words):
        return
    shares = [o for o in operands if o.percent and 0 < o.value < 100]
    parts = [o for o in operands if not o.percent and o.value]
    for share in shares:
        for part in parts:
            yield 0, abs(part.value / share.value * 100), "{} / {}", GROSSED, (part, share)
