"""A writer who adds up the lines of a small table that gives no total ("adding both
categories gives about $291.1 million") sums a column of it, whether or not the sentence
says "total". Those sums are what the sentence's words give, weighed among themselves,
and a table's heading that carries a footnote mark ("carryforwards:(1)") adds no line to
them."""

from __future__ import annotations

from tests.engine.reports import check, flagged

CARRYFORWARDS = """\
| (dollars in thousands) | Last Fiscal Year of Expiration | Amount |
|---|---|---|
| Net operating loss carryforwards:(1) |  |  |
| Domestic\u2013state | 2038 | $41,870 |
| Foreign | 2038 or indefinite | $212,406 |
| Tax credit carryforwards:(1) |  |  |
| Domestic\u2013federal | 2030 | $27,115 |
| Foreign(2) | 2028 or indefinite | $9,664 |
"""


def test_a_sentence_that_adds_up_a_table() -> None:
    verdict = check("Adding both categories gives about $291.1 million.", ("table", CARRYFORWARDS))
    assert flagged(verdict) == []
    wrong = check("Adding both categories gives about $297.1 million.", ("table", CARRYFORWARDS))
    assert "$297.1 million" in flagged(wrong)


def test_a_footnote_mark_after_a_headings_colon_is_no_line() -> None:
    # 41,870 + 212,406 + 27,115 + 9,664 = 291,055: about $291.1 million.
    verdict = check(
        "Adding both categories gives about $291.1 million of tax attributes.",
        ("table", CARRYFORWARDS),
    )
    assert flagged(verdict) == []
    (match,) = [match for match in verdict.numbers.matches if match.text == "$291.1 million"]
    assert "(1 +" not in match.formula and "+ 1 +" not in match.formula
