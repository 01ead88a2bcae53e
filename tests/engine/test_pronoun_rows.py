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


BALANCES = (
    "(in thousands)\n\n| As of December 31, | 2019 | 2018 | 2017 | 2016 | 2015 |\n"
    "|---|---|---|---|---|---|\n"
    "| Working capital | $207,599 | $237,416 | $306,296 | $226,367 | $219,219 |\n"
    "| Total assets | $545,118 | $628,027 | $669,094 | $667,235 | $632,904 |\n"
    "| Total debt | $24,600 | $25,600 | $26,700 | $27,800 | $28,900 |\n"
    "| Stockholders' equity | $380,426 | $446,279 | $497,911 | $479,517 | $480,160 |\n"
)


def test_it_after_an_opening_phrase_that_ends_in_a_year() -> None:
    """In "By year-end 2019 it was ..." no comma sets the opening phrase apart, but the
    year ends it, and "it" is the total debt the sentence before names."""
    body = (
        "1. **Working capital shrank.** It was $207,599 at the end of 2019 against $237,416 "
        "a year earlier, a drop of $29,817, or about 12.6%. From the 2017 high of $306,296 "
        "the decline is close to a third (32.2%).\n\n"
        "2. **Debt steps down.** Total debt went from $26,700 in 2017 to $25,600 in 2018, a "
        "reduction of $1,100. By year-end 2019 it was only about 6.5% of stockholders' "
        "equity.\n\n"
        "3. **Assets turned.** Between 2015 and 2016 total assets rose by $34,331 to $667.2 "
        "million, about 5.4%. By 2019 they were down 13.2% in the last year alone.\n"
    )
    verdict = check(body, ("table", BALANCES))

    assert flagged(verdict) == []
    assert status(verdict, "6.5%") == "derived"
