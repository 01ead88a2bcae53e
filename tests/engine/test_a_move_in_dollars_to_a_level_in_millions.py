""" "Edging up $590,000 to $65.5 million" is a move and the level it reached, not a range:
the first figure writes its dollars in full, so it never takes the second's scale word
(590,000 million), and a level many times the move is where the move ended."""

from __future__ import annotations

from tests.engine.reports import check, flagged
from validation.engine.checks.numeric._extract import extract

CARRYFORWARDS = """\
| (in thousands) | 2019 | 2018 |
|---|---|---|
| Net operating loss carryforwards | 65,477 | 64,887 |
| Research and development credits | 80,404 | 75,032 |
"""


def test_a_move_in_dollars_to_a_level_in_millions_is_no_range() -> None:
    mentions = extract("Carryforwards were flat, edging up $590,000 to $65.5 million.")
    assert [(mention.text, mention.in_range) for mention in mentions] == [
        ("$590,000", False),
        ("$65.5 million", False),
    ]


def test_ends_of_one_magnitude_stay_a_range() -> None:
    mentions = extract("Sales should grow $5 to $7 million next year.")
    assert [mention.in_range for mention in mentions] == [True, True]


def test_the_move_is_checked_against_its_row() -> None:
    body = (
        "Net operating loss carryforwards were close to flat, edging up $590,000 to $65.5 million."
    )
    assert flagged(check(body, ("table", CARRYFORWARDS))) == []
    wrong = body.replace("$590,000", "$950,000")
    assert "$950,000" in flagged(check(wrong, ("table", CARRYFORWARDS)))
