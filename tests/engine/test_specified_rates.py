"""A rate's own words specify its computation (issue 25): the line items they name, the
periods they name and the operation they name. A change in points or an average of rates,
written to one decimal, is weighed only against the candidates that agree with all three,
not against every pair of the report. Figures and words are ours; each rule has a wrong
number with the same words beside it that must still be flagged."""

from __future__ import annotations

from tests.engine.reports import check, flagged, status
from validation.engine.checks.numeric._derive_pool import NEAR, STATED, Operand
from validation.engine.checks.numeric._derive_spec import Spec, specified

ASSUMPTIONS = (
    "assumptions",
    "| | 2022 | 2021 | 2020 |\n|---|---|---|---|\n"
    "| Discount rate | 4.1% | 2.6% | 2.3% |\n"
    "| Salary growth rate | 3.0% | 3.0% | 3.1% |\n"
    "| Return on plan assets | 5.2% | 4.4% | 4.4% |\n"
    "| Inflation assumption | 2.5% | 2.2% | 1.9% |",
)
SPAN = (
    "Pension assumptions were reset. Across fiscal 2020-2022 the discount rate climbed {} "
    "percentage points, while salary growth, inflation and the return on plan assets also moved."
)
GAP = (
    "Pension assumptions were reset. Salary growth, inflation and the discount rate all "
    "moved, and the return on plan assets ran ahead of the discount rate by {} points in 2022."
)


# ------------------------------------------------------------------ a change over a span


def test_a_change_over_a_span_is_from_its_first_year_to_its_last() -> None:
    verdict = check(SPAN.format("1.8"), ASSUMPTIONS)  # 4.1 - 2.3

    assert status(verdict, "1.8 percentage points") == "derived"
    assert flagged(verdict) == []


def test_a_change_over_part_of_the_span_is_still_flagged() -> None:
    verdict = check(SPAN.format("1.5"), ASSUMPTIONS)  # 4.1 - 2.6: the last year's step alone

    assert any("1.5" in text for text in flagged(verdict))


# ------------------------------------------------------------------ a gap within one year


def test_a_gap_between_two_named_rates_of_the_year_its_clause_names() -> None:
    verdict = check(GAP.format("1.1"), ASSUMPTIONS)  # 5.2 - 4.1, both of 2022

    assert status(verdict, "1.1") == "derived"
    assert flagged(verdict) == []


def test_a_wrong_gap_in_that_year_is_still_flagged() -> None:
    verdict = check(GAP.format("1.4"), ASSUMPTIONS)

    assert any("1.4" in text for text in flagged(verdict))


def test_a_gap_of_another_year_is_still_flagged() -> None:
    verdict = check(GAP.format("1.8"), ASSUMPTIONS)  # 4.4 - 2.6: the gap of 2021

    assert any("1.8" in text for text in flagged(verdict))


# ------------------------------------------------------------------ a change to a stated rate


def _rate(value: float, row: int, column: int, stated: bool = False) -> Operand:
    return Operand(
        value=value,
        text=f"{value}%",
        percent=True,
        digits=1.0,
        strength=STATED if stated else NEAR,
        row=row,
        column=column,
        entry=10 * row + column,
    )


def test_a_change_to_a_stated_rate_is_taken_from_that_rates_own_line() -> None:
    # "coverage rose 1.4 points to 38.2% as copper fell to 22.4% from 25.1%"
    end = _rate(38.2, 1, 0, stated=True)
    cells = (end, _rate(36.8, 1, 1), _rate(22.4, 2, 0, True), _rate(25.1, 2, 1, True))
    spec = Spec(cells, end=end)

    found = list(specified(spec, "points", frozenset({"points"})))

    assert [round(candidate[1], 6) for candidate in found] == [1.4]
    assert all(end in candidate[4] for candidate in found)


def test_without_a_named_operation_nothing_is_specified() -> None:
    end = _rate(38.2, 1, 0, stated=True)
    spec = Spec((end, _rate(36.8, 1, 1)), end=end)

    assert list(specified(spec, "points", frozenset())) == []
