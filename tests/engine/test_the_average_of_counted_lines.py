"""A sentence that averages the lines it counts ("the average of the four quarterly lows
was about $3.83") takes the mean of a run of that many lines, as a sentence that adds them
up takes their sum. The means are weighed among themselves: as operands of other
candidates they would only give chance values."""

from __future__ import annotations

from tests.engine.reports import check, flagged

PRICES = """\
|  |  | Share price range 2021 |
|---|---|---|
|  | Low | High |
| First quarter | $ 12.40 | $ 15.85 |
| Second quarter | $ 11.05 | $ 14.20 |
| Third quarter | $ 9.72 | $ 12.96 |
| Fourth quarter | $ 8.31 | $ 10.44 |
"""


def body(mean: str) -> str:
    # (12.40 + 11.05 + 9.72 + 8.31) / 4 = 10.37
    return (
        "The quarterly low fell in every quarter, from $12.40 in the first to $8.31 in the "
        f"fourth. The average of the four quarterly lows was about {mean}."
    )


def test_the_average_of_the_lines_a_sentence_counts() -> None:
    assert flagged(check(body("$10.37"), ("prices", PRICES))) == []


def test_a_wrong_average_of_them_is_flagged() -> None:
    assert "$10.73" in flagged(check(body("$10.73"), ("prices", PRICES)))
