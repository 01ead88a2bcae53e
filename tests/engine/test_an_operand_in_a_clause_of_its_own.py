"""A result stands between the figure it is of and a clause of its own: "Warranty reserve
was nearly flat at $529 thousand, about 14.8% of the total, while the $68 thousand of
deferred revenue carried in 2018 disappeared entirely." The 14.8% is 529 over the lines'
sum, $3,571 thousand (the table has no total row); the $68 thousand after "while" belongs
to its own clause. Taken as the result's second operand, 68 / 529 (12.9%) "fixed" the
correct figure at 0.90, the worst thing a reviewer can be shown. It is flagged without a
fix now. Operands stated after a result, one each side of a "while", are still a pair
whose slip gets its fix."""

from __future__ import annotations

from tests.engine.reports import check, fixes_on

ACCRUED = {
    "table_title": "",
    "line_items": {
        "Vacation and other compensation": {"2019": 1659, "2018": 1433},
        "Incentive compensation": {"2019": 346, "2018": 411},
        "Payroll taxes": {"2019": 155, "2018": 113},
        "Deferred revenue": {"2019": "-", "2018": 68},
        "Warranty reserve": {"2019": 529, "2018": 520},
        "Commissions": {"2019": 378, "2018": 307},
        "Other": {"2019": 504, "2018": 564},
    },
}
NOTE = "Accrued liabilities at April 30, 2019 and 2018 consisted of the following (in thousands):"


def test_a_figure_after_while_is_not_the_results_operand() -> None:
    verdict = check(
        "- **Warranty reserve** was nearly flat at $529 thousand, about 14.8% of the total, "
        "while the $68 thousand of deferred revenue carried in 2018 disappeared entirely.",
        ("financials_tool", ACCRUED),
        ("note", NOTE),
    )

    assert fixes_on(verdict, "14.8%") == []


def test_a_pair_stated_each_side_of_while_keeps_its_fix() -> None:
    table = (
        "| | Balance at End of Period |\n|---|---|\n"
        "| Deferred revenue (current) | $4,483 |\n"
        "| Deferred revenue (non-current) | $3,444 |\n"
    )
    verdict = check(
        "Deferred revenue (current) is 1.2 times deferred revenue (non-current). Deferred "
        "revenue (current) was $4,483K, while deferred revenue (non-current) was $3,444K.",
        ("table", table),
    )

    assert fixes_on(verdict, "1.2") == [("1.2", "1.3")]
