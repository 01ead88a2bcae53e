"""A result whose own words name the period before, pointing back to numbers of one period:
"... peaking at $96,037 thousand, and then fell in each of the last two quarters to $84,380
thousand in the fourth. That fourth quarter was 10.6% below the same quarter a year
earlier." The writer compared the fourth quarter with the year before's (94,395); the two
figures the sentence before states are both this year's, so their change is no reading of
it, and never the ground for a fix."""

from __future__ import annotations

from tests.engine.reports import check, fixes_on

QUARTERS = (
    "(in thousands)\n\n"
    "|  | First | Second | Third | Fourth | Total |\n|---|---|---|---|---|---|\n"
    "| Fiscal 2019 revenues | $94,888 | $96,037 | $88,495 | $84,380 | $363,800 |\n"
    "| Fiscal 2018 revenues | $88,081 | $89,767 | $93,669 | $94,395 | $365,912 |\n"
)
BODY = (
    "Revenues rose to a peak of $96,037 thousand in the second quarter, and then fell in "
    "each of the last two quarters to $84,380 thousand in the fourth. That fourth quarter "
    "was {rate} below the same quarter a year earlier."
)


def test_a_change_against_a_year_earlier_is_not_fixed_from_this_years_figures() -> None:
    verdict = check(BODY.format(rate="10.6%"), ("table", QUARTERS))

    assert fixes_on(verdict, "10.6%") == []


def test_a_change_the_sentence_states_both_ends_of_is_still_fixed() -> None:
    """The same words with both quarters stated in the result's own sentence: a slip."""
    body = (
        "Fourth-quarter revenues fell to $84,380 thousand from $94,395 thousand a year "
        "earlier, a decline of 12.6%."
    )
    verdict = check(body, ("table", QUARTERS))

    assert fixes_on(verdict, "12.6%") != []
