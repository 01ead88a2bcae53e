"""An average whose words count its values is of that many values.

"Franchisees opened 19 new restaurants, up from 11, taking the three-year average to 16 a
year": the three-year average takes a third year the sentence does not state, so it is not
(19 + 11) / 2 and must not be "fixed" to 15. Where the words count the two numbers stated
("a two-year average of 16"), a wrong average is still fixed from them.
"""

from __future__ import annotations

from tests.engine.reports import check, fixes, flagged

LAYOUT = (
    "                                                   2019          2018          2017\n"
    "Restaurants sold to franchisees                       —           135           178\n"
    "New restaurants opened by franchisees                19            11            18\n"
)


def test_a_three_year_average_is_never_fixed_from_two_stated_years() -> None:
    verdict = check(
        "Franchisees opened 19 new restaurants in 2019, up from 11 in 2018, taking the "
        "three-year average to 16 a year.",
        ("development", LAYOUT),
    )

    assert fixes(verdict) == {}


def test_a_two_year_average_of_the_two_stated_years_is_still_fixed() -> None:
    verdict = check(
        "Franchisees opened 19 new restaurants in 2019, up from 11 in 2018, a two-year "
        "average of 16 a year.",
        ("development", LAYOUT),
    )

    assert "16" in flagged(verdict)
    assert fixes(verdict) == {"16": "15"}
