"""A filing's text layout may end a row's label with dots ("Systems .", "Net sales . . .",
"Cost of sales ......"): leaders that run the eye to the figures, not the end of a
sentence. Read as one, they left the row without a label, so its figures joined the row
above it and a change of the named line took no cell of it. Figures are ours."""

from __future__ import annotations

from tests.engine.reports import check, flagged, status

LAYOUT = (
    "(Dollars in thousands)          2019          2018          2017\n"
    "Modules .               $ 1,460,116     $ 502,001     $ 806,398\n"
    "Systems .                 1,603,001     1,742,043     2,134,926\n"
    "Net sales .             $ 3,063,117   $ 2,244,044   $ 2,941,324\n"
)
LEADERS = LAYOUT.replace("Systems .  ", "Systems....").replace("Net sales .", "Net sales..")


def test_a_label_ending_in_a_dot_names_its_row() -> None:
    verdict = check(
        "Net sales reached $3.06 billion in 2019, a gain of about 4.1% on 2017.",
        ("segments", LAYOUT),
    )

    assert status(verdict, "4.1%") == "derived"
    assert flagged(verdict) == []


def test_dot_leaders_end_no_sentence() -> None:
    verdict = check(
        "Systems net sales fell to $1,603.0 million in 2019, about 24.9% below 2017.",
        ("segments", LEADERS),
    )

    assert status(verdict, "24.9%") == "derived"


def test_a_wrong_change_of_the_row_is_still_flagged() -> None:
    verdict = check(
        "Net sales reached $3.06 billion in 2019, a gain of about 5.1% on 2017.",
        ("segments", LAYOUT),
    )

    assert any("5.1" in text for text in flagged(verdict))
