"""The arithmetic check: every calculation the report writes out is recomputed
with the safe calculator.

Recognised forms (numbers may carry currency, scale and percent signs, and label
words may sit between them):

- equations: `a - b = c`, `Operating Cash Flow $15.5B - CapEx $0.7B = $14.8B`,
  `(0.50 - 0.45) / 0.45 * 100 = 11.11%`, `X / Y = Z`, `X x Y = Z`, `c = a + b`;
- changes: "from $X to $Y, up Z%", "rose from X to Y (+Z%)", "rose Z% from X to Y",
  "from $X to $Y, up $D";
- shares: "A of B (Z%)";
- moves: "$190.68, up $2.35 (1.25%)" - only ever *confirms* a percentage, since
  the base of such a move is not written down.

A result is correct when the exact computed value, rounded to the precision the
report shows, equals it (`11.11%` for 11.111...; `$14.8B` for 14.8e9). Signs are
compared by magnitude ("down 5%" and "-5%" are the same claim). Percent operands
count as fractions (10% x $50B = $5B) unless every operand is a percentage
(12% + 3% = 15%); a percent result may be written as a percentage or a fraction.
"""

from __future__ import annotations

import math
import re
import time
from bisect import bisect_left
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from fractions import Fraction
from typing import TypeVar

from validation.engine.calculator import CalculatorError, calculate
from validation.engine.checks.numeric import _calculations as calculations
from validation.engine.checks.numeric._calculations import Link, Node
from validation.engine.checks.numeric._extract import NumberMention
from validation.engine.types import ToolCallRecord

_EQUALS = re.compile(r"(?<![<>=!])[=≈](?![=>])")
_SEGMENT_BOUNDARIES = ("\n", "|", ";", ". ", ": ", "? ", "! ", "=", "≈")
_GAP_WORDS = re.compile(r"[A-Za-z][A-Za-z&'\u2019_.]*(?:-[A-Za-z][A-Za-z&'\u2019_.]*)*")
_OPERATOR_TRANSLATE = str.maketrans(
    {"\u00d7": "*", "÷": "/", "\u2212": "-", "\u2013": "-", "\u2014": "-", "\u00b7": "*"}
)
_ALLOWED_GAP = frozenset("+-*/() \t")
_TIMES_X = re.compile(r"(?<![A-Za-z])[xX](?![A-Za-z])")  # "3 x 4"
_FROM_BEFORE = re.compile(r"(?i)\bfrom[ \t]+$")
_TO_GAP = re.compile(r"(?i)[ \t]+to[ \t]+")
_CHANGE_GAP = re.compile(
    r"(?i)[ \t]*[,;(]?[ \t]*(?:(?:a|an|or|for|which\s+is|i\.e\.)[ \t]+)?"
    r"(?:up|down|higher|lower|rise|rose|risen|increas\w*|decreas\w*|gain\w*|grew|growth|fell"
    r"|fall\w*|drop\w*|declin\w*|jump\w*|climb\w*|surg\w*|plung\w*|slip\w*|slid|sank|soar\w*"
    r"|advanc\w*|retreat\w*|change\w*|an?[ \t]+increase|an?[ \t]+decrease)?"
    r"(?:[ \t]+(?:of|by))?[ \t]*[(]?[ \t]*"
)
_CHANGE_BEFORE_FROM = re.compile(r"(?i)[ \t]+from[ \t]+")
_MOVE_GAP = re.compile(
    r"(?i)[ \t]*,?[ \t]*(?:up|down|rose|fell|gained|lost|higher|lower|\+|-|\u2212)"
    r"[ \t]*(?:by[ \t]+)?"
)
_MOVE_TO_PERCENT = re.compile(r"[ \t]*(?:\(|,|/)[ \t]*")
_SHARE_GAP = re.compile(
    r"(?i)[ \t]+(?:out[ \t]+)?of[ \t]+(?:the[ \t]+|a[ \t]+total[ \t]+of[ \t]+)?"
)
_SHARE_TO_PERCENT = re.compile(r"[ \t]*\([ \t]*")
_LEAD_TAIL = re.compile(r"[A-Za-z \t(]*$")
_UP_WORDS = re.compile(r"(?i)\b(?:up|rose|gained|higher)\b|\+")


@dataclass(frozen=True, slots=True)
class WrittenCalculation:
    """A calculation found in the text. `operands` and `result` index the
    mentions list; `strict` means a wrong result is a finding (otherwise the
    calculation can only confirm its result)."""

    kind: str  # equation, change, share, move
    operands: tuple[int, ...]
    result: int
    expression: str
    strict: bool
    start: int
    end: int
    percent_base: bool = False  # the expression yields a percentage (x 100 inside)
    tree: Node | None = None  # a parsed expression (links of `calculations.read`)
    approx: bool = False  # "≈", "about": the result may be off by a whole last digit
    # The operand values `expression` was rendered from, so a check that reads the same
    # values need not render it again.
    rendered_from: tuple[tuple[int, Fraction], ...] = ()


@dataclass(frozen=True, slots=True)
class CheckedCalculation:
    calculation: WrittenCalculation
    correct: bool
    exact: str  # the calculator's result ("11.11111111111111111111111111")
    expected: Decimal | None  # the correct result in the result's written units (11.111...)
    tool_call: ToolCallRecord
    error: str = ""  # value, scale or percent: what is wrong with a wrong result
    scale_fix: Decimal | None = None  # for a scale error: the scale the result should carry


def find_calculations(
    body: str,
    mentions: Sequence[NumberMention],
    reading: calculations.Reading | None = None,
) -> list[WrittenCalculation]:
    """Every written calculation of `body`; one per result mention."""
    found: dict[int, WrittenCalculation] = {}
    if reading is None:
        reading = calculations.read(body, mentions)
    for link in reading.links:
        calculation = _from_link(body, mentions, link)
        if calculation is not None:
            found.setdefault(calculation.result, calculation)
    for calculation in (*_changes(body, mentions), *_shares(body, mentions)):
        found.setdefault(calculation.result, calculation)
    for calculation in _moves(body, mentions):
        found.setdefault(calculation.result, calculation)
    return [found[key] for key in sorted(found)]


def check(
    calculation: WrittenCalculation,
    mentions: Sequence[NumberMention],
    facts: Mapping[int, OperandFacts] | None = None,
) -> CheckedCalculation | None:
    """Recompute one calculation (a parsed expression: see `check_link`; a change,
    share or move: its formula); None when the calculator refuses the expression."""
    if calculation.tree is not None:
        return check_link(calculation, mentions, facts)
    began = time.perf_counter()
    try:
        result = calculate(calculation.expression)
    except CalculatorError as exc:
        return CheckedCalculation(
            calculation,
            correct=True,
            exact="",
            expected=None,
            tool_call=ToolCallRecord(
                tool="calculator",
                input={"expression": calculation.expression},
                error=str(exc),
                duration_ms=_elapsed(began),
            ),
        )
    call = ToolCallRecord(
        tool="calculator",
        input={"expression": calculation.expression},
        output=result.exact,
        duration_ms=_elapsed(began),
    )
    target = mentions[calculation.result]
    readings = _readings(calculation, mentions, result.value)
    correct = any(_equal_at_precision(written, target) for written in readings)
    # The reading nearest the written number is the one the author meant.
    expected = min(readings, key=lambda written: _log_distance(written, target.written))
    scale = _common_scale([mentions[index] for index in calculation.operands])
    if (
        not correct
        and scale is not None
        and scale != 1
        and target.has_explicit_scale
        and scale != target.scale
        and _equal_at_precision(abs(result.value), target)
    ):
        # "from $1,918 million to $1,906 million, a decrease of 12 thousand": the digits
        # are right, the scale word is not.
        return CheckedCalculation(
            calculation, False, result.exact, abs(target.written), call, "scale", scale
        )
    return CheckedCalculation(calculation, correct, result.exact, expected, call)


# ------------------------------------------------------------------ reading


def _readings(
    calculation: WrittenCalculation, mentions: Sequence[NumberMention], value: Decimal
) -> list[Decimal]:
    """The computed value as the result would write it, in every reading that
    makes sense (in the result's scale; as a percentage or as a fraction)."""
    target = mentions[calculation.result]
    operands = [mentions[index] for index in calculation.operands]
    scale = _common_scale(operands)
    magnitude = abs(value)
    full = magnitude * scale if scale is not None else magnitude
    result_scale = target.scale if target.has_explicit_scale else Decimal(1)
    readings = [full / result_scale]
    if scale is not None and scale != result_scale and (scale == 1 or result_scale == 1):
        readings.append(magnitude)  # "15.5 - 0.7 = $14.8B": operands in the result's scale
    all_percent = all(operand.is_percent for operand in operands)
    if target.is_percent and not (calculation.percent_base or all_percent):
        readings.append(magnitude * 100)  # "0.05 / 0.45 = 11.11%"
    return readings


def _equal_at_precision(written: Decimal, target: NumberMention) -> bool:
    quantum = Decimal(1).scaleb(-target.decimals)
    half = quantum / 2 if not target.approx else quantum
    return abs(written - abs(target.written)) <= half * Decimal("1.000000001")


def _log_distance(value: Decimal, written: Decimal) -> float:
    if value == 0 or written == 0:
        return math.inf if value != written else 0.0
    return abs(math.log10(float(abs(value))) - math.log10(float(abs(written))))


def _common_scale(operands: Sequence[NumberMention]) -> Decimal | None:
    """The explicit scale every non-percent operand shares (1 when none has
    one), or None when they differ and full values were used."""
    scales = {
        operand.scale if operand.has_explicit_scale else Decimal(1)
        for operand in operands
        if not operand.is_percent and operand.unit != "bp"
    }
    if len(scales) > 1:
        return None
    return scales.pop() if scales else Decimal(1)


def _operand_text(operand: NumberMention, use_full: bool, all_percent: bool) -> str:
    number: Decimal | None
    if operand.is_percent and not all_percent:
        number = abs(operand.written) / 100
    elif operand.unit == "bp":
        number = abs(operand.written) / 10_000
    elif use_full and operand.has_explicit_scale:
        number = abs(operand.written) * operand.scale
    else:
        # The digits as the report shows them ("0.50"), without separators.
        digits = operand.text[operand.num_start - operand.start : operand.num_end - operand.start]
        number = None
        text = digits.replace(",", "")
    if number is not None:
        text = _plain(number)
    return f"(-{text})" if operand.negative else text


def _plain(value: Decimal) -> str:
    text = format(value, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text or "0"


def _expression(
    body: str, mentions: Sequence[NumberMention], indices: Sequence[int], gaps: Sequence[str]
) -> str | None:
    """Join operands and the operator text between them into a calculator
    expression; None when the parentheses cannot be balanced."""
    operands = [mentions[index] for index in indices]
    use_full = _common_scale(operands) is None
    all_percent = all(operand.is_percent for operand in operands)
    parts = [gaps[0]]
    for position, operand in enumerate(operands):
        parts.append(_operand_text(operand, use_full, all_percent))
        parts.append(gaps[position + 1])
    return _balance(_tidy(" ".join(parts)))


def _tidy(expression: str) -> str:
    """One space around operators, none inside parentheses: "(0.50 - 0.45) / 0.45"."""
    text = " ".join(expression.split())
    return text.replace("( ", "(").replace(" )", ")")


def _balance(expression: str) -> str | None:
    # Drop unmatched "(" at the start and unmatched ")" at the end.
    while expression.count("(") > expression.count(")") and expression.startswith("("):
        expression = expression[1:].lstrip()
    while expression.count(")") > expression.count("(") and expression.endswith(")"):
        expression = expression[:-1].rstrip()
    depth = 0
    for char in expression:
        depth += 1 if char == "(" else -1 if char == ")" else 0
        if depth < 0:
            return None
    return expression if depth == 0 and expression else None


def _gap_operators(gap: str) -> str | None:
    """The operator text of the gap between two numbers ("- CapEx" -> "-"), or
    None if the gap holds anything but words, operators and parentheses."""
    if not gap.strip():
        return ""
    cleaned = gap.translate(_OPERATOR_TRANSLATE)
    if "x" in cleaned or "X" in cleaned:
        cleaned = _TIMES_X.sub("*", cleaned)
    cleaned = _GAP_WORDS.sub(" ", cleaned)
    if not set(cleaned) <= _ALLOWED_GAP:
        return None
    return " ".join(cleaned.split())


def _has_binary(operators: str) -> bool:
    stripped = operators.replace("(", "").replace(")", "").strip()
    return bool(stripped) and any(char in "+-*/" for char in stripped)


def _segment_start(body: str, position: int) -> int:
    floor = max(0, position - 400)
    best = floor
    for boundary in _SEGMENT_BOUNDARIES:
        found = body.rfind(boundary, floor, position)
        if found >= 0:
            best = max(best, found + len(boundary))
    return best


def _segment_end(body: str, position: int) -> int:
    ceiling = min(len(body), position + 400)
    best = ceiling
    for boundary in _SEGMENT_BOUNDARIES:
        found = body.find(boundary, position, ceiling)
        if found >= 0:
            best = min(best, found)
    return best


def _equations(body: str, mentions: Sequence[NumberMention]) -> list[WrittenCalculation]:
    if "=" not in body and "≈" not in body:
        return []
    starts = [mention.start for mention in mentions]
    found: list[WrittenCalculation] = []
    for match in _EQUALS.finditer(body):
        position = match.start()
        after = bisect_left(starts, position + 1)
        before = after - 1
        approx = match.group() == "≈"
        # c = expression ...   (result first)
        right = _right_result(body, mentions, after, position)
        if right is None:
            continue  # no number right after "=": nothing to check either way
        left = _left_expression(body, mentions, before, position)
        if right is not None and left is not None:
            indices, gaps = left
            calculation = _make_equation(body, mentions, indices, gaps, right, approx)
            if calculation is not None:
                found.append(calculation)
                continue
        if (
            left is None
            and right is not None
            and before >= 0
            and _single_before(body, mentions, before, position)
        ):
            forward = _right_expression(body, mentions, after, position)
            if forward is not None:
                indices, gaps = forward
                calculation = _make_equation(body, mentions, indices, gaps, before, approx)
                if calculation is not None:
                    found.append(calculation)
    return found


def _make_equation(
    body: str,
    mentions: Sequence[NumberMention],
    indices: list[int],
    gaps: list[str],
    result: int,
    approx: bool,
) -> WrittenCalculation | None:
    del approx  # "≈" results are checked at the precision shown like "=" ones
    expression = _expression(body, mentions, indices, gaps)
    if expression is None:
        return None
    target = mentions[result]
    percent_base = target.is_percent and any(
        mentions[index].written == 100 and not mentions[index].unit for index in indices
    )
    spans = [mentions[index].start for index in indices] + [target.start]
    ends = [mentions[index].end for index in indices] + [target.end]
    return WrittenCalculation(
        kind="equation",
        operands=tuple(indices),
        result=result,
        expression=expression,
        strict=True,
        start=min(spans),
        end=max(ends),
        percent_base=percent_base,
    )


def _right_result(
    body: str, mentions: Sequence[NumberMention], after: int, position: int
) -> int | None:
    if after >= len(mentions):
        return None
    gap = body[position + 1 : mentions[after].start]
    if gap.strip(" \t~") or "\n" in gap:
        return None
    return after


def _left_expression(
    body: str, mentions: Sequence[NumberMention], before: int, position: int
) -> tuple[list[int], list[str]] | None:
    if before < 0:
        return None
    segment = _segment_start(body, position)
    if mentions[before].start < segment:
        return None
    tail = _gap_operators(body[mentions[before].end : position])
    if tail is None:
        return None
    indices = [before]
    gaps = [tail]
    index = before
    while index > 0 and mentions[index - 1].start >= segment:
        gap = _gap_operators(body[mentions[index - 1].end : mentions[index].start])
        if gap is None or not _has_binary(gap):
            break
        index -= 1
        indices.insert(0, index)
        gaps.insert(0, gap)
    if len(indices) < 2:
        return None
    lead_start = (
        mentions[index - 1].end if index > 0 and mentions[index - 1].end > segment else segment
    )
    lead = body[lead_start : mentions[indices[0]].start]
    if _gap_operators(lead) is None:
        # "margin of safety is (152.40 - ...", "**EPS surprise:** (0.50 - ...": only the
        # parentheses after the last punctuation open the expression.
        opens = _LEAD_TAIL.search(lead)
        lead = opens.group() if opens is not None else ""
    opening = "(" * lead.count("(")
    gaps.insert(0, opening)
    # Keep only closing parentheses after the last operand.
    gaps[-1] = ")" * gaps[-1].count(")")
    return indices, gaps


def _single_before(
    body: str, mentions: Sequence[NumberMention], before: int, position: int
) -> bool:
    segment = _segment_start(body, position)
    if mentions[before].start < segment:
        return False
    if body[mentions[before].end : position].strip():
        return False
    return before == 0 or mentions[before - 1].end <= segment


def _right_expression(
    body: str, mentions: Sequence[NumberMention], after: int, position: int
) -> tuple[list[int], list[str]] | None:
    end = _segment_end(body, position + 1)
    if after >= len(mentions) or mentions[after].end > end:
        return None
    lead = body[position + 1 : mentions[after].start]
    if lead.strip(" \t(~"):
        return None
    indices = [after]
    gaps = ["(" * lead.count("(")]
    index = after
    while index + 1 < len(mentions) and mentions[index + 1].end <= end:
        gap = _gap_operators(body[mentions[index].end : mentions[index + 1].start])
        if gap is None or not _has_binary(gap):
            break
        index += 1
        indices.append(index)
        gaps.append(gap)
    if len(indices) < 2:
        return None
    trailing = body[mentions[index].end : end]
    closing = len(trailing) - len(trailing.lstrip(" \t)"))
    gaps.append(")" * trailing[:closing].count(")"))
    return indices, gaps


def _changes(body: str, mentions: Sequence[NumberMention]) -> list[WrittenCalculation]:
    """ "from X to Y, up Z%" and "rose Z% from X to Y"."""
    found: list[WrittenCalculation] = []
    for index in range(len(mentions) - 1):
        first, second = mentions[index], mentions[index + 1]
        if second.start - first.end > 8 or not _TO_GAP.fullmatch(body, first.end, second.start):
            continue
        if not _FROM_BEFORE.search(body, max(0, first.start - 12), first.start):
            continue
        if first.is_percent != second.is_percent:
            continue
        change: int | None = None
        if index + 2 < len(mentions):
            third = mentions[index + 2]
            gap = body[second.end : third.start]
            if len(gap) <= 40 and _CHANGE_GAP.fullmatch(gap) and gap.strip(" \t"):
                change = index + 2
        if change is None and index >= 1:
            before = mentions[index - 1]
            gap = body[before.end : first.start]
            if _CHANGE_BEFORE_FROM.fullmatch(gap):
                change = index - 1
        if change is None:
            continue
        calculation = _change_calculation(mentions, index, index + 1, change)
        if calculation is not None:
            found.append(calculation)
    return found


def _change_calculation(
    mentions: Sequence[NumberMention], old: int, new: int, change: int
) -> WrittenCalculation | None:
    first, second, delta = mentions[old], mentions[new], mentions[change]
    use_full = _common_scale([first, second]) is None
    old_text = _operand_text(_unsigned(first), use_full, True)
    new_text = _operand_text(_unsigned(second), use_full, True)
    span = (min(first.start, delta.start), max(second.end, delta.end))
    if delta.is_percent and not first.is_percent:
        expression = f"({new_text} - {old_text}) / {old_text} * 100"
        percent_base = True
        strict = True
    elif delta.is_percent and first.is_percent:
        # Percentage points or a relative change? Only "pp" is unambiguous.
        expression = f"{new_text} - {old_text}"
        percent_base = False
        strict = delta.unit == "pp"
    elif not delta.is_percent and not first.is_percent and delta.unit != "x":
        expression = f"{new_text} - {old_text}"
        percent_base = False
        strict = True
    else:
        return None
    return WrittenCalculation(
        kind="change",
        operands=(old, new),
        result=change,
        expression=expression,
        strict=strict,
        start=span[0],
        end=span[1],
        percent_base=percent_base,
    )


def _unsigned(mention: NumberMention) -> NumberMention:
    if not mention.negative:
        return mention
    return replace(mention, written=abs(mention.written), negative=False)  # a copy


def _shares(body: str, mentions: Sequence[NumberMention]) -> list[WrittenCalculation]:
    """ "A of B (Z%)"."""
    found: list[WrittenCalculation] = []
    for index in range(len(mentions) - 2):
        part, whole, share = mentions[index], mentions[index + 1], mentions[index + 2]
        if not share.is_percent or part.is_percent or whole.is_percent:
            continue
        if not _SHARE_GAP.fullmatch(body, part.end, whole.start):
            continue
        if not _SHARE_TO_PERCENT.fullmatch(body, whole.end, share.start):
            continue
        use_full = _common_scale([part, whole]) is None
        expression = (
            f"{_operand_text(_unsigned(part), use_full, True)} / "
            f"{_operand_text(_unsigned(whole), use_full, True)} * 100"
        )
        found.append(
            WrittenCalculation(
                kind="share",
                operands=(index, index + 1),
                result=index + 2,
                expression=expression,
                strict=True,
                start=part.start,
                end=share.end,
                percent_base=True,
            )
        )
    return found


def _moves(body: str, mentions: Sequence[NumberMention]) -> list[WrittenCalculation]:
    """ "$190.68, up $2.35 (1.25%)": the percentage is the move over the previous
    level (190.68 - 2.35). Confirms only."""
    found: list[WrittenCalculation] = []
    for index in range(len(mentions) - 2):
        level, move, percent = mentions[index], mentions[index + 1], mentions[index + 2]
        if level.is_percent or move.is_percent or not percent.is_percent:
            continue
        if level.unit != move.unit:
            continue
        gap = body[level.end : move.start]
        signed_move = move.text[:1] in "+-\u2212" and not gap.strip(" ,")
        if not _MOVE_GAP.fullmatch(gap) and not signed_move:
            continue
        if not _MOVE_TO_PERCENT.fullmatch(body, move.end, percent.start):
            continue
        up = bool(_UP_WORDS.search(gap)) or move.text[:1] == "+"
        level_text = _operand_text(_unsigned(level), False, True)
        move_text = _operand_text(_unsigned(move), False, True)
        base = f"({level_text} - {move_text})" if up else f"({level_text} + {move_text})"
        found.append(
            WrittenCalculation(
                kind="move",
                operands=(index, index + 1),
                result=index + 2,
                expression=f"{move_text} / {base} * 100",
                strict=False,
                start=level.start,
                end=percent.end,
                percent_base=True,
            )
        )
    return found


def _elapsed(began: float) -> float:
    return round((time.perf_counter() - began) * 1000, 3)


# ------------------------------------------------------------------ linked expressions


@dataclass(frozen=True, slots=True)
class OperandFacts:
    """What the evidence says of one operand: the scale its digits stand in
    ("44.1" in a table "in millions" -> 1e6; None when nothing says), and whether
    the digits are exact or a rounding (of evidence, or of a value computed earlier
    in the report) whose last digit may be off by half a unit."""

    scale: Decimal | None = None
    inexact: bool = False
    cited: bool = False  # found in the evidence


_HUNDRED = Decimal(100)
_V = TypeVar("_V")
_NO_FACTS: dict[int, OperandFacts] = {}


def constant_roles(tree: Node, mentions: Sequence[NumberMention]) -> dict[int, str]:
    """The formula constants of an expression, by the place they hold in it:

    - ``hundred``: the 100 of "x 100" / "x 100%" (a ratio expressed as a percentage);
    - ``constant``: the n of an average ("/ 3"), a count of periods (x 4, / 365), the 1
      of "- 1" or "(1 + r)", the numbers of an exponent ("^(1/2)", "^0.5"), the 100% of
      a complement ("100% - 46.2%").

    A 100 that is divided by ("/ 100") is a constant only when it is not a cited value
    (decided by the caller); the base of a change ("(17 - 8) / 8") is the quantity it
    repeats; everything else is a quantity the evidence must support."""
    roles: dict[int, str] = {}
    # (node, its parent, which side of the parent it is, inside an exponent)
    stack: list[tuple[Node, Node | None, str, bool]] = [(tree, None, "", False)]
    while stack:
        node, parent_node, side, in_exponent = stack.pop()
        if node.op != "num":
            for child, child_side in ((node.left, "left"), (node.right, "right")):
                if child is not None:
                    exponent = in_exponent or (node.op == "^" and child_side == "right")
                    stack.append((child, node, child_side, exponent))
            continue
        mention = mentions[node.operand]
        if in_exponent and not (mention.unit or mention.has_explicit_scale):
            roles[node.operand] = "constant"  # "^(1/2)", "^0.5"
            continue
        parent = parent_node.op if parent_node is not None else ""
        if (
            mention.unit == "%"
            and mention.written == _HUNDRED
            and not mention.decimals
            and parent == "-"
            and side == "left"
        ):
            roles[node.operand] = "constant"  # the whole of a complement: 100% - 46.2%
            continue
        if not _plain_integer(mention):
            continue
        written = abs(mention.written)
        if written == _HUNDRED and parent == "*":
            roles[node.operand] = "hundred"
        elif mention.unit == "%" or (
            parent == "/" and side == "right" and _base_of_change(parent_node, written, mentions)
        ):
            continue
        elif (
            (parent == "/" and side == "right" and (written <= 12 or written in _PERIODS))
            or (parent == "*" and written in _PERIODS)
            or (written == 1 and parent in ("+", "-"))
        ):
            roles[node.operand] = "constant"
        elif written in (_HUNDRED, _THOUSAND) and parent == "/" and side == "right":
            roles[node.operand] = "divisor"
    return roles


def _base_of_change(
    division: Node | None, divisor: Decimal, mentions: Sequence[NumberMention]
) -> bool:
    """ "(new - old) / old": a number that divides a difference of which it is a term is
    the base of a change, never the n of an average."""
    dividend = division.left if division is not None else None
    if dividend is None or dividend.op != "-":
        return False
    return any(
        term is not None and term.op == "num" and abs(mentions[term.operand].written) == divisor
        for term in (dividend.left, dividend.right)
    )


def _same_number(one: NumberMention, other: NumberMention) -> bool:
    return (one.written, one.unit, one.scale) == (other.written, other.unit, other.scale)


def _plain_integer(mention: NumberMention) -> bool:
    return (
        mention.unit in ("", "%")
        and not mention.has_explicit_scale
        and not mention.negative
        and not mention.decimals
        and not (mention.separators and abs(mention.written) != _THOUSAND)
    )


_THOUSAND = Decimal(1000)
_PERIODS = frozenset(Decimal(n) for n in (4, 12, 52, 360, 365))


def _from_link(
    body: str, mentions: Sequence[NumberMention], link: Link
) -> WrittenCalculation | None:
    del body
    expression = link.expression
    target = mentions[link.result]
    if target.in_range:
        return None
    if link.result in expression.indices:
        return None
    if target.end <= expression.start and any(
        _same_number(mentions[index], target) for index in expression.indices
    ):
        # "20% of $66,608 million = 0.20 * $66,608 million": the number before "=" is an
        # operand written again, not what the expression computes.
        return None
    draft = WrittenCalculation(
        kind="equation",
        operands=expression.indices,
        result=link.result,
        expression="",
        strict=link.strict,
        start=0,
        end=0,
        tree=expression.tree,
    )
    values = operand_values(draft, mentions, _NO_FACTS)
    return WrittenCalculation(
        kind="equation",
        operands=expression.indices,
        result=link.result,
        expression=_render(draft, mentions, values),
        rendered_from=tuple(values.values.items()),
        strict=link.strict,
        start=min(expression.start, target.start),
        end=max(expression.end, target.end),
        percent_base=False,
        tree=expression.tree,
        approx=link.approx,
    )


@dataclass(frozen=True, slots=True)
class _Operands:
    """The operands as a calculation uses them (by mention index)."""

    values: dict[int, Fraction]  # as written; percentages as fractions unless all are
    scale: Decimal | None  # the one scale the quantities share (None: unknown)
    hundred: bool  # a plain 100 turns a ratio into a percentage
    all_percent: bool  # every operand that is not a constant is a percentage
    dimension: int | None  # 0: a ratio; 1: a quantity in the operands' units


def operand_values(
    calculation: WrittenCalculation,
    mentions: Sequence[NumberMention],
    facts: Mapping[int, OperandFacts],
) -> _Operands:
    tree = calculation.tree
    roles = constant_roles(tree, mentions) if tree is not None else {}
    cited = {index for index in calculation.operands if (facts.get(index) or _EXACT).cited}
    constant = {
        index: roles.get(index) in ("hundred", "constant")
        or (roles.get(index) == "divisor" and index not in cited)
        for index in calculation.operands
    }
    variables = [mentions[index] for index in calculation.operands if not constant[index]]
    all_percent = bool(variables) and all(mention.is_percent for mention in variables)
    scales: dict[int, Decimal | None] = {}
    for index in calculation.operands:
        mention = mentions[index]
        if constant[index] or mention.is_percent or mention.unit == "bp":
            continue
        fact = facts.get(index)
        if mention.has_explicit_scale or mention.scale_from_context:
            scales[index] = mention.scale
        elif fact is not None and fact.scale is not None:
            scales[index] = fact.scale
        else:
            scales[index] = None
    known = {scale for scale in scales.values() if scale is not None}
    mixed = len(known) > 1
    hundred = False
    values: dict[int, Fraction] = {}
    for index in calculation.operands:
        mention = mentions[index]
        number = calculations.exact(mention.written)
        if constant[index]:
            # "x 100" and "x 100%" express a ratio as a percentage.
            hundred = hundred or roles.get(index) == "hundred"
            values[index] = number
        elif mention.is_percent:
            values[index] = number if all_percent else number / 100
        elif mention.unit == "bp":
            values[index] = number / 10_000
        elif mixed:
            values[index] = number * Fraction(scales.get(index) or 1)
        else:
            values[index] = number
    dimension = None if tree is None else _dimension(tree, mentions, constant, all_percent)
    scale = None if mixed else (known.pop() if known else None)
    return _Operands(values, Decimal(1) if mixed else scale, hundred, all_percent, dimension)


def _dimension(
    tree: Node,
    mentions: Sequence[NumberMention],
    constant: Mapping[int, bool],
    all_percent: bool,
) -> int | None:
    """Dimensional analysis: a quantity operand counts 1, a constant or a
    percentage (a fraction) 0; products add, quotients subtract. 0 is a ratio."""
    dims: dict[int, int | None] = {}
    stack: list[tuple[Node, bool]] = [(tree, False)]
    while stack:
        node, ready = stack.pop()
        if node.op == "num":
            mention = mentions[node.operand]
            quantity = not constant.get(node.operand, False) and (
                all_percent or not (mention.is_percent or mention.unit == "bp")
            )
            dims[id(node)] = 1 if quantity else 0
            continue
        if not ready:
            stack.append((node, True))
            stack.extend((child, False) for child in (node.left, node.right) if child)
            continue
        left = dims[id(node.left)] if node.left is not None else None
        right = dims[id(node.right)] if node.right is not None else None
        if node.op == "neg":
            dims[id(node)] = left
        elif left is None or right is None:
            dims[id(node)] = None
        elif node.op in "+-":
            dims[id(node)] = left if left == right else max(left, right)
        elif node.op == "*":
            dims[id(node)] = left + right
        elif node.op == "/":
            dims[id(node)] = left - right
        else:
            dims[id(node)] = 0 if left == 0 else None
    return dims[id(tree)]


def check_link(
    calculation: WrittenCalculation,
    mentions: Sequence[NumberMention],
    facts: Mapping[int, OperandFacts] | None = None,
) -> CheckedCalculation:
    """Judge the result of a parsed expression: its value, its scale and its
    percent-ness must all agree with the operands.

    - A ratio (dimension 0) written as a percentage is x 100 ("(a - b) / b = 6.67%"),
      unless the expression multiplies by 100 itself; "= 0.07%" is wrong.
    - A quantity (dimension 1) keeps the operands' units: an average of percentages
      is a percentage, and a result written with a scale word must carry the scale
      the operands stand in (from their own words or from the evidence): 44.1 - 56.7
      in a table "in millions" is -12.6 million, not -12.6 thousand.
    - Equality is at the precision the result shows (a whole last digit when hedged),
      widened by how far operands rounded in the report could move the result.
    """
    tree = calculation.tree
    assert tree is not None
    facts = facts if facts is not None else _NO_FACTS
    began = time.perf_counter()
    target = mentions[calculation.result]
    operands = operand_values(calculation, mentions, facts)
    size = len(mentions)
    value = calculations.evaluate(tree, _vector(operands.values, size))
    expression = (
        calculation.expression
        if calculation.rendered_from and tuple(operands.values.items()) == calculation.rendered_from
        else _render(calculation, mentions, operands)
    )
    if value is None:
        try:
            calculate(expression)
            reason = "the expression has no value"
        except CalculatorError as exc:
            reason = str(exc)  # "division by zero", a bound exceeded
        return CheckedCalculation(
            calculation,
            correct=True,
            exact="",
            expected=None,
            tool_call=ToolCallRecord(
                tool="calculator",
                input={"expression": expression},
                error=reason,
                duration_ms=_elapsed(began),
            ),
        )
    try:
        exact = calculate(expression).exact
        call = ToolCallRecord(
            tool="calculator",
            input={"expression": expression},
            output=exact,
            duration_ms=_elapsed(began),
        )
    except CalculatorError as exc:
        exact = _plain(_decimal(value))
        call = ToolCallRecord(
            tool="calculator",
            input={"expression": expression},
            error=str(exc),
            duration_ms=_elapsed(began),
        )
    slack = _slack(tree, calculation, operands.values, mentions, facts, value)
    written = abs(calculations.exact(target.written))
    approx = calculation.approx
    error = ""
    scale_fix: Decimal | None = None
    expected = value
    if target.is_percent:
        if operands.dimension == 0 and not operands.hundred:
            expected, slack = value * 100, slack * 100
            correct = _close(expected, written, target, slack, approx)
            if not correct:
                shown_as_fraction = _close(value, written, target, slack / 100, approx)
                error = "percent" if shown_as_fraction else "value"
        else:
            correct = _close(value, written, target, slack, approx)
            error = "" if correct else "value"
    elif operands.dimension == 1 and target.has_explicit_scale and operands.scale is not None:
        in_full = value * Fraction(operands.scale)
        expected = in_full / Fraction(target.scale)
        ratio = Fraction(operands.scale) / Fraction(target.scale)
        correct = _close(expected, written, target, slack * ratio, approx)
        converted = operands.scale * _conversion(calculation.tree, mentions)
        if (
            not correct
            and converted == target.scale
            and _close(value, written, target, slack, approx)
        ):
            # "$7,412 million / 1,000 = $7.412 billion": dividing by 1,000 writes the
            # same amount in the next scale word, it does not divide the amount.
            correct, expected = True, value
        elif not correct and _close(value, written, target, slack, approx):
            error, scale_fix, expected = "scale", operands.scale, written
        elif not correct:
            error = "value"
    else:
        correct = _close(value, written, target, slack, approx)
        if not correct and operands.scale not in (None, Decimal(1)):
            assert operands.scale is not None
            full = value * Fraction(operands.scale)  # the full number written out
            correct = not target.has_explicit_scale and _close(
                full, written, target, Fraction(0), approx
            )
        error = "" if correct else "value"
    return CheckedCalculation(
        calculation,
        correct=correct,
        exact=exact,
        expected=_decimal(abs(expected)),
        tool_call=call,
        error=error,
        scale_fix=scale_fix,
    )


def _vector(values: Mapping[int, Fraction], size: int) -> Sequence[Fraction | None]:
    return _Sparse(values, size, None)


class _Sparse(Sequence[_V]):
    """A vector by mention index that holds only a calculation's operands (any other
    index reads as `default`). A list as long as the report for each calculation
    made a report of thousands of calculations quadratic."""

    __slots__ = ("_default", "_size", "_values")

    def __init__(self, values: Mapping[int, _V], size: int, default: _V) -> None:
        self._values, self._size, self._default = values, size, default

    def __len__(self) -> int:
        return self._size

    def __getitem__(self, index: int) -> _V:  # type: ignore[override]
        return self._values.get(index, self._default)


def _slack(
    tree: Node,
    calculation: WrittenCalculation,
    written: Mapping[int, Fraction],
    mentions: Sequence[NumberMention],
    facts: Mapping[int, OperandFacts],
    value: Fraction,
) -> Fraction:
    """How far the result may move when each inexact operand moves by half its
    last digit (a first-order bound, summed over at most six operands)."""
    total = Fraction(0)
    inexact = [
        index
        for index in calculation.operands
        if (facts.get(index) or _EXACT).inexact and index in written
    ]
    for index in inexact[:6]:
        mention = mentions[index]
        step = Fraction(1, 2 * 10**mention.decimals)
        if written[index] != calculations.exact(mention.written) and mention.written:
            step *= abs(
                written[index] / calculations.exact(mention.written)
            )  # same units as `written`
        moved = dict(written)
        moved[index] = written[index] + step
        shifted = calculations.evaluate(tree, _vector(moved, len(mentions)))
        if shifted is not None:
            total += abs(shifted - value)
    return total


_EXACT = OperandFacts()


_NUDGE = Fraction(1000000001, 1000000000)  # equality survives a last-digit tie


def _close(
    expected: Fraction, written: Fraction, target: NumberMention, slack: Fraction, approx: bool
) -> bool:
    """`expected` equals the written result at the precision shown (a whole last
    digit when the report hedges), give or take `slack`."""
    quantum = Fraction(1, 10**target.decimals) if target.decimals >= 0 else Fraction(1)
    half = quantum if (approx or target.approx) else quantum / 2
    tolerance = half * _NUDGE + slack
    magnitude = abs(expected)
    if abs(magnitude - written) <= tolerance:
        return True
    if abs(magnitude - written) <= quantum * DOUBLE_ROUNDING + slack:
        return True  # rounded in steps: 6.3949 to 6.395, then to 6.40
    # Truncated rather than rounded (101.497 shown as 101.4): the digits shown are
    # the value's own, cut short.
    return written <= magnitude < written + quantum + slack


# How far from the digits shown a value rounded in steps can be (0.5 + 0.05 + 0.005
# ... of a unit in the last place): 6.3949 shown as 6.40 is rounded, 6.3933 is not.
DOUBLE_ROUNDING = Fraction(5, 9)


def _conversion(tree: Node | None, mentions: Sequence[NumberMention]) -> Decimal:
    """How a written calculation moves its amount between scale words: x1,000 for a
    division by a bare 1,000 ("$7,412 million / 1,000 = $7.412 billion"), /1,000 for a
    multiplication by one; 1 when it does neither."""
    if tree is None or tree.op not in ("/", "*") or tree.right is None:
        return Decimal(1)
    right = tree.right
    if right.op != "num":
        return Decimal(1)
    constant = mentions[right.operand]
    if constant.written not in _THOUSANDS or constant.unit or constant.has_explicit_scale:
        return Decimal(1)
    return constant.written if tree.op == "/" else 1 / constant.written


_THOUSANDS = frozenset((Decimal(1000), Decimal(1_000_000)))


def _power_of_ten(ratio: Fraction) -> Decimal | None:
    if ratio <= 0:
        ratio = abs(ratio)
    if ratio == 0:
        return None
    exponent = round(math.log10(float(ratio)))
    if abs(float(ratio) / 10**exponent - 1) > 1e-6:
        return None
    return Decimal(10) ** exponent


def _render(
    calculation: WrittenCalculation, mentions: Sequence[NumberMention], operands: _Operands
) -> str:
    """The calculator input: operands as the report writes their digits, unless the
    calculation had to convert them (a percentage to a fraction, mixed scales)."""
    assert calculation.tree is not None
    texts: dict[int, str] = {}
    for index, operand in operands.values.items():
        mention = mentions[index]
        same = operand == calculations.exact(mention.written)
        texts[index] = _written_text(mention) if same else _fraction_text(operand)
    return calculations.render(calculation.tree, _Sparse(texts, len(mentions), ""))


def _written_text(mention: NumberMention) -> str:
    """The operand's digits as the report shows them ("0.50"), signed, no separators."""
    digits = mention.text[mention.num_start - mention.start : mention.num_end - mention.start]
    digits = digits.replace(",", "")
    return f"(-{digits})" if mention.written < 0 else digits


def _fraction_text(value: Fraction) -> str:
    text = _plain(_decimal(abs(value)))
    return f"(-{text})" if value < 0 else text


def _decimal(value: Fraction) -> Decimal:
    return Decimal(value.numerator) / Decimal(value.denominator)
