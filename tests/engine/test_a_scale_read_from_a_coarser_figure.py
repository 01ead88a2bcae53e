"""A table in thousands (its header run together, "(inthousands)", as PDF text often is: a
declaration of the document, not of its cells), read by its writer through a figure at a
coarser scale: "roughly $1.06 billion" for the cell 1,059,077. The scale the report reads
the table at is what the figure says over the cell's digits (a thousand), whatever reading
matched it (1,060 of a million, at a billion's scale): read as the figure's own scale over
that reading's, the table was taken to be in millions, and every result computed from it
was lost. Then "up $156.5 million" is 1,059,077 - 902,547 thousand, and a miscomputed
"$165.5 million" is still flagged."""

from __future__ import annotations

from tests.engine.reports import check, flagged

TABLE = (
    "|  | 2019 | 2018 |\n"
    "|---|---|---|\n"
    "|  |  | (inthousands) |\n"
    "| United States | $933,054 | $784,469 |\n"
    "| Europe | 72,928 | 73,336 |\n"
    "| Korea | 28,200 | 24,312 |\n"
    "| Total | $1,059,077 | $902,547 |\n"
)


def _body(change: str) -> str:
    return (
        "Long-lived assets reached roughly $1.06 billion in 2019. "
        f"The total was up {change} on 2018, most of it in the United States."
    )


def test_a_change_of_a_table_read_at_the_scale_a_coarser_figure_shows() -> None:
    verdict = check(_body("$156.5 million"), ("assets_table", TABLE))

    assert flagged(verdict) == []


def test_a_miscomputed_change_of_that_table_is_still_flagged() -> None:
    verdict = check(_body("$165.5 million"), ("assets_table", TABLE))

    assert "$165.5 million" in flagged(verdict)
