"""A figure written with two significant digits rounds many cells of a table. When it
rounds a cell of another year and its sentence names the year it means, the year alone
does not make it that line's misquoted figure: the sentence must also name the line.
Otherwise the figure may be the writer's own result ("a net interest cost of about $3.4
million": 5,940 less 2,515), and a fix to the line's other cell (356, "$0.4 million")
would change a correct number. A sentence that names the line keeps its fix."""

from __future__ import annotations

from tests.engine.reports import check, findings_on, fixes_on

TABLE = (
    "| (dollars in thousands) | 2019 | 2018 |\n|---|---|---|\n"
    "| Interest income | $ 2,515 | $ 1,310 |\n"
    "| Interest expense | (5,940) | (598) |\n"
    "| Foreign exchange expense and other, net | (356) | (3,439) |\n"
    "| Total other income (expense), net | $ (3,781) | $ (2,727) |\n"
)


def test_a_coarse_result_that_rounds_another_lines_cell_gets_no_fix() -> None:
    body = (
        "Interest income rose to $2,515 thousand from $1,310 thousand. Interest expense "
        "rose to $5,940 thousand. Put income and expense together and the company swung "
        "to a net interest cost of about $3.4 million in fiscal 2019."
    )
    verdict = check(body, ("table", TABLE))

    assert fixes_on(verdict, "$3.4 million") == []


def test_a_coarse_figure_of_a_line_its_sentence_names_is_fixed_to_its_year() -> None:
    body = (
        "Foreign exchange expense and other, net was $3.4 million in fiscal 2019, "
        "down from the year before."
    )
    verdict = check(body, ("table", TABLE))

    assert findings_on(verdict, "$3.4 million") == ["close_but_wrong"]
    assert fixes_on(verdict, "$3.4 million") == [("$3.4 million", "$0.4 million")]
