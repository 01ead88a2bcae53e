"""Expression trees parsed and used: the parser of one side of a link, exact
evaluation (as fractions), subexpressions, and rendering a tree for the calculator.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from fractions import Fraction

from validation.engine.checks.numeric._types import Node
from validation.engine.errors import EngineError

_BOUND = Fraction(10) ** 60


class _Parser:
    """Precedence climbing over numbers (mention indices) and operator characters.
    ``^`` binds tightest and is right-associative; unary minus applies to a factor."""

    _PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2, "^": 3}

    def __init__(self, tokens: list[str | int]) -> None:
        self.tokens = tokens
        self.position = 0

    def parse(self) -> Node | None:
        try:
            node = self._expression(1)
        except _ParseError:
            return None
        if self.position != len(self.tokens):
            return None
        return node

    def _peek(self) -> str | int | None:
        return self.tokens[self.position] if self.position < len(self.tokens) else None

    def _expression(self, minimum: int) -> Node:
        left = self._unary()
        while True:
            token = self._peek()
            if not isinstance(token, str) or token not in self._PRECEDENCE:
                return left
            precedence = self._PRECEDENCE[token]
            if precedence < minimum:
                return left
            self.position += 1
            following = precedence if token == "^" else precedence + 1
            right = self._expression(following)
            left = Node(token, left=left, right=right)

    def _unary(self) -> Node:
        token = self._peek()
        if token == "-":
            self.position += 1
            return Node("neg", left=self._unary())
        if token == "+":
            self.position += 1
            return self._unary()
        return self._primary()

    def _primary(self) -> Node:
        token = self._peek()
        if isinstance(token, int):
            self.position += 1
            return Node("num", operand=token)
        if token == "(":
            self.position += 1
            node = self._expression(1)
            if self._peek() != ")":
                raise _ParseError
            self.position += 1
            return replace(node, paren=True) if node.op != "num" else node
        raise _ParseError


class _ParseError(EngineError):
    pass


# ------------------------------------------------------------------ evaluation


def evaluate(node: Node, values: Sequence[Fraction | None]) -> Fraction | None:
    """The exact value of `node` with operand values `values` (by mention index);
    None when undefined (division by zero, a root of a negative, out of bounds)."""
    return _evaluate(node, values)[id(node)]


def evaluate_all(node: Node, values: Sequence[Fraction | None]) -> list[Fraction | None]:
    """The values of every operation of the tree, in one pass (what the report
    computes on its way to the result)."""
    results = _evaluate(node, values)
    return [results[id(operation)] for operation in subexpressions(node)]


def _evaluate(node: Node, values: Sequence[Fraction | None]) -> dict[int, Fraction | None]:
    results: dict[int, Fraction | None] = {}
    stack: list[tuple[Node, bool]] = [(node, False)]
    while stack:
        current, ready = stack.pop()
        if current.op == "num":
            results[id(current)] = values[current.operand]
            continue
        if not ready:
            stack.append((current, True))
            if current.right is not None:
                stack.append((current.right, False))
            if current.left is not None:
                stack.append((current.left, False))
            continue
        left = results[id(current.left)] if current.left is not None else None
        right = results[id(current.right)] if current.right is not None else None
        results[id(current)] = _apply(current.op, left, right)
    return results


def subexpressions(node: Node) -> list[Node]:
    """Every operation node of the tree (the values a report computes on its way)."""
    found: list[Node] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if current.op == "num":
            continue
        found.append(current)
        if current.left is not None:
            stack.append(current.left)
        if current.right is not None:
            stack.append(current.right)
    return found


def _apply(op: str, left: Fraction | None, right: Fraction | None) -> Fraction | None:
    if left is None or (op != "neg" and right is None):
        return None
    if op == "neg":
        value: Fraction = -left
    else:
        assert right is not None
        if op == "+":
            value = left + right
        elif op == "-":
            value = left - right
        elif op == "*":
            value = left * right
        elif op == "/":
            if right == 0:
                return None
            value = left / right
        else:
            return _power(left, right)
    return value if abs(value) <= _BOUND else None


def _power(base: Fraction, exponent: Fraction) -> Fraction | None:
    if abs(exponent) > 100:
        return None
    if exponent.denominator == 1 and base != 0:
        if abs(base) > 1 and abs(exponent) * math.log10(abs(float(base))) > 60:
            return None
        return base ** int(exponent)
    if base < 0 or (base == 0 and exponent < 0):
        return None
    try:
        result = float(base) ** float(exponent)
    except (OverflowError, ZeroDivisionError):
        return None
    if math.isnan(result) or math.isinf(result) or abs(result) > 1e60:
        return None
    return Fraction(result)


def render(node: Node, texts: Sequence[str]) -> str:
    """`node` as calculator input, with each operand written as `texts[index]`."""
    parts: list[str] = []
    stack: list[tuple[Node | str, int]] = [(node, 0)]
    while stack:
        item, parent = stack.pop()
        if isinstance(item, str):
            parts.append(item)
            continue
        if item.op == "num":
            parts.append(texts[item.operand])
            continue
        if item.op == "neg":
            assert item.left is not None
            if item.paren:
                stack.append((")", 0))
            stack.append((item.left, 4))
            stack.append(("-", 0))
            if item.paren:
                stack.append(("(", 0))
            continue
        precedence = {"+": 1, "-": 1, "*": 2, "/": 2, "^": 3}[item.op]
        wrap = precedence < parent or item.paren
        symbol = {"^": " ** "}.get(item.op, f" {item.op} ")
        assert item.left is not None and item.right is not None
        right_parent = precedence + 1 if item.op != "^" else precedence
        left_parent = precedence if item.op != "^" else precedence + 1
        if wrap:
            stack.append((")", 0))
        stack.append((item.right, right_parent))
        stack.append((symbol, 0))
        stack.append((item.left, left_parent))
        if wrap:
            stack.append(("(", 0))
    return "".join(parts)
