"""The safe calculator (docs/spec.md §13)."""

import re
import time
from decimal import Decimal

import pytest

from validation.engine.calculator import (
    MAX_CHARS,
    CalculatorError,
    calculate,
    evaluate,
    normalize,
)


def test_basic_arithmetic() -> None:
    assert evaluate("2 + 3 * 4") == 14
    assert evaluate("(2 + 3) * 4") == 20
    assert evaluate("7 // 2") == 3
    assert evaluate("7 % 4") == 3
    assert evaluate("2 ** 10") == 1024


def test_the_eps_surprise_percentage() -> None:
    result = calculate("(0.50 - 0.45) / 0.45 * 100")
    assert result.value.quantize(Decimal("0.01")) == Decimal("11.11")
    assert result.exact.startswith("11.1111111111")
    assert not result.terminating


def test_decimal_arithmetic_is_exact() -> None:
    assert evaluate("0.1 + 0.2") == Decimal("0.3")
    assert evaluate("1 / 3 * 3") == 1
    assert calculate("15.5 - 0.7").exact == "14.8"
    assert calculate("15.5 - 0.7").terminating


def test_negative_numbers_and_unary_signs() -> None:
    assert evaluate("-5 + 3") == -2
    assert evaluate("-(-3)") == 3
    assert evaluate("+4") == 4


def test_whitelisted_functions() -> None:
    assert evaluate("abs(-2.5)") == Decimal("2.5")
    assert evaluate("round(2.675, 2)") == Decimal("2.68")  # exact value, halves to even
    assert evaluate("round(2.5)") == 2
    assert evaluate("min(3, 1, 2)") == 1
    assert evaluate("max([3, 1, 2])") == 3
    assert evaluate("sum(1, 2, 3)") == 6
    assert evaluate("sum([1, 2, 3])") == 6
    assert evaluate("sqrt(16)") == 4
    assert evaluate("log10(1000)") == 3
    assert evaluate("log(100, 10)") == 2
    assert evaluate("log(1)") == 0


def test_unicode_operators_and_thousands_separators() -> None:
    assert evaluate("15.5 \u00d7 2 \u2212 1") == 30
    assert evaluate("10 ÷ 4") == Decimal("2.5")
    assert evaluate("10,899 + 9,976") == 20875
    assert evaluate("1,000.5 * 2") == Decimal("2001")
    assert evaluate("15.5 - 0.7 =") == Decimal("14.8")


def test_commas_inside_a_call_separate_arguments() -> None:
    assert evaluate("max(1,234)") == 234
    assert normalize("max(1,234) + 1,234") == "max(1,234) + 1234"


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("1 / 0", "division by zero"),
        ("5 // 0", "division by zero"),
        ("5 % 0", "division by zero"),
        ("0 ** -1", "division by zero"),
        ("x + 1", "the name 'x'"),
        ("__import__('os')", "not an allowed function"),
        ("(1).real", "attribute access"),
        ("'abc'", "the constant 'abc'"),
        ("lambda: 1", "a lambda"),
        ("[x for x in (1, 2)]", "a comprehension"),
        ("(1, 2)[0]", "indexing"),
        ("1 < 2", "a comparison"),
        ("True + 1", "the constant True"),
        ("1j", "the constant 1j"),
        ("import os", "not a valid arithmetic expression"),
        ("1 +", "not a valid arithmetic expression"),
        ("", "empty expression"),
        ("   ", "empty expression"),
        ("2 ^ 3", "'^' is not a power operator"),
        ("$5 + 1", "currency symbol"),
        ("1,23", "a tuple"),
        ("sqrt(-1)", "negative"),
        ("log(0)", "not positive"),
        ("(-8) ** 0.5", "not a real number"),
        ("round(1, 2, 3)", "takes 1 to 2 argument"),
        ("min()", "at least one argument"),
        ("abs(x=1)", "keyword arguments"),
        ("sum(*[1])", "starred"),
    ],
)
def test_refusals_have_clear_messages(expression: str, message: str) -> None:
    with pytest.raises(CalculatorError, match=re.escape(message)):
        evaluate(expression)


@pytest.mark.parametrize(
    "bomb",
    [
        "9**9**9",
        "10**10**10",
        "2**-100000",
        "(1/3)**100000",
        "10**100 * 10**100",
        "1e999",
        "1e-99999999",
        "9" * 150,
        "sqrt(10**100) ** 10**5",
        "(" * 300 + "1" + ")" * 300,
        "-" * 450 + "1",
        "1+" * 150 + "1",
        "1" * (MAX_CHARS + 1),
    ],
)
def test_bombs_fail_fast_with_a_clear_error(bomb: str) -> None:
    began = time.process_time()
    with pytest.raises(CalculatorError):
        evaluate(bomb)
    # Generous bound: the point is "no hang", not a benchmark. CPU time of this process,
    # so a busy machine's scheduling (a CI run once stalled 0.52 s) does not count.
    assert time.process_time() - began < 0.5


def test_large_but_reasonable_numbers_work() -> None:
    assert evaluate("10**15 * 3") == 3 * 10**15
    assert evaluate("123456789012 + 1") == 123456789013


def test_calculator_error_is_a_value_error() -> None:
    assert issubclass(CalculatorError, ValueError)


def test_non_string_input_is_refused() -> None:
    with pytest.raises(CalculatorError, match="must be a string"):
        evaluate(42)  # type: ignore[arg-type]
