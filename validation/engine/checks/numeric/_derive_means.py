"""An average the report derives, paired with what it was made of (for
:mod:`._derive_candidates`): no reading an analyst makes.

- with one of its own values: their ratio or change is half the values' own;
- with a change the report derives between two of its own values ("averaged $11.3
  billion ..., the 2019 balance was $3.2 billion lower than a year earlier, a drop of
  about 26.2%"): a drop is taken over the level it fell from, never over an average of the
  levels (a coincidence of that kind passed a wrong 28.2% as $3.2 billion / $11.3 billion).

A stated change over one of its own ends stays a candidate: a percentage change.
"""

from __future__ import annotations

from validation.engine.checks.numeric._derive_pool import Operand


def undoes(first: Operand, second: Operand) -> bool:
    """The pair is an average the claim's sentence derives and one of its own values, or
    a change the sentence derives between its values."""
    return _made_of(first, second) or _made_of(second, first)


def _made_of(part: Operand, mean: Operand) -> bool:
    if not mean.mean:
        return False
    if part.entry >= 0:
        return part.entry in mean.sources
    if not (part.change and part.sources):
        return False
    # An average of a whole row or list keeps no cells of its own: a change between two
    # cells of the sentence is taken as one between its values.
    return not mean.sources or set(part.sources) <= set(mean.sources)
