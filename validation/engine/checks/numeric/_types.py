"""Types both halves of the numeric check share: a number as written (`NumberMention`),
an expression written in the report (`Node`, `Expression`, `Link`) and a written
calculation checked (`WrittenCalculation`, `CheckedCalculation`).

They live apart so that reading numbers, the evidence index and the arithmetic can
all import them without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction

from validation.engine.types import ToolCallRecord


@dataclass(slots=True)
class NumberMention:
    """One number as written in a text.

    `written` is the signed number as shown ("$14.8B" -> 14.8, "(1,234)" -> -1234);
    `value` is `written * scale` (14_800_000_000). Percentages keep their written
    value (22.5 for "22.5%"); matching converts them. `decimals` is the precision
    shown (digits after the point). `unit` is "%", "pp", "bp", "x", a currency
    symbol or code ("$", "€", "USD", ...) or "". `scale_from_context` marks a scale
    taken from "(in millions)" and the like rather than from the number itself.
    `num_start`/`num_end` span just the digits, so a fix can keep the format.
    Treat it as read-only (it is not frozen only because frozen dataclasses are
    several times slower to create, and reports have hundreds of numbers).
    """

    text: str
    start: int
    end: int
    num_start: int
    num_end: int
    written: Decimal
    value: Decimal
    decimals: int
    unit: str = ""
    currency: str = ""
    scale: Decimal = Decimal(1)
    scale_text: str = ""
    scale_from_context: bool = False
    negative: bool = False
    parens: bool = False
    separators: bool = False
    approx: bool = False
    in_table: bool = False
    in_range: bool = False
    label: str = ""
    tokens: frozenset[str] = field(default_factory=frozenset)

    @property
    def is_percent(self) -> bool:
        return self.unit in ("%", "pp")

    @property
    def has_explicit_scale(self) -> bool:
        return self.scale != 1 and not self.scale_from_context

    @property
    def quantum(self) -> Decimal:
        """One unit in the last place shown, in the units of `value`."""
        return Decimal(1).scaleb(-self.decimals) * self.scale

    @property
    def significant_digits(self) -> int:
        digits = str(abs(self.written)).replace(".", "").lstrip("0")
        return max(1, len(digits))

    def is_plain_integer(self) -> bool:
        return (
            self.decimals == 0
            and not self.unit
            and self.scale == 1
            and not self.separators
            and not self.negative
        )


@dataclass(slots=True)
class _Raw:
    start: int
    end: int
    num_start: int
    num_end: int
    number: str
    sign: str
    currency: str
    suffix: str
    unit: str
    scale: Decimal
    scale_text: str
    parens: bool
    approx: bool
    in_range: bool = False
    scale_from_context: bool = False


# ------------------------------------------------------------------ expression trees


@dataclass(frozen=True, slots=True)
class Node:
    """A parsed expression: a number (``operand`` is a mention index) or an
    operation ``op`` over ``left`` and ``right`` ("neg" has only ``left``)."""

    op: str  # "num", "+", "-", "*", "/", "^", "neg"
    operand: int = -1
    left: Node | None = None
    right: Node | None = None
    paren: bool = False  # written inside parentheses (kept when rendered)

    def operands(self) -> list[int]:
        found: list[int] = []
        stack: list[Node] = [self]
        while stack:
            node = stack.pop()
            if node.op == "num":
                found.append(node.operand)
                continue
            if node.right is not None:
                stack.append(node.right)
            if node.left is not None:
                stack.append(node.left)
        return found


@dataclass(frozen=True, slots=True)
class Expression:
    """One side of a link with at least one operator: its tree and span."""

    tree: Node
    indices: tuple[int, ...]  # mention indices, in text order
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Link:
    """``expression`` is written to equal the mention ``result``."""

    expression: Expression
    result: int
    approx: bool = False
    strict: bool = True  # a wrong result is a finding (else the link only confirms)


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
