"""The rate beside a change the report derived, whose end its sentence states after it:
the first level of the change's row that the sentence states is the change's own end, and
a level after it begins another change ("... peaking at $96,037 thousand, and then fell
... to $84,380 thousand"), so the rate is the change over the cell it started from."""

from __future__ import annotations

from tests.engine.reports import check, status

QUARTERLY = (
    "(in thousands)\n\n"
    "|  | First | Second | Third | Fourth | Total |\n|---|---|---|---|---|---|\n"
    "| Revenues | $94,888 | $96,037 | $88,495 | $84,380 | $363,800 |\n"
    "| Gross profit | 38,091 | 39,821 | 36,381 | 33,471 | 147,764 |\n"
)


def test_the_rate_of_a_derived_change_whose_end_the_sentence_states_after_it() -> None:
    """ "rose by $1,149 thousand, or 1.2%, from the first to the second quarter, peaking at
    $96,037 thousand, and then fell ... to $84,380 thousand": the first level stated is the
    change's own end (96,037), so the rate is the change over its start, 94,888; the level
    after it begins another change."""
    body = (
        "Revenues rose by $1,149 thousand, or 1.2%, from the first to the second quarter, "
        "peaking at $96,037 thousand, and then fell in each of the last two quarters to "
        "$84,380 thousand in the fourth."
    )
    verdict = check(body, ("table", QUARTERLY))

    assert status(verdict, "1.2%") == "derived"
