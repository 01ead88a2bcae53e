"""A count of equal amounts: "four quarterly dividends of $0.40 a share, $1.60 for the
year" multiplies the price the sentence states by the number of things it counts, in words
or in digits before a noun. The product is supported; a wrong product is flagged."""

from __future__ import annotations

from tests.engine.reports import check, flagged

PAYOUTS = (
    "Dividends. During fiscal 2024 the Board declared four quarterly cash dividends of "
    "$0.40 per share each. The company also paid three special distributions of $1.15 per "
    "unit to holders of its preferred units."
)


def test_a_count_in_words_times_a_price() -> None:
    body = "Shareholders received four quarterly dividends of $0.40 a share, $1.60 for the year."
    assert flagged(check(body, ("p1", PAYOUTS))) == []


def test_a_count_in_digits_before_a_noun() -> None:
    body = "Preferred holders collected all 3 special distributions of $1.15, or $3.45 per unit."
    assert flagged(check(body, ("p1", PAYOUTS))) == []


def test_a_wrong_product_is_flagged() -> None:
    body = "Shareholders received four quarterly dividends of $0.40 a share, $1.80 for the year."
    assert "$1.80" in flagged(check(body, ("p1", PAYOUTS)))
