"""A derivation the words give whole is the writer's arithmetic verified, not a search
(issue 25, point 3). When a rate's words name its operation and its operands (numbers its
own sentence states, or the cells of the rows and the year its clause names), and every
candidate of that specification lands on one value in the claim's window, the hit is
accepted whatever its written precision: "0.2%" or "0.7 points" has a window so wide that
one candidate alone would carry a chance over the limit, yet no choice was made. Where the
specification leaves several values, their chance is counted as before. Figures and words
are ours; each rule has a wrong number with the same words beside it that stays flagged."""

from __future__ import annotations

from types import SimpleNamespace
from typing import cast

from tests.engine.reports import check, flagged, status
from validation.engine.checks.numeric._derive_accept import _whole
from validation.engine.checks.numeric._labels import label_tokens
from validation.engine.checks.numeric._matching import Claim
from validation.engine.checks.numeric._misses import settle

LEASES = (
    "leases",
    "Lease liabilities (in thousands)\n\n| | 2022 | 2021 |\n|---|---|---|\n"
    "| Operating lease liabilities | 64,118 | 64,255 |\n"
    "| Finance lease liabilities | 9,870 | 7,412 |\n"
    "| Total lease liabilities | 73,988 | 71,667 |",
)
ENDS = (
    "Lease liabilities were steady. The operating lease liabilities eased by $137 thousand, "
    "from $64,255 thousand to $64,118 thousand, a decline of only about {}."
)
RATES = (
    "rates",
    "| | 2022 | 2021 | 2020 |\n|---|---|---|---|\n"
    "| Crediting rate | 2.6% | 2.4% | 3.1% |\n"
    "| Yield on reserve assets | 3.3% | 3.3% | 4.2% |",
)
GAP = (
    "The insurer's spread thinned. The yield on reserve assets ran above the crediting rate "
    "by {} points in 2022."
)


def test_a_small_change_between_two_stated_ends_is_verified() -> None:
    verdict = check(ENDS.format("0.2%"), LEASES)  # (64,118 - 64,255) / 64,255: -0.21 %

    assert status(verdict, "0.2%") == "derived"
    assert flagged(verdict) == []


def test_a_wrong_small_change_between_the_same_ends_is_still_flagged() -> None:
    verdict = check(ENDS.format("0.5%"), LEASES)

    assert any("0.5%" in text for text in flagged(verdict))


def test_a_gap_of_two_named_rates_in_the_year_named_is_verified() -> None:
    verdict = check(GAP.format("0.7"), RATES)  # 3.3 - 2.6, both of 2022: one candidate

    assert status(verdict, "0.7") == "derived"
    assert flagged(verdict) == []


def test_a_wrong_gap_in_that_year_is_still_flagged() -> None:
    verdict = check(GAP.format("0.5"), RATES)

    assert any("0.5" in text for text in flagged(verdict))


def test_the_gap_of_another_year_is_still_flagged() -> None:
    verdict = check(GAP.format("1.1"), RATES)  # 4.2 - 3.1: the gap of 2020

    assert any("1.1" in text for text in flagged(verdict))


def test_one_value_is_whole_and_two_values_are_not() -> None:
    assert _whole([0.221, 0.2215], 0.2, 0.1)  # one value reached two ways
    assert not _whole([0.221, 0.48], 0.2, 0.1)  # the words leave a choice
    assert not _whole([], 0.2, 0.1)


# ------------------------------------------------------------------ the sentence before


# Other rates and amounts the report states first crowd the neighbourhood of the claim:
# among every candidate of the report, its chance would be over the limit.
RATES_BY_YEAR = (
    "rates",
    "| | 2022 | 2021 | 2020 |\n|---|---|---|---|\n"
    "| Discount rate | 3.7% | 3.6% | 4.4% |\n"
    "| Expected return on assets | 5.0% | 5.0% | 5.9% |\n"
    "| Salary growth | 2.1% | 2.1% | 2.2% |\n"
    "| Inflation | 2.9% | 3.2% | 2.4% |",
)
THEM = (
    "The expected return on assets eased from 5.9% in 2020 to 5.0% in 2022, salary growth "
    "held near 2.1% and inflation ran at 2.4%, 3.2% and 2.9%.\n\n"
    "**Discount rate**\n- The three annual rates were 4.4% (2020), 3.6% (2021) and 3.7% "
    "(2022). Add them up and divide by three and you land on {}.\n"
)
RESERVES = (
    "warranty",
    "Warranty reserves (in millions)\n\n| | 2022 | 2021 | 2020 |\n|---|---|---|---|\n"
    "| Warranty reserves | 141 | 47 | 76 |\n"
    "| Service contracts | 112 | 75 | 69 |\n"
    "| Recall provisions | 58 | 93 | 101 |",
)
AVERAGE = (
    "Service contracts reached $112 million in 2022 from $75 million, while recall "
    "provisions fell to $58 million from $93 million and $101 million in 2020.\n\n"
    "- **Warranty reserves** climbed to $141 million in 2022, three times the 2021 level. "
    "The three-year average is {}.\n"
)


def test_adding_up_and_dividing_by_three_over_the_rates_before_is_their_average() -> None:
    verdict = check(THEM.format("3.9%"), RATES_BY_YEAR)  # (4.4 + 3.6 + 3.7) / 3

    assert status(verdict, "3.9%") == "derived"
    assert flagged(verdict) == []


def test_a_wrong_average_of_the_rates_before_is_still_flagged() -> None:
    verdict = check(THEM.format("3.4%"), RATES_BY_YEAR)

    assert any("3.4%" in text for text in flagged(verdict))


def test_an_average_whose_sentence_names_no_row_is_of_the_row_the_sentence_before_names() -> None:
    verdict = check(AVERAGE.format("$88 million"), RESERVES)  # (141 + 47 + 76) / 3

    assert status(verdict, "$88 million") == "derived"
    assert flagged(verdict) == []


def test_a_wrong_average_of_that_row_is_still_flagged() -> None:
    verdict = check(AVERAGE.format("$79 million"), RESERVES)

    assert any("$79 million" in text for text in flagged(verdict))


# ------------------------------------------------------------------ what a number follows


def _claim(text: str, supported: bool, depends: tuple[str, ...] = (), close: bool = False) -> Claim:
    mention = SimpleNamespace(text=text)
    derivation = object() if supported else None
    fields = {"hit": None, "calculation": None, "computed": (), "derivation": derivation}
    near = [object()] if close else []
    return cast(
        Claim,
        SimpleNamespace(
            mention=mention, depends=depends, close=near, rescaled=None, settled=False, **fields
        ),
    )


def test_a_number_follows_from_an_unsupported_one_only_while_that_one_is_unsupported() -> None:
    root, still = _claim("2.7%", supported=True), _claim("5.1%", supported=False)
    settled = _claim("19.2%", supported=False, depends=("2.7%",))
    waiting = _claim("8.8%", supported=False, depends=("5.1%",))

    near = _claim("13.9%", supported=False, depends=("2.7%",), close=True)

    settle([root, still, settled, waiting, near])

    assert settled.settled  # its root is derived now: it stands on its own
    assert not waiting.settled
    # Close to a cell, it would be "fixed" to that cell: a result is no slip of one.
    assert not near.settled


# ------------------------------------------------------------------ one year's figure


RENT = (
    "rent",
    "Deferred rent (in thousands)\n\n| | 2022 | 2021 |\n|---|---|---|\n"
    "| Deferred rent | 900 | 500 |\n| Prepaid rent | 1,300 | 800 |",
)
DATED = (
    "Deferred rent averaged $0.7 million over the two years (2022: {} million; 2021: $0.5 million)."
)


def test_an_average_of_the_two_years_its_sentence_names_is_verified() -> None:
    verdict = check(DATED.format("$0.9"), RENT)  # (900 + 500) / 2

    assert status(verdict, "$0.7 million") == "derived"
    assert flagged(verdict) == []


def test_a_figure_its_words_date_to_one_year_is_no_average_of_the_years() -> None:
    verdict = check(DATED.format("$0.7"), RENT)  # 2022 was $0.9 million

    assert status(verdict, "$0.7 million") == "derived"  # the average, first
    assert any("0.7" in text for text in flagged(verdict))  # the year's figure, slipped


# ------------------------------------------------------------------ an opening balance


OBLIGATION = (
    "obligation",
    "Pension obligation (in millions)\n\n| | 2022 | 2021 | 2020 |\n|---|---|---|---|\n"
    "| Obligation at beginning of year | $8,240 | 8,915 | 8,702 |\n"
    "| Service cost | 41 | 47 | 52 |\n"
    "| Interest cost | 297 | 268 | 301 |\n"
    "| Actuarial (gain) loss | 812 | (451) | 392 |\n"
    "| Benefits paid | (760) | (781) | (792) |\n"
    "| Obligation at end of year | $8,630 | 8,240 | 8,915 |",
)
OPENING = (
    "The obligation closed 2022 at $8,630 million after an $812 million actuarial loss and "
    "$760 million of benefits paid. Interest cost came to roughly {} of the opening "
    "obligation in 2022."
)


def test_a_balance_at_the_beginning_of_a_year_is_its_opening_balance() -> None:
    assert "opening" in label_tokens("Obligation at beginning of year")
    assert "opening" in label_tokens("Cash at the beginning of the period")


def test_a_share_of_the_opening_balance_in_the_year_named_is_verified() -> None:
    verdict = check(OPENING.format("3.6%"), OBLIGATION)  # 297 / 8,240

    assert status(verdict, "3.6%") == "derived"
    assert flagged(verdict) == []


def test_a_wrong_share_of_the_opening_balance_is_still_flagged() -> None:
    verdict = check(OPENING.format("4.3%"), OBLIGATION)

    assert any("4.3%" in text for text in flagged(verdict))
