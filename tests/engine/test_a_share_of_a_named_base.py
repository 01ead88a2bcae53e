"""A share whose words name its base is a share, whatever the sentence says rises.

"Accrued liabilities grew the most, with $5,353 thousand, or about 13.9% of the reported
balance, coming from the new standard": the adjustment is a change (the reported balance
less the balance without the standard), and "grew" gives the sentence a direction. A
rise taken over the level it rose *to* is the classic wrong base of a percentage change,
so the derived search keeps such a share out when the words say a rise. Here the words
say whose share it is ("of the reported balance"): the level reached is the base the
writer names, and the share is found. Without those words the wrong base is still kept
out, and a wrong share is still flagged."""

from __future__ import annotations

from tests.engine.reports import check, findings_on, status

ADOPTION = (
    "(In thousands)                 As reported   Without adoption\n"
    "Deferred revenue                    24,264             22,319\n"
    "Accrued liabilities                 38,476             33,123\n"
    "Accumulated deficit                 (2,227)              (538)\n"
)


def _verdict(body: str):  # type: ignore[no-untyped-def]
    return check(body, ("adoption", ADOPTION))


def test_a_change_as_a_share_of_the_level_it_reached() -> None:
    verdict = _verdict(
        "Accrued liabilities of $38,476 thousand grew the most: the new standard added "
        "$5,353 thousand, or about 13.9% of the reported balance."
    )

    assert status(verdict, "13.9%") == "derived"
    assert findings_on(verdict, "13.9%") == []


def test_a_wrong_share_of_a_named_base_is_flagged() -> None:
    verdict = _verdict(
        "Accrued liabilities of $38,476 thousand grew the most: the new standard added "
        "$5,353 thousand, or about 15.9% of the reported balance."
    )

    assert findings_on(verdict, "15.9%") != []


def test_a_rise_over_the_level_it_reached_is_still_no_percentage_change() -> None:
    """No base named: "rose ... by $5,353 thousand, or 13.9%" is a percentage change, and
    13.9% is the rise over 38,476, the level it rose to (over 33,123 it is 16.2%)."""
    verdict = _verdict(
        "Accrued liabilities rose to $38,476 thousand from $33,123 thousand, up "
        "$5,353 thousand, or 13.9%."
    )

    assert findings_on(verdict, "13.9%") != []
