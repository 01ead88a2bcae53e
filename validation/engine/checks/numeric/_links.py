"""Linked expressions checked: what the evidence says of each operand, the roles of
formula constants, the operand values in the result's units, and `check_link`.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from decimal import Decimal
from fractions import Fraction

from validation.engine.calculator import CalculatorError, calculate
from validation.engine.checks.numeric import _calculations as calculations
from validation.engine.checks.numeric import _expressions as expressions
from validation.engine.checks.numeric._precision import (
    _EXACT,
    OperandFacts,
    _close,
    _conversion,
    _decimal,
    _elapsed,
    _Operands,
    _plain,
    _render,
    _slack,
    _vector,
)
from validation.engine.checks.numeric._types import (
    CheckedCalculation,
    Link,
    Node,
    NumberMention,
    WrittenCalculation,
)
from validation.engine.types import ToolCallRecord

_HUNDRED = Decimal(100)
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
    value = expressions.evaluate(tree, _vector(operands.values, size))
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
