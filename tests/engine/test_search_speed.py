"""The pairwise search's and the calculator's shortcuts (issue 26 point 5) give what the
long way gives: a zero divisor or base is never a candidate, any other pair still is, and
a literal is read from its source text however the expression is laid out."""

from decimal import Decimal

from validation.engine.calculator import calculate
from validation.engine.checks.numeric import _operations as ops
from validation.engine.checks.numeric._paired import _Sorted


def test_a_ratio_never_divides_by_zero_but_zero_over_a_number_is_a_candidate() -> None:
    pairs = _Sorted([0.0, 5.0, 0.0]).pairs(ops.RATIO, 0.0, 10.0, False)
    assert (1, 0) not in pairs and (1, 2) not in pairs and (0, 2) not in pairs
    assert (0, 1) in pairs and (2, 1) in pairs  # 0 / 5 = 0 lies in [0, 10]


def test_a_share_or_product_skips_a_zero_amount_only() -> None:
    share = _Sorted([0.0, 2.0, 4.0]).pairs(ops.SHARE, 40.0, 60.0, False)
    assert share == [(1, 2)]  # 2 of 4 is 50 %; nothing of 0
    product = _Sorted([50.0, 0.0, 8.0]).pairs(ops.PRODUCT, 3.0, 5.0, True)
    assert (0, 2) in product and (0, 1) not in product


def test_a_change_from_zero_is_no_candidate_but_a_change_to_zero_is() -> None:
    pairs = _Sorted([0.0, 10.0]).pairs(ops.CHANGE, 90.0, 110.0, True)
    assert (1, 0) not in pairs  # from 0 to 10: no percentage
    assert (0, 1) in pairs  # from 10 to 0: down 100 %


def test_literals_are_exact_on_one_line_on_several_and_beside_other_characters() -> None:
    assert calculate("0.1 + 0.2").value == Decimal("0.3")
    assert calculate("(0.1 +\n 0.2)").value == Decimal("0.3")
    assert calculate("0.1 + 0.2 # é").value == Decimal("0.3")
    assert calculate("0.1 + 0.2").value != Decimal(0.1 + 0.2)
