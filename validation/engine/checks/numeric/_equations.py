"""Written calculations found in prose: equations (`a - b = c`), changes ("from $X to
$Y, up Z%"), shares ("A of B (Z%)") and moves ("$190.68, up $2.35 (1.25%)").
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import replace
from decimal import Decimal

from validation.engine.checks.numeric._precision import _plain
from validation.engine.checks.numeric._types import NumberMention, WrittenCalculation

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
