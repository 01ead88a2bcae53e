"""The cells a stated result is derived from are the writer's operands of the results it
goes on to state (issue 25, point 1: "results derived from those"). Each case is written
anew: the figures and words are ours, and each has a slip beside it that must still be
flagged."""

from __future__ import annotations

from tests.engine.reports import check, flagged, status

TAXES = (
    "table",
    "| ($ thousands) | 2020 | 2019 |\n|---|---|---|\n"
    "| Payroll levies | $2,480,615 | $2,611,904 |\n"
    "| Licensing fees | 612,300 | 604,100 |\n"
    "| Excise duties | 77,950 | 81,420 |\n"
    "| | 3,170,865 | 3,297,424 |\n"
    "| Deferred: property | 318,740 | 296,060 |\n"
    "| Deferred: other | (41,200) | 12,950 |",
)


def test_a_rate_over_the_cells_of_an_average_the_sentence_states() -> None:
    # The average takes both cells of the licensing row; the growth is between those two
    # cells. The sentence does not name the row ("it" is the licensing line), and the
    # sentence before states one cell only.
    verdict = check(
        "Licensing fees came to $612,300 thousand in 2020. It averaged $608,200 thousand"
        " over the two years and rose by about 1.4%.",
        TAXES,
    )

    assert status(verdict, "$608,200 thousand") == "derived"
    assert status(verdict, "1.4%") == "derived"
    assert flagged(verdict) == []


def test_a_rate_the_average_cells_do_not_give_is_flagged() -> None:
    verdict = check(
        "Licensing fees came to $612,300 thousand in 2020. It averaged $608,200 thousand"
        " over the two years and rose by about 2.9%.",
        TAXES,
    )

    assert any("2.9" in text for text in flagged(verdict))


def test_a_change_over_one_of_its_own_ends_is_still_a_percentage_change() -> None:
    # A stated change and the cell it is taken over: the writer's percentage change (only an
    # average paired with one of its own values is no reading).
    verdict = check(
        "Excise duties fell by $3,470 thousand, roughly 4.3%, to $77,950 thousand.", TAXES
    )

    assert status(verdict, "4.3%") == "derived"
    assert flagged(verdict) == []


# ------------------------------------------------------------------ rows named most plainly

FLEET = (
    "table",
    "| ($ thousands, except days) | 2021 | 2020 |\n|---|---|---|\n"
    "| Revenues | 512,800 | 468,900 |\n"
    "| Coastal tug fleet (1) | 210,400 | 190,300 |\n"
    "| Equity income - coastal tug fleet | 12,300 | 11,900 |\n"
    "| Impairment - coastal tug fleet | 4,100 | 2,600 |\n"
    "| Write-down - coastal tug fleet | 1,750 | 3,020 |\n"
    "| Operating days (2) | | |\n"
    "| Coastal tug fleet | 8,420 | 7,310 |\n"
    "| Barges | 2,960 | 3,480 |",
)


def test_a_row_its_words_name_whole_comes_before_rows_that_add_words() -> None:
    # Five rows hold every word of "coastal tug fleet"; three add words of their own. The
    # days row is named as plainly as the revenue row, so it is among the rows searched.
    verdict = check("Operating days of the coastal tug fleet rose about 15.2%.", FLEET)

    assert status(verdict, "15.2%") == "derived"
    assert flagged(verdict) == []


def test_a_rise_no_named_row_gives_is_flagged() -> None:
    verdict = check("Operating days of the coastal tug fleet rose about 17.2%.", FLEET)

    assert any("17.2" in text for text in flagged(verdict))
