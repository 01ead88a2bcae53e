"""Evidence matches of results set aside (`doubt`): a number whose words name an operation
and that matches an evidence figure only weakly (about something else, or written with
fewer digits), where the operation over the numbers it is stated from plainly gives
another value, is judged as a result. A figure its words attribute to the source ("the
6.14 per cent the company cites in its narrative") is a quotation: its match stands.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from decimal import Decimal

from validation.engine.checks.numeric import _search as search
from validation.engine.checks.numeric._derive_rows import _rows
from validation.engine.checks.numeric._labels import label_tokens
from validation.engine.checks.numeric._matching import Claim, small_integer
from validation.engine.checks.numeric._misses import _FOCUS, _in_units, _readings, _slip
from validation.engine.checks.numeric._operations import Operand
from validation.engine.checks.numeric._support import Grounding
from validation.engine.checks.numeric._types import NumberMention


def doubt(grounding: Grounding) -> list[int]:
    """Results whose words name an operation and that match an evidence number only
    weakly (a figure about something else, or one written with fewer digits), when
    the operation over the numbers they are stated from plainly gives another value:
    "rose 24.4%" beside a text's "increased 24%" when the figures give 23.6%. Their
    match is set aside (``claim.hit`` cleared): they are judged as results."""
    doubted: list[int] = []
    for position, claim in enumerate(grounding.claims):
        hit = claim.hit
        if hit is None or claim.in_expression or claim.calculation is not None or claim.computed:
            continue  # a number of a written expression is what it is written as
        mention = claim.mention
        if mention.in_range or small_integer(mention):
            continue
        if averaged_cell(grounding, position):
            claim.hit, claim.doubted = None, True  # "averaged 151 a year": one year's cell
            doubted.append(position)
            continue
        if not _weak(claim, grounding.body):
            continue
        if quoted(grounding.body, mention):
            continue  # "the 6.14 per cent the company cites": the source's own figure
        if _LEVEL_FROM.search(grounding.body, max(0, mention.start - 24), mention.start):
            continue  # "rose to $64 million from $20 million": a change's start is a level
        operations, named = search.operations_for(mention, grounding.cue(position))
        if not named:
            continue
        focus = [o for o in grounding.pool(position) if o.in_report][:_FOCUS]
        if len(focus) < 2:
            continue
        doubtful = _doubtful(grounding, position, operations, focus)
        if doubtful:
            claim.hit = None
            doubted.append(position)
    return doubted


def _doubtful(
    grounding: Grounding, position: int, operations: Sequence[str], focus: Sequence[Operand]
) -> bool:
    """The best-placed reading of the result gives one value, plainly, and the result
    is a slip of it."""
    mention = grounding.claims[position].mention
    best, top = _readings(grounding, position, operations, focus)
    target = search.target_of(mention, grounding.cue(position))
    values = {round(_in_units(mention, outcome), mention.decimals) for outcome in top}
    if best < 1.0 or len(values) != 1 or target.meets(top[0]):
        return False
    return _slip(mention, top[0], target.distance(top[0]))


def averaged_cell(grounding: Grounding, position: int) -> bool:
    """ "Services averaged 151 million a year across the period": the words make the figure
    an average over periods and give it no year of its own, but it is one period's cell of
    its row, and that row's values of its magnitude (its periods) average to another value
    at the figure's precision. An evidence figure that is itself an average ("Average
    daily balance") keeps its match."""
    claim = grounding.claims[position]
    hit, mention = claim.hit, claim.mention
    if hit is None or not hit.number.value or hit.number.tokens & _AVERAGES:
        return False
    if grounding.cue(position).year:
        return False  # "averaged 151 million in 2018": that year's own average
    if _AVERAGED.search(grounding.body, max(0, mention.start - 40), mention.start) is None:
        return False  # not "averaged 151": "the mean of 1,671 and 1,612" takes its operands
    index = grounding.index
    rows = _rows(index)
    row = rows.row_of.get(hit.number.entry)
    if row is None:
        return False
    value = float(hit.number.full_value)
    periods = [
        float(cell.full_value)
        for cell in map(index.number, rows.cells[row])
        if cell.unit == hit.number.unit and value / 3 <= float(cell.full_value) <= value * 3
    ]
    if len(periods) < 2:
        return False
    mean = sum(periods) / len(periods)
    # The figure's last digit, in the cell's full units (its digits times its scale).
    step = 10.0**-mention.decimals * float(hit.number.full_value / hit.number.value)
    return abs(mean - value) > step / 2


_AVERAGES = frozenset(("average", "averaged", "avg", "mean"))
# The verb right before the figure: "averaged 151", "averaging roughly $12.3".
_AVERAGED = re.compile(
    r"(?i)\baverag(?:ed|es|ing)[ \t]+(?:(?:about|roughly|around|approximately|nearly|some|"
    r"just|only)[ \t]+)?(?:[$€£]|US\$)?$"
)


def _weak(claim: Claim, body: str) -> bool:
    """A match that does not say the number is this figure: the evidence number is
    written with fewer digits ("increased 24%" for "rose 24.4%"), or the number shows
    under three significant digits (four or more rarely match by chance) and matches a
    figure about something else ("grew 22.0%" beside a tax rate of 22.0): no word of
    its label or of its clause after it ("97% of 2019 sales under fixed-price contracts")."""
    if (hit := claim.hit) is None:
        return False
    number = hit.number
    if number.written and number.decimals < claim.mention.decimals:
        # Fewer digits in the same units: "$276.9 million" for a cell of 276,852 (thousands)
        # writes its digits at another scale, and the cell is the finer of the two.
        quantum = Decimal(1).scaleb(-number.decimals) * abs(number.value / number.written)
        if quantum > Decimal(1).scaleb(-claim.mention.decimals) * hit.factor:
            return True
    after = label_tokens(_CLAUSE_END.split(body[claim.mention.end : claim.mention.end + 80], 1)[0])
    if hit.number.item in claim.cited or (claim.mention.tokens | after) & hit.number.tokens:
        return False
    return claim.mention.significant_digits <= _CHANCE_DIGITS


_CHANCE_DIGITS = 3
_CLAUSE_END = re.compile(r"[.;:!?\n]")
_LEVEL_FROM = re.compile(r"(?i)\bfrom[ \t]+(?:about[ \t]+|roughly[ \t]+|around[ \t]+)?$")


def quoted(body: str, mention: NumberMention) -> bool:
    """The words right after the figure attribute it to the source: "the 6.14 per cent the
    company cites", "12% as management reported", "the 3.1% the filing gives"."""
    return _QUOTED.match(body, mention.end, mention.end + _QUOTED_REACH) is not None


_QUOTED_REACH = 60  # characters after a figure read for its attribution
_QUOTED = re.compile(
    r"[ \t]+(?:that[ \t]+|which[ \t]+|as[ \t]+)?(?:the[ \t]+|its[ \t]+)?"
    r"(?:company|management|group|firm|issuer|filing|report|narrative|disclosure|text|"
    r"notes?|release|statement)(?:[ \t]+itself)?(?:[ \t]+(?:also|itself))?[ \t]+"
    r"(?:cites|cited|reports|reported|states|stated|says|said|quotes|quoted|gives|gave|"
    r"discloses|disclosed|claims|claimed|mentions|mentioned)\b",
    re.IGNORECASE,
)
