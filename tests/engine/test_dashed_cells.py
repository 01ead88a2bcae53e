"""A dash in a table's cell holds its column.

Filings print "—" where a line has no amount for a period. In a table laid out as text,
"Financing obligations  2,956  5,912  —  —  8,868" has its total in the fifth column, as
every other row does; counted by its numbers alone, the total would stand in the third,
beside another line's three-to-five-year amount, and a share of two totals ("financing
obligations are about 9.1% of total purchase obligations") would find no column holding
both. And a column of line items is summed without its total line: "commercial paper,
certificates of deposit, asset-backed and corporate debt together total ..." names the
total line by its verb, but no analyst adds a total to the lines it totals."""

from __future__ import annotations

from tests.engine.reports import check, findings_on, status
from validation.engine.checks.numeric._derive_rows import dashed_cells

OBLIGATIONS = (
    "(in thousands)            Up to 1 year  1 to 3 years  3 to 5 years  More than 5 years"
    "     Total\n"
    "Operating lease obligations     16,164        19,812         6,551          5,883"
    "    48,410\n"
    "Financing obligations            2,956         5,912             —              —"
    "     8,868\n"
    "Long-term debt                       —             —       460,000              —"
    "   460,000\n"
    "Purchase obligations            55,755        16,220         7,595         17,649"
    "    97,219\n"
)

PORTFOLIO = (
    "| (in thousands) | Level 1 | Level 2 | Level 3 | Total |\n"
    "|---|---|---|---|---|\n"
    "| Money market funds | $— | $2,010 | $— | $2,010 |\n"
    "| U.S. treasury bonds | — | 116,835 | — | 116,835 |\n"
    "| Commercial paper | — | 44,300 | — | 44,300 |\n"
    "| Certificates of deposit | — | 24,539 | — | 24,539 |\n"
    "| Asset-backed securities | — | 73,499 | — | 73,499 |\n"
    "| Corporate debt securities | — | 181,079 | — | 181,079 |\n"
    "| Total | — | 442,262 | — | 442,262 |\n"
)


def test_dashes_alone_are_cells_and_words_are_not() -> None:
    row = "Long-term debt   —   —   460,000   —   460,000"
    first = row.index("460,000")

    assert dashed_cells(row, -1, first) == 2
    assert dashed_cells(row, first + 7, row.rindex("460,000")) == 1
    assert dashed_cells("Cost of sales - products   1,234", -1, 25) == 0
    assert dashed_cells("| Money market funds | $— | $2,010 |", -1, 27) == 1


def test_a_share_of_two_totals_across_dashed_rows() -> None:
    verdict = check(
        "Financing obligations are equal to roughly 9.1% of total purchase obligations.",
        ("obligations", OBLIGATIONS),
    )

    assert status(verdict, "9.1%") == "derived"


def test_a_wrong_share_of_two_totals_is_flagged() -> None:
    verdict = check(
        "Financing obligations are equal to roughly 8.1% of total purchase obligations.",
        ("obligations", OBLIGATIONS),
    )

    assert findings_on(verdict, "8.1%") != []


def test_named_lines_are_summed_without_their_total_line() -> None:
    verdict = check(
        "Corporate debt, asset-backed securities, commercial paper and certificates of "
        "deposit together total $323.4 million.",
        ("portfolio", PORTFOLIO),
    )

    assert status(verdict, "$323.4 million") == "derived"
