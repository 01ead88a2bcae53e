"""A sentence that states only its result computes it from what the sentence before it
states: "... about $838 million was granted while some $546 million vested. Vesting
therefore covered about 65.2% of new grants." The two figures just written are its
operands, ahead of figures stated further away."""

from __future__ import annotations

from tests.engine.reports import check, flagged

AWARDS = """\
| ($ in millions) | 2024 | 2023 | 2022 |
|---|---|---|---|
| Units granted | $712 | $655 | $598 |
| Units vested | 451 | 402 | 477 |
| Options granted | $139 | $121 | $110 |
| Options vested | 97 | 88 | 60 |
"""

COST = (
    "As of December 31, 2024, there was $1.3 billion of unrecognized compensation cost, "
    "to be recognized over a weighted average of approximately 2.1 years. Tax benefits "
    "realized on vesting were $140 million in 2024 and $106 million in 2023."
)


def body(share: str) -> str:
    return (
        "Grants rose to $712 million in 2024, up $57 million or 8.7% on the year, and the "
        "option book added $139 million, up 14.9%. Over two years grants compounded at "
        "about 9.1% a year since 2022, and options at 12.4%.\n\n"
        "Taken together, about $851 million of award value was granted in 2024 while some "
        "$548 million of units and options vested. Vesting therefore covered only about "
        f"{share} of new grants, so the unvested stock keeps building. Unrecognized cost "
        "stands at $1.3 billion, to be expensed over roughly 2.1 years, a run-rate of "
        "about $619 million a year.\n\n"
        "Tax benefits of $140 million came to roughly 31.0% of the units that vested in "
        "2024, against 26.4% a year earlier."
    )


def test_a_lone_result_of_the_two_figures_just_written() -> None:
    # 548 / 851 = 64.39 %: the sentence before states both. Among the many figures
    # stated further away, a pair landing near 64.4 % by chance is likely enough that,
    # weighed with them alone, it would not be taken.
    assert flagged(check(body("64.4%"), ("table", AWARDS), ("p2", COST))) == []


def test_a_wrong_lone_result_is_flagged() -> None:
    assert "67.4%" in flagged(check(body("67.4%"), ("table", AWARDS), ("p2", COST)))
