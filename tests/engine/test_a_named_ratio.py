"""A ratio an analyst names says what it divides: "the current ratio" is current assets
over current liabilities, whatever else the balance sheet holds. Weighed among those
lines' ratios alone, "about 0.46" is the writer's arithmetic, not a pick among every
quotient of a table full of current items. Figures are ours."""

from __future__ import annotations

from tests.engine.reports import check, flagged, status

BALANCE = (
    "As of                                            2024          2023\n"
    "Cash and equivalents                             $142           $97\n"
    "Receivables                                       131           120\n"
    "Inventories                                       118           109\n"
    "Other current assets                                7             9\n"
    "Total current assets                              398           335\n"
    "Property, plant, and equipment                  2,241         2,630\n"
    "Total assets                                   $2,677        $3,012\n"
    "Accounts payable and accrued expenses            $121          $133\n"
    "Current debt                                      702            22\n"
    "Other current liabilities                          39            11\n"
    "Total current liabilities                         862           166\n"
    "Long-term debt                                     51         1,071\n"
    "Total liabilities                                $916        $1,311\n"
)


def test_the_current_ratio_is_current_assets_over_current_liabilities() -> None:
    """398 / 862 = 0.46."""
    verdict = check(
        "Current debt climbed to $702 million, and that pulls the current ratio down to "
        "about 0.46.",
        ("balance", BALANCE),
    )

    assert status(verdict, "0.46") == "derived"


def test_a_wrong_current_ratio_is_flagged() -> None:
    verdict = check(
        "Current debt climbed to $702 million, and that pulls the current ratio down to "
        "about 0.56.",
        ("balance", BALANCE),
    )

    assert any("0.56" in text for text in flagged(verdict))


def test_the_prior_years_current_ratio_is_of_its_own_column() -> None:
    """335 / 166 = 2.02 in 2023."""
    verdict = check(
        "A year earlier the current ratio was a comfortable 2.02.", ("balance", BALANCE)
    )

    assert status(verdict, "2.02") == "derived"
