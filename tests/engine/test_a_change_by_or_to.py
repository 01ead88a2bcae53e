"""A percentage between a change and the level it ends at has one value.

"Total consideration rose by $20 thousand, or about 0.5%, to $3,777 thousand": the
change (20) and the level it reached (3,777) fix the start (3,757) and so the percentage
(0.53%). A rate this small, written to one decimal, has a wide rounding window, and a
search over every pair of the report's numbers cannot tell the writer's change from a
chance one; the words leave one candidate, and it lands. The comma that closes the
aside (", or about 0.5%, to") does not part the change from its level. A wrong rate in
the same words is still flagged."""

from __future__ import annotations

from tests.engine.reports import check, findings_on, status

ALLOCATION = (
    "| | Estimated at June 30, 2019 | Adjustments | Final as of December 31, 2019 |\n"
    "|---|---|---|---|\n"
    "| Cash | $3,795 | $ - | $3,795 |\n"
    "| Working capital adjustment to purchase price | (38) | 20 | (18) |\n"
    "| Total fair value of consideration transferred | 3,757 | 20 | 3,777 |\n"
    "| Accounts receivable | 591 | - | 591 |\n"
    "| Deposits and other current assets | 4 | 8 | 12 |\n"
    "| Property and equipment | 1,560 | - | 1,560 |\n"
    "| Customer relationship | 930 | - | 930 |\n"
    "| Net recognized amounts of identifiable assets | 3,032 | 8 | 3,040 |\n"
    "| Goodwill | $ 725 | $ 12 | $ 737 |\n"
)


NOTE = (
    "We bought the mill for an aggregate purchase price of $3.8 million, of which $0.3 "
    "million sat in escrow until June 2019, and incurred $0.1 million of acquisition "
    "costs. The seller paid a working capital adjustment of $18 thousand in 2019. The "
    "table summarizes the purchase price allocation (in thousands). The $0.7 million "
    "allocated to goodwill is deductible for tax purposes over fifteen years."
)


def _verdict(rate: str):  # type: ignore[no-untyped-def]
    return check(
        "The allocation was settled with small changes. Cash paid stayed at about $3.8 "
        "million, while the working capital adjustment shrank from $38 thousand to $18 "
        "thousand, roughly 53% less. Total consideration therefore rose by $20 thousand, "
        f"or about {rate}, to $3,777 thousand. Goodwill took most of it, up $12 thousand "
        "to $737 thousand.",
        ("note", NOTE),
        ("allocation", ALLOCATION),
    )


def test_the_rate_between_a_change_and_its_level_is_found() -> None:
    verdict = _verdict("0.5%")

    assert status(verdict, "0.5%") == "derived"
    assert findings_on(verdict, "0.5%") == []


def test_a_wrong_rate_between_a_change_and_its_level_is_flagged() -> None:
    verdict = _verdict("0.7%")

    assert findings_on(verdict, "0.7%") != []
