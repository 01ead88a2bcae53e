"""A table's footnote markers and its unlabelled total line are read as a person reads them.

Filings glue a note's number to a row's label ("Freight costs(1)") and close a table with
a line that has figures and no label (the total). The marker is no value of its row:
read as one, it shifts that row's cells one column to the right of the rows without a
marker, so the cells of one year no longer line up. The total line is a row of its own:
it does not take the label of the row above it, and a unit line such as "(In thousands
of dollars)" is no section heading that would name it. Read so, a share of the total in
the later year is found from the same two rows as the earlier year's."""

from __future__ import annotations

from tests.engine.reports import check, findings_on, status
from validation.engine.checks.numeric import build_index
from validation.engine.types import EvidenceItem

EXPENSES = (
    "| Years ended June 30, | 2021 | 2020 |\n|---|---|---|\n"
    "| (In thousands of dollars) | $ | $ |\n"
    "| Wages and benefits | 212,400 | 198,750 |\n"
    "| Freight costs(1) | 403,120 | 377,905 |\n"
    "| Marketing costs(2) | 51,870 | 42,300 |\n"
    "| Other purchases(3) | 70,110 | 74,045 |\n"
    "|  | 737,500 | 693,000 |\n"
)
NOTES = "(1) Include fuel and carrier fees.\n(2) Include advertising and promotions."


def _cells(table: str) -> list[tuple[str, str]]:
    index = build_index([EvidenceItem(source_ref="table", kind="text", content=table)])
    return [(index.number(entry).raw, label) for entry, _, label, _ in index.labelled_entries()]


def test_a_footnote_marker_glued_to_a_label_is_no_cell() -> None:
    raws = [raw for raw, _ in _cells(EXPENSES)]

    assert "1" not in raws and "2" not in raws and "3" not in raws
    assert raws[:4] == ["212400", "198750", "403120", "377905"]


def test_the_unlabelled_total_line_does_not_take_the_label_above() -> None:
    labels = dict(_cells(EXPENSES))

    assert labels["737500"] == ""
    assert labels["70110"].startswith("Other purchases")


def test_a_share_of_the_total_in_either_year_is_found() -> None:
    body = (
        "Operating expenses reached $737.5 million in 2021. Marketing costs grew fastest, "
        "and their share of total operating expenses edged up from 6.1% in 2020 to 7.0% "
        "in 2021."
    )
    verdict = check(body, ("table", EXPENSES), ("notes", NOTES))

    assert status(verdict, "6.1%") == "derived"
    assert status(verdict, "7.0%") == "derived"


def test_a_wrong_share_in_the_later_year_is_still_flagged() -> None:
    body = (
        "Operating expenses reached $737.5 million in 2021. Marketing costs grew fastest, "
        "and their share of total operating expenses edged up from 6.1% in 2020 to 7.9% "
        "in 2021."
    )
    verdict = check(body, ("table", EXPENSES), ("notes", NOTES))

    assert findings_on(verdict, "7.9%") != []
