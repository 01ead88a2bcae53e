"""Text copied out of a filing often loses the space before a currency sign: "declared
cash dividends of$0.40 per share", "approximately$5.1 million". The number is read all
the same, so a report restating it is supported and a report misquoting it is flagged.
A sign after a prefix stays that prefix's currency ("US$5", "A$3.2"), and a sign glued to a
capital or a code ("X$5") is still no amount."""

from __future__ import annotations

from decimal import Decimal

from tests.engine.reports import check, flagged
from validation.engine.checks.numeric._extract import extract, scan_numbers

DIVIDENDS = (
    "Dividends. In fiscal 2024 the Board declared four cash dividends of$0.40 per share "
    "each, and repurchased approximately$5.1 million of common stock."
)


def test_an_amount_glued_to_the_word_before_it_is_read() -> None:
    assert scan_numbers("dividends of$0.40 per share") == [(12, 17, "0.40", Decimal(1), "$")]
    assert [m.text for m in extract("approximately$5.1 million")] == ["$5.1 million"]


def test_prefixes_and_codes_keep_their_meaning() -> None:
    assert [m.text for m in extract("priced at US$5 and A$3.2")] == ["US$5", "A$3.2"]
    assert extract("the X$5 model") == []


def test_a_report_restating_such_an_amount_is_supported() -> None:
    body = "The board paid $0.40 a share each quarter and bought back about $5.1 million of stock."
    assert flagged(check(body, ("p1", DIVIDENDS))) == []


def test_a_report_misquoting_such_an_amount_is_flagged() -> None:
    body = "The board paid $0.45 a share each quarter and bought back about $5.1 million of stock."
    assert "$0.45" in flagged(check(body, ("p1", DIVIDENDS)))
