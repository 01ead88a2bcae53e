"""A figure that reads its evidence cell at another scale than every other figure of the
report reads that item ("$264.9 billion" where the report writes the same record's other
cells in millions: the record is in thousands) has a wrong scale word, fixed to the scale
the others agree on. Counted per item and scale, so a report of thousands of figures
reads each one once."""

from __future__ import annotations

from tests.engine.reports import check, findings_on, fixes, status

# A record whose digits carry no scale: the report's figures say it is in thousands.
RECORD = {
    "revenue": 264871,
    "cost_of_sales": 120301,
    "operating_expenses": 50210,
    "net_income": 94360,
}
OTHERS = "Cost of sales was $120.3 million, operating expenses $50.2 million and net income "


def test_one_figure_at_another_scale_than_the_rest_is_a_wrong_scale_word() -> None:
    verdict = check(OTHERS + "$94.4 million; revenue was $264.9 billion.", ("tool", RECORD))
    assert findings_on(verdict, "$264.9 billion") == ["wrong_scale"]
    assert fixes(verdict) == {"$264.9 billion": "$264.9 million"}


def test_the_figure_at_the_scale_the_others_read_passes() -> None:
    verdict = check(OTHERS + "$94.4 million; revenue was $264.9 million.", ("tool", RECORD))
    assert status(verdict, "$264.9 million") == "rounded"
    assert fixes(verdict) == {}


def test_the_scale_two_figures_agree_on_wins_over_one() -> None:
    body = (
        "Cost of sales was $120.3 million and net income $94.4 billion; revenue was $264.9 billion."
    )
    verdict = check(body, ("tool", RECORD))
    assert status(verdict, "$264.9 billion") == "rounded"
    assert fixes(verdict) == {"$120.3 million": "$120.3 billion"}


def test_figures_split_between_two_scales_name_no_slip() -> None:
    body = (
        "Cost of sales was $120.3 million and operating expenses $50.2 million; "
        "net income was $94.4 billion and revenue $264.9 billion."
    )
    verdict = check(body, ("tool", RECORD))
    assert fixes(verdict) == {}
    assert findings_on(verdict, "$94.4 billion") == []


def test_many_figures_of_one_item_still_name_the_one_slip() -> None:
    # Hundreds of figures read the record in millions; the one in billions is the slip.
    body = " ".join(f"Cost of sales was $120.3 million in quarter {i}." for i in range(400))
    verdict = check(body + " Revenue was $264.9 billion.", ("tool", RECORD))
    assert findings_on(verdict, "$264.9 billion") == ["wrong_scale"]
    assert fixes(verdict)["$264.9 billion"] == "$264.9 million"
