"""A table that states no scale, whose own document restates its cells with one: the
paragraph under a restructuring table says "$39.2 million" and "$3.2 million" for two of
its cells, so a reader knows the table is in millions, and a report's "$2.1 million" for
the table's bare 2.1 restates it. One coincidence proves nothing: a single prose figure
equal to a single small cell does not set a table's scale."""

from __future__ import annotations

from tests.engine.reports import check, flagged, status

RESERVE = (
    "                     Balance, start     Additions     Payments     Balance, end\n"
    "Severance costs              $53.0         $39.2        $(89.7)          $2.0\n"
    "Facility exit costs            2.5           3.2          (5.7)           0.1\n"
    "Total                        $55.5         $42.4        $(95.4)          $2.1\n"
)
CHARGES = (
    "During the year, charges under the plan included $39.2 million in employee "
    "termination benefits and $3.2 million in lease termination costs."
)


def test_a_table_its_prose_restates_in_millions_is_in_millions() -> None:
    body = (
        "The company cut its restructuring reserve to $2.1 million by year end, from "
        "$55.5 million a year earlier, a reduction of $53.4 million."
    )
    verdict = check(body, ("table", RESERVE), ("p1", CHARGES))

    assert flagged(verdict) == []
    assert status(verdict, "$2.1 million") in ("exact", "rounded")
    assert status(verdict, "$55.5 million") in ("exact", "rounded")


def test_the_shown_scale_still_catches_a_wrong_one() -> None:
    body = "The company cut its restructuring reserve to $2.1 billion by year end."
    verdict = check(body, ("table", RESERVE), ("p1", CHARGES))

    assert "$2.1 billion" in flagged(verdict)


def test_one_prose_figure_equal_to_one_small_cell_sets_no_scale() -> None:
    """ "$2 million" of another matter and a bare 2.0 cell: no scale is shown."""
    prose = "Separately, the company paid a $2 million settlement to a supplier."
    table = "                 Start     End\nSeverance costs    53     2\n"
    body = "The reserve stood at $53 million at the start of the year."
    verdict = check(body, ("table", table), ("p1", prose))

    assert "$53 million" in flagged(verdict)
