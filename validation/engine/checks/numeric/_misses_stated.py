"""Which numbers a result stated in words is stated from (:mod:`._misses`): the numbers of
its own sentence; the one sentence right before it, when the result stands alone in its
own; the only numbers the report states that it could be of; or one line item its
sentence names, in two periods. Never when its own sentence names the period before ("10.6%
below the same quarter a year earlier") and the numbers it points back to are of one
period: the writer compared with a figure the report does not state.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Sequence

from validation.engine.checks.numeric import _operations as ops
from validation.engine.checks.numeric._counts_said import said_count
from validation.engine.checks.numeric._derive_carried import _PRIOR
from validation.engine.checks.numeric._derive_naming import named_rows
from validation.engine.checks.numeric._derive_rows import _rows, row_of_cell
from validation.engine.checks.numeric._labels import label_tokens
from validation.engine.checks.numeric._matching import Claim
from validation.engine.checks.numeric._operations import Operand, Outcome
from validation.engine.checks.numeric._support import Grounding


def stated_from(
    grounding: Grounding,
    position: int,
    outcome: Outcome,
    one: bool,
    candidates: int,
    placed: tuple[bool, bool],
) -> bool:
    """The reading's operands are the numbers the result is stated from: `one` when it is
    the result's one reading's value, `candidates` the report numbers it may be of,
    `placed` whether an operand stands after it and whether all stand in its paragraph."""
    later, at_hand = placed
    operands = outcome.operands
    elsewhere = (
        _base_elsewhere(grounding, position, operands)
        or _miscounted(grounding, position, outcome)
        or _one_period_of_a_span(grounding, position, outcome)
    )
    return not (elsewhere or _another_clause(grounding, position, operands)) and (
        stated_beside(grounding, position, operands)
        or (one and _stated_before(grounding, position, operands))
        or (
            not later
            and _no_other_candidate(candidates, outcome, at_hand and one)
            and not _named_otherwise(grounding, position, outcome)
        )
        or (one and _named_line(grounding, position, outcome))
    )


def _base_elsewhere(grounding: Grounding, position: int, operands: Sequence[Operand]) -> bool:
    """The result's own sentence names the period before ("10.6% below the same quarter a
    year earlier") and states none of its operands, which are of one period as far as
    their words say: no comparison with the period before is among them."""
    mention = grounding.claims[position].mention
    low, high = grounding.sentence(mention.start, mention.end)
    if _PRIOR.search(grounding.body, low, high) is None or any(
        low <= operand.position < high for operand in operands
    ):
        return False
    return len({operand.year for operand in operands}) == 1


def _another_clause(grounding: Grounding, position: int, operands: Sequence[Operand]) -> bool:
    """The result stands between its operands, and one after it is past a word that
    opens a clause of its own ("$529 thousand, about 14.8% of the total, while the $68
    thousand of deferred revenue ... disappeared"): that clause's figure, not one the
    result is stated from. ("X is 1.2 times Y. X was $4,483K, while Y was $3,444K" states
    both operands after it, one each side of the "while": a pair.)"""
    mention = grounding.claims[position].mention
    if not any(0 <= operand.position < mention.start for operand in operands):
        return False
    return any(
        operand.position > mention.end
        and _CONTRAST.search(grounding.body, mention.end, operand.position)
        for operand in operands
    )


def _miscounted(grounding: Grounding, position: int, outcome: Outcome) -> bool:
    """An average or a sum whose own words count its values otherwise ("19, up from 11,
    taking the three-year average to 16": three years, not the two numbers stated): the
    writer took a value the report does not state."""
    if outcome.op not in (ops.MEAN, ops.SUM):
        return False
    mention = grounding.claims[position].mention
    low, _ = grounding.sentence(mention.start, mention.end)
    before = grounding.claims[position - 1].mention.end if position else low
    count = said_count(grounding.body[max(low, before) : mention.start])
    return count >= 2 and count != len(outcome.operands)


def _one_period_of_a_span(grounding: Grounding, position: int, outcome: Outcome) -> bool:
    """A sum of one line item's figures (its periods added up) for a result the words right
    after it date to one period ("... against 158% a year earlier", "$4.4 million in 2018"):
    a figure of one period is no total over several; the writer added other lines of that
    period. (A year before the result dates an operand: "adding $2,338K (December 31,
    2019) and $1,975K (December 31, 2018) gives $4,436K".)"""
    if outcome.op != ops.SUM or not all(operand.in_report for operand in outcome.operands):
        return False
    if not same_line_item(grounding, outcome.operands):
        return False
    claims, mention = grounding.claims, grounding.claims[position].mention
    _, high = grounding.sentence(mention.start, mention.end)
    following = claims[position + 1].mention.start if position + 1 < len(claims) else high
    after = grounding.body[mention.end : min(high, following)]  # a year before it is an operand's
    return _PRIOR.search(after) is not None or len(set(_YEAR.findall(after))) == 1


_CONTRAST = re.compile(r"\b(?:while|whereas|although|though|but)\b", re.IGNORECASE)
_NAMED_LINE_WORDS = 2  # words of the line item's label the sentence must repeat
_YEAR = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")


def _named_line(grounding: Grounding, position: int, outcome: Outcome) -> bool:
    """A change, difference or two-period average of one line item that the result's
    sentence names ("Software license averaged ... across 2018 and 2019"), in a sentence
    naming no more periods than the reading takes (a three-year average is not one of
    two years)."""
    if outcome.op not in (ops.DIFF, ops.CHANGE, ops.MEAN) or len(outcome.operands) != 2:
        return False
    if not same_line_item(grounding, outcome.operands):
        return False
    mention = grounding.claims[position].mention
    low, high = grounding.sentence(mention.start, mention.end)
    words = grounding.body[low:high]
    years = sorted({int(year) for year in _YEAR.findall(words)})
    if len(years) > 2 or (outcome.op == ops.MEAN and years and years[-1] - years[0] > 1):
        return False  # "averaged ... fiscal 2017 to fiscal 2019" is three periods
    if years and any(o.year and o.year not in years for o in outcome.operands):
        return False  # an operand of a period the sentence does not name
    shared = label_of(grounding.claims[outcome.operands[0].key]) & label_tokens(words)
    return len(shared) >= _NAMED_LINE_WORDS


def _no_other_candidate(candidates: int, outcome: Outcome, plain: bool) -> bool:
    """The report states no number the result could be of besides the reading's operands
    (or one more, when the reading is the only one and stands in the result's paragraph):
    "2019: $193K, 2018: $167K, average: $165K" has one reading, and it is the writer's."""
    extra = candidates - len(outcome.operands)
    return extra <= 0 or (extra == 1 and plain)


def _named_otherwise(grounding: Grounding, position: int, outcome: Outcome) -> bool:
    """The result's sentence names evidence rows, and no operand is in them ("it
    now equals about 84.0% of gross cost", of the accumulated depreciation line, over the
    land and leasehold lines stated in the bullets above): the report's other numbers are
    no reading of what its words say. A sentence naming no row ("The difference works out
    to $339M") leaves them the reading."""
    mention = grounding.claims[position].mention
    low, high = grounding.sentence(mention.start, mention.end)
    rows = _rows(grounding.index)
    named = set(named_rows(rows, "", grounding.body[low:high])[1])
    if not named:
        return False
    for operand in outcome.operands:
        hit = grounding.claims[operand.key].hit
        if hit is None:
            return False  # a result the report derives: its words may name anything
        if row_of_cell(rows, hit.number.entry) in named:
            return False
    return True


def _stated_before(grounding: Grounding, position: int, operands: Sequence[Operand]) -> bool:
    """The result is the one number of its sentence, and every operand is written in the
    sentence right before it, in its paragraph ("EBIT rose by €115 million, from €713
    million to €828 million. That works out to an increase of about 17.1%."): the
    result's sentence says what it is of only by pointing back to that one."""
    mention = grounding.claims[position].mention
    low, high = grounding.sentence(mention.start, mention.end)
    paragraph = grounding.paragraphs[position]
    starts = grounding.starts  # the claims' starts, in the body's order
    if bisect_left(starts, high) - bisect_left(starts, low) > 1:
        return False  # another number in the result's sentence
    body = grounding.body
    before = low
    while before > 0 and body[before - 1].isspace():
        before -= 1
    if body[before - 1 : before] in (".", "!", "?", ":"):
        before -= 1  # the stop itself reads as the boundary of both sentences
    if before <= 0 or "\n\n" in body[before:low]:
        return False
    start, end = grounding.sentence(before - 1, before)
    if end > low or any(operand.paragraph != paragraph for operand in operands):
        return False
    return all(start <= operand.position < end for operand in operands)


def stated_beside(grounding: Grounding, position: int, operands: Sequence[Operand]) -> bool:
    """Every operand is a number written in the result's own sentence."""
    mention = grounding.claims[position].mention
    low, high = grounding.sentence(mention.start, mention.end)
    return all(low <= operand.position < high for operand in operands)


def label_of(claim: Claim) -> frozenset[str]:
    """What the evidence says a report number is (its row or key); nothing for a
    number the report computed (its own words are the sentence's)."""
    return claim.hit.number.tokens if claim.hit is not None else frozenset()


def same_line_item(grounding: Grounding, operands: Sequence[Operand]) -> bool:
    """Every operand is the same evidence line item (a row in two periods)."""
    labels = [label_of(grounding.claims[operand.key]) for operand in operands]
    return bool(labels[0]) and all(label == labels[0] for label in labels[1:])
