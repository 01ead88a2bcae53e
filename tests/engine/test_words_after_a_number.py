"""A short figure the evidence states, named by the words after it: "roughly 97% of 2019
sales under fixed-price contracts" restates the filing's 97 % of sales under fixed-price
contracts, though the words before it ("With roughly") name nothing: its match is no
figure about something else, set aside for the share its "of" might make it."""

from __future__ import annotations

from tests.engine.reports import check, flagged

FILING = (
    "Products and services provided under long-term, fixed-price contracts represented "
    "approximately 94% of our sales for 2024."
)
TABLE = """\
| (in millions) | 2024 | 2023 |
|---|---|---|
| Net sales | 2,410 | 2,080 |
"""


def test_a_figure_named_by_its_words_after_it_is_a_restatement() -> None:
    body = (
        "Net sales rose to $2,410 million in 2024 from $2,080 million. With roughly 94% of "
        "2024 sales under long-term fixed-price contracts, margins depend on estimates."
    )
    assert flagged(check(body, ("p1", FILING), ("table", TABLE))) == []
