"""A multiple of one line over time takes the cells of that line the sentence states
before it; a figure stated after it belongs to another clause.

"Interest expense climbed to around $17.3 million, roughly 2.7 times the prior-year
level, simply because the $400.0 million of notes were outstanding all year": 2.7 is
17,334 / 6,442, the line's two years. The $400.0 million comes after the multiple, in
the clause that explains it; it is no operand the multiple had to take. (A figure stated
before the multiple, in its "from ... to ...", still is one: llm-notes-dev t019-v1, whose
"from $36,974 thousand" quotes another row, stays flagged.)"""

from __future__ import annotations

from tests.engine.reports import check, flagged, status

INTEREST = (
    "                     2019          2018        Change\n"
    "Interest income   $30,182       $13,281        16,901\n"
    "Interest expense  $(17,334)     $(6,442)      (10,892)\n"
)
NOTES = (
    "Interest expense includes the amortization of debt discount on the $400.0 million "
    "aggregate principal amount of our Convertible Senior Notes issued in March 2018."
)


def test_a_figure_after_the_multiple_is_another_clauses() -> None:
    body = (
        "Interest expense climbed to around $17.3 million, roughly 2.7 times the prior-year "
        "level, simply because the $400.0 million of notes were outstanding all year."
    )
    verdict = check(body, ("table", INTEREST), ("notes", NOTES))

    assert status(verdict, "2.7") == "derived"
    assert flagged(verdict) == []
