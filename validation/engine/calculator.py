"""The safe calculator (docs/spec.md §13).

`evaluate("(0.50 - 0.45) / 0.45 * 100")` walks the parsed AST and never calls
`eval`/`exec`. Whitelist: numeric constants, `+ - * / // % **`, unary `+ -`, and
`abs round min max sum sqrt log log10`. Everything else (names, attributes,
strings, lambdas, comprehensions, subscripts, imports...) is a CalculatorError.

Why not simpleeval (installed): it computes with binary floats (0.1 + 0.2 !=
0.3), its power guard only bounds the operands (3999999 ** 3999999 still runs)
and it has no node or depth limits. This walker is ~150 lines and exact:

- `+ - * / // % **` (integer exponents) run on `fractions.Fraction`, so
  0.1 + 0.2 == 0.3 and 1 / 3 * 3 == 1 exactly. `sqrt`, `log`, `log10` and
  non-integer exponents use `decimal` at 40 significant digits.
- Every intermediate result is bounded (|x| <= 1e100, numerator and
  denominator < 10**400) and a power's size is estimated *before* computing it
  (digits ~= exponent * log10(base)), so `9**9**9` fails in microseconds.
- Input: at most 500 characters, 200 AST nodes, nesting depth 40.

Accepted spellings: `x` and `÷`, the minus signs `-` and `-`, a trailing `=`,
and thousands separators inside numbers (`10,899 + 9,976`) - but only outside a
function call's parentheses, where a comma separates arguments (`max(1,234)` is
max(1, 234)). `%` stays the modulo operator (§13); callers turn
percentages into fractions before calling (22.5% -> 0.225). `^` is refused
(it is not a power in Python).
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Context, Decimal, DivisionByZero, InvalidOperation, Overflow, localcontext
from fractions import Fraction
from functools import lru_cache

from validation.engine.errors import EngineError

MAX_CHARS = 500
MAX_NODES = 200
MAX_DEPTH = 40
MAX_LOG10 = 100  # |intermediate| <= 10**100
MAX_DIGITS = 400  # numerator and denominator stay below 10**400
RESULT_DIGITS = 28  # significant digits of the returned Decimal

_DECIMAL = Context(prec=40, Emax=999_999, Emin=-999_999, traps=[InvalidOperation, Overflow])
_OUTPUT = Context(prec=RESULT_DIGITS, traps=[InvalidOperation, Overflow, DivisionByZero])
_BOUND = Fraction(10) ** MAX_LOG10
_DIGIT_BOUND = 10**MAX_DIGITS

_TRANSLATE = str.maketrans({"\u00d7": "*", "÷": "/", "\u2212": "-", "\u2013": "-", "\u00a0": " "})
_THOUSANDS = re.compile(r"(?<![\w.])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\w,])")


class CalculatorError(EngineError, ValueError):
    """An expression the calculator refuses or cannot compute; the message says why."""


@dataclass(frozen=True, slots=True)
class Calculation:
    """What `calculate` returns.

    `value` is the result rounded to 28 significant digits; `exact` is its plain
    decimal text (no exponent, no trailing zeros), and `terminating` tells whether
    `exact` is the whole truth (100/9 = 11.11... is not)."""

    expression: str
    value: Decimal
    exact: str
    terminating: bool


def evaluate(expression: str) -> Decimal:
    """Evaluate a whitelisted arithmetic expression; see the module docstring."""
    return calculate(expression).value


def calculate(expression: str) -> Calculation:
    """Evaluate `expression`; the result with its exact text (see Calculation)."""
    if not isinstance(expression, str):
        raise CalculatorError("the expression must be a string")
    outcome = _calculate(expression)
    if isinstance(outcome, str):
        raise CalculatorError(outcome) from None
    return outcome


@lru_cache(maxsize=2048)
def _calculate(expression: str) -> Calculation | str:
    # Pure and deterministic, so re-validating a revision reuses earlier results.
    # A refusal is remembered too (as its message): a report repeating "9**9**9"
    # would otherwise parse and bound the same bomb once per occurrence.
    try:
        normalized = normalize(expression)
        result = _two_numbers(normalized)
        if result is None:
            result = _Walker(normalized).run()
        value = _to_decimal(result)
    except CalculatorError as error:
        return str(error)
    return Calculation(normalized, value, format_plain(value), _terminates(result))


# Two plain numbers and one of + - * / ("15.5 - 0.7"), and a change in percent of them
# ("(12 - 10) / 10 * 100"): most of what the engine writes. Each literal is one Python reads
# the same way (no leading zero, at most 30 characters: inside every bound), so the walk
# over its parse tree would give the same value, step by step.
_NUMBER = r"[ ]*((?:0|[1-9][0-9]*)(?:\.[0-9]+)?)[ ]*"
_TWO_NUMBERS = re.compile(rf"{_NUMBER}([-+*/]){_NUMBER}")
_CHANGE = re.compile(rf"[ ]*\({_NUMBER}([-+]){_NUMBER}\)[ ]*([*/]){_NUMBER}([*/]){_NUMBER}")


def _two_numbers(text: str) -> Fraction | None:
    """`text`'s value when it has one of those two forms, else None (it is parsed)."""
    found = _TWO_NUMBERS.fullmatch(text) or _CHANGE.fullmatch(text)
    if found is None:
        return None
    parts = found.groups()
    if any(len(part) > 30 for part in parts[::2]):
        return None
    value = Fraction(Decimal(parts[0]))
    for op, literal in zip(parts[1::2], parts[2::2], strict=True):
        value = _step(value, op, Fraction(Decimal(literal)))
    return value


def _step(left: Fraction, op: str, right: Fraction) -> Fraction:
    if op == "+":
        return _check(left + right)
    if op == "-":
        return _check(left - right)
    if op == "*":
        return _check(left * right)
    if not right:
        raise CalculatorError("division by zero")
    return _check(left / right)


def clear_cache() -> None:
    """Forget remembered results (for cold-start benchmarks)."""
    _calculate.cache_clear()


def normalize(expression: str) -> str:
    """The expression as the calculator parses it (unicode operators replaced,
    thousands separators removed, a trailing `=` dropped)."""
    if not isinstance(expression, str):
        raise CalculatorError("the expression must be a string")
    if len(expression) > MAX_CHARS:
        raise CalculatorError(f"expression is longer than {MAX_CHARS} characters")
    text = expression.translate(_TRANSLATE).strip()
    text = text.removesuffix("=").strip()
    if not text:
        raise CalculatorError("empty expression")
    if "^" in text:
        raise CalculatorError("'^' is not a power operator; write powers as a ** b")
    for symbol in "$€£¥₹":
        if symbol in text:
            raise CalculatorError(f"remove the currency symbol {symbol!r}; pass plain numbers")
    return _drop_thousands_separators(text)


def _drop_thousands_separators(text: str) -> str:
    # A comma is an argument separator inside a call's parentheses and a thousands
    # separator elsewhere; track which kind of parenthesis we are in.
    if "," not in text:
        return text  # no separator to drop (most expressions the engine writes)
    out: list[str] = []
    stack: list[bool] = []  # True for a call's parentheses
    pos = 0
    while pos < len(text):
        char = text[pos]
        if char == "(":
            before = text[:pos].rstrip()
            stack.append(bool(before) and (before[-1].isalnum() or before[-1] == "_"))
        elif char == ")" and stack:
            stack.pop()
        elif char.isdigit() and not any(stack):
            match = _THOUSANDS.match(text, pos)
            if match and (pos == 0 or not (text[pos - 1].isalnum() or text[pos - 1] in "._")):
                out.append(match.group().replace(",", ""))
                pos = match.end()
                continue
        out.append(char)
        pos += 1
    return "".join(out)


def format_plain(value: Decimal) -> str:
    """`Decimal` as plain text: no exponent, no trailing fractional zeros."""
    if not value.is_finite():
        return str(value)
    text = format(value, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _to_decimal(value: Fraction) -> Decimal:
    with localcontext(_OUTPUT):
        return Decimal(value.numerator) / Decimal(value.denominator)


def _terminates(value: Fraction) -> bool:
    denominator = value.denominator
    for prime in (2, 5):
        while denominator % prime == 0:
            denominator //= prime
    return denominator == 1 and len(str(value.numerator)) <= RESULT_DIGITS


def _decimal(value: Fraction) -> Decimal:
    with localcontext(_DECIMAL):
        return Decimal(value.numerator) / Decimal(value.denominator)


def _fraction(value: Decimal) -> Fraction:
    return Fraction(value)


def _log10_abs(value: Fraction) -> float:
    return math.log10(abs(value.numerator)) - math.log10(value.denominator)


def _check(value: Fraction) -> Fraction:
    if abs(value) > _BOUND:
        raise CalculatorError(f"intermediate result exceeds 1e{MAX_LOG10}")
    if abs(value.numerator) >= _DIGIT_BOUND or value.denominator >= _DIGIT_BOUND:
        raise CalculatorError(f"intermediate result needs more than {MAX_DIGITS} digits")
    return value


_BINARY: dict[type[ast.operator], str] = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.Pow: "**",
}

_FUNCTIONS = ("abs", "round", "min", "max", "sum", "sqrt", "log", "log10")


class _Walker:
    def __init__(self, text: str) -> None:
        self.text = text

    def run(self) -> Fraction:
        try:
            tree = ast.parse(self.text, mode="eval")
        except SyntaxError as exc:
            raise CalculatorError(f"not a valid arithmetic expression: {exc.msg}") from None
        except (ValueError, MemoryError, RecursionError) as exc:
            raise CalculatorError(f"not a valid arithmetic expression: {exc}") from None
        self._limits(tree)
        try:
            return self._eval(tree.body)
        except ZeroDivisionError:
            raise CalculatorError("division by zero") from None
        except (InvalidOperation, Overflow, DivisionByZero, OverflowError) as exc:
            raise CalculatorError(f"cannot compute: {type(exc).__name__}") from None

    def _limits(self, tree: ast.AST) -> None:
        count = 0
        stack: list[tuple[ast.AST, int]] = [(tree, 0)]
        while stack:
            node, depth = stack.pop()
            count += 1
            if count > MAX_NODES:
                raise CalculatorError(f"expression has more than {MAX_NODES} parts")
            if depth > MAX_DEPTH:
                raise CalculatorError(f"expression is nested deeper than {MAX_DEPTH} levels")
            # `ast.iter_child_nodes` inlined (the same children in the same order),
            # without its two generators per node.
            below = depth + 1
            for name in node._fields:
                field = getattr(node, name, None)
                if isinstance(field, ast.AST):
                    stack.append((field, below))
                elif isinstance(field, list):
                    stack.extend((item, below) for item in field if isinstance(item, ast.AST))

    def _eval(self, node: ast.expr) -> Fraction:
        if isinstance(node, ast.Constant):
            return self._constant(node)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
            operand = self._eval(node.operand)
            return -operand if isinstance(node.op, ast.USub) else operand
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            return self._binary(node.op, self._eval(node.left), self._eval(node.right))
        if isinstance(node, ast.Call):
            return self._call(node)
        raise CalculatorError(f"{_describe(node)} is not allowed; only numbers and arithmetic")

    def _constant(self, node: ast.Constant) -> Fraction:
        value = node.value
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise CalculatorError(f"{_describe(node)} is not allowed; only numbers and arithmetic")
        if isinstance(value, int):
            return _check(Fraction(value))
        # Read a float literal from its source text so 0.1 is exactly 1/10.
        source = self._segment(node) or repr(value)
        try:
            exact = Decimal(source.replace("_", ""))
        except InvalidOperation:
            exact = Decimal(repr(value))
        if not exact.is_finite():
            raise CalculatorError("number is not finite")
        if exact and abs(exact.adjusted()) > MAX_LOG10:
            raise CalculatorError(f"number {source} is outside 1e-{MAX_LOG10}..1e{MAX_LOG10}")
        return _check(_fraction(exact))

    def _segment(self, node: ast.Constant) -> str | None:
        """The literal's source text: a slice of an ASCII one-line expression (its
        offsets count UTF-8 bytes, so characters there), else as `ast` finds it."""
        one_line = node.lineno == node.end_lineno == 1 and node.end_col_offset is not None
        if one_line and self.text.isascii():
            return self.text[node.col_offset : node.end_col_offset]
        return ast.get_source_segment(self.text, node)

    def _binary(self, op: ast.operator, left: Fraction, right: Fraction) -> Fraction:
        if isinstance(op, ast.Add):
            return _check(left + right)
        if isinstance(op, ast.Sub):
            return _check(left - right)
        if isinstance(op, ast.Mult):
            return _check(left * right)
        if isinstance(op, ast.Div):
            return _check(left / right)
        if isinstance(op, ast.FloorDiv):
            return _check(Fraction(left // right))
        if isinstance(op, ast.Mod):
            return _check(left % right)
        return self._power(left, right)

    def _power(self, base: Fraction, exponent: Fraction) -> Fraction:
        if base == 0:
            if exponent < 0:
                raise ZeroDivisionError
            return Fraction(1) if exponent == 0 else Fraction(0)
        size = float(exponent) * _log10_abs(base)
        if size > MAX_LOG10:
            raise CalculatorError(f"result of a power would exceed 1e{MAX_LOG10}")
        if exponent.denominator == 1:
            digits = max(len(str(abs(base.numerator))), len(str(base.denominator)))
            if digits * abs(exponent.numerator) > MAX_DIGITS:
                raise CalculatorError(f"result of a power needs more than {MAX_DIGITS} digits")
            return _check(base**exponent.numerator)
        if base < 0:
            raise CalculatorError("a negative number to a fractional power is not a real number")
        if size < -MAX_LOG10:
            raise CalculatorError(f"result of a power is below 1e-{MAX_LOG10}")
        with localcontext(_DECIMAL):
            return _check(_fraction(_decimal(base) ** _decimal(exponent)))

    def _call(self, node: ast.Call) -> Fraction:
        if not isinstance(node.func, ast.Name) or node.func.id not in _FUNCTIONS:
            raise CalculatorError(
                f"{_describe(node.func)} is not an allowed function; allowed: "
                + ", ".join(_FUNCTIONS)
            )
        if node.keywords:
            raise CalculatorError("keyword arguments are not allowed")
        name = node.func.id
        args = self._arguments(name, node.args)
        handler = _HANDLERS[name]
        return _check(handler(args))

    def _arguments(self, name: str, nodes: list[ast.expr]) -> list[Fraction]:
        if name in ("sum", "min", "max") and len(nodes) == 1:
            only = nodes[0]
            if isinstance(only, ast.List | ast.Tuple):
                nodes = list(only.elts)
        for arg in nodes:
            if isinstance(arg, ast.Starred):
                raise CalculatorError("starred arguments are not allowed")
        return [self._eval(arg) for arg in nodes]


def _arity(name: str, args: list[Fraction], low: int, high: int) -> None:
    if not low <= len(args) <= high:
        wanted = str(low) if low == high else f"{low} to {high}"
        raise CalculatorError(f"{name}() takes {wanted} argument(s), got {len(args)}")


def _abs(args: list[Fraction]) -> Fraction:
    _arity("abs", args, 1, 1)
    return abs(args[0])


def _round(args: list[Fraction]) -> Fraction:
    _arity("round", args, 1, 2)
    places = 0
    if len(args) == 2:
        if args[1].denominator != 1 or abs(args[1]) > 40:
            raise CalculatorError("round() needs a whole number of places between -40 and 40")
        places = int(args[1])
    # Python's round(): halves go to the even neighbour, on the exact value.
    return Fraction(round(args[0], places))


def _min(args: list[Fraction]) -> Fraction:
    if not args:
        raise CalculatorError("min() needs at least one argument")
    return min(args)


def _max(args: list[Fraction]) -> Fraction:
    if not args:
        raise CalculatorError("max() needs at least one argument")
    return max(args)


def _sum(args: list[Fraction]) -> Fraction:
    return sum(args, Fraction(0))


def _sqrt(args: list[Fraction]) -> Fraction:
    _arity("sqrt", args, 1, 1)
    if args[0] < 0:
        raise CalculatorError("sqrt() of a negative number")
    with localcontext(_DECIMAL):
        return _fraction(_decimal(args[0]).sqrt())


def _log(args: list[Fraction]) -> Fraction:
    _arity("log", args, 1, 2)
    if any(arg <= 0 for arg in args):
        raise CalculatorError("log() of a number that is not positive")
    with localcontext(_DECIMAL):
        result = _decimal(args[0]).ln()
        if len(args) == 2:
            base = _decimal(args[1]).ln()
            if base == 0:
                raise CalculatorError("log() with base 1")
            result = result / base
        return _fraction(result)


def _log10(args: list[Fraction]) -> Fraction:
    _arity("log10", args, 1, 1)
    if args[0] <= 0:
        raise CalculatorError("log10() of a number that is not positive")
    with localcontext(_DECIMAL):
        return _fraction(_decimal(args[0]).log10())


_HANDLERS: dict[str, Callable[[list[Fraction]], Fraction]] = {
    "abs": _abs,
    "round": _round,
    "min": _min,
    "max": _max,
    "sum": _sum,
    "sqrt": _sqrt,
    "log": _log,
    "log10": _log10,
}


def _describe(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return f"the name {node.id!r}"
    if isinstance(node, ast.Attribute):
        return f"attribute access (.{node.attr})"
    if isinstance(node, ast.Constant):
        return f"the constant {node.value!r}"
    if isinstance(node, ast.BinOp | ast.UnaryOp):
        return f"the operator {type(node.op).__name__}"
    return {
        "Lambda": "a lambda",
        "ListComp": "a comprehension",
        "SetComp": "a comprehension",
        "DictComp": "a comprehension",
        "GeneratorExp": "a comprehension",
        "Subscript": "indexing",
        "Compare": "a comparison",
        "BoolOp": "a boolean operator",
        "IfExp": "a conditional expression",
        "NamedExpr": "an assignment",
        "JoinedStr": "a string",
        "List": "a list",
        "Tuple": "a tuple (use no commas between numbers)",
    }.get(type(node).__name__, f"{type(node).__name__} syntax")
