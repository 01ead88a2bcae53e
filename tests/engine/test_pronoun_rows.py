"""A sentence that opens with a pronoun speaks of what the sentence before it named.

"Foreign current tax. It climbed by $763 thousand, roughly 80.1%." The second sentence
names no line; "It" is the foreign current tax the first one names, so the derived search
offers that row's cells (1,716 and 953) as it offers the rows a heading names."""

from __future__ import annotations

from tests.engine.reports import check, flagged, status

PROVISION = (
    "(in thousands)\n\n| | 2019 | 2018 | 2017 |\n|---|---|---|---|\n"
    "| Current provision for income taxes: | | | |\n"
    "| State | $49 | $44 | $48 |\n"
    "| Foreign | 1,716 | 953 | 1,023 |\n"
    "| Total current | 1,765 | 997 | 1,071 |\n"
    "| Deferred tax expense (benefit): | | | |\n"
    "| Federal | 3 | (13) | 26 |\n"
    "| Foreign | (361) | 98 | 109 |\n"
    "| Total deferred | (358) | 85 | 135 |\n"
)


def test_it_takes_the_rows_the_sentence_before_names() -> None:
    body = (
        "What drove the higher provision in 2019? Foreign current tax. It climbed by $763 "
        "thousand, roughly 80.1%, and makes up about 97.2% of total current tax."
    )
    verdict = check(body, ("table", PROVISION))

    assert status(verdict, "$763 thousand") == "derived"
    assert status(verdict, "80.1%") == "derived"
    assert flagged(verdict) == []


def test_a_wrong_figure_after_the_pronoun_is_still_flagged() -> None:
    body = "Foreign current tax. It climbed by $736 thousand, roughly 80.1%."
    verdict = check(body, ("table", PROVISION))

    assert "$736 thousand" in flagged(verdict)


def test_a_sentence_without_a_pronoun_takes_nothing_from_the_one_before() -> None:
    """No word points back: the earlier sentence's row is not this one's."""
    body = "Foreign current tax. Growth came in at roughly 80.1% for the year."
    verdict = check(body, ("table", PROVISION))

    assert "80.1%" in flagged(verdict)
