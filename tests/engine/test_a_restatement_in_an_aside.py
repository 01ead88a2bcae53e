"""A figure restated in an aside is that figure.

"Revenue fell by $1,508 thousand (about $1.5 million)": the words in parentheses write
the number just before them again, at another scale. Weighed among every result the
report derives, the restatement could be lost in a crowd of candidates near $1.5
million; the aside leaves one candidate, the number it follows. A restatement that does
not round to it is still flagged."""

from __future__ import annotations

from tests.engine.reports import check, findings_on, status

LINES = (
    "| (In thousands) | 2018 | 2017 |\n"
    "|---|---|---|\n"
    "| Software delivery, support and maintenance | $9,441 | $10,949 |\n"
    "| Client services | 404 | 1,044 |\n"
    "| Cost of software delivery | 2,322 | 2,918 |\n"
)


def _verdict(aside: str):  # type: ignore[no-untyped-def]
    return check(
        "Software delivery, support and maintenance revenue fell by $1,508 thousand "
        f"({aside}) from 2017 to 2018, and its cost fell by $596 thousand to $2,322 "
        "thousand.",
        ("lines", LINES),
    )


def test_a_restatement_in_parentheses_is_the_figure_before_it() -> None:
    verdict = _verdict("about $1.5 million")

    assert status(verdict, "$1.5 million") == "derived"


def test_a_restatement_that_does_not_round_to_it_is_flagged() -> None:
    verdict = _verdict("about $1.7 million")

    assert findings_on(verdict, "$1.7 million") != []
