"""A change in points, to a level, over a record's bare rates.

A tool's JSON writes rates as bare numbers ("After-tax ROIC": {"2019": 13.1, "2018":
16.1}) beside amounts in millions. "After-tax ROIC declined by 3.0 percentage points to
13.1%" names the level it ends at, a rate the report writes with its sign; the line's
other period is a rate too, not 16.1 million, and the change is the difference of the
two rates that ends at the stated level. A wrong change is still flagged."""

from __future__ import annotations

from tests.engine.reports import check, findings_on, status

ROIC = {
    "table_title": "ROIC (dollars in millions)",
    "line_items": {
        "Adjusted operating income (tax effected)": {"2019": 120.7, "2018": 118.6},
        "Average invested capital": {"2019": 923.1, "2018": 735.6},
        "After-tax ROIC": {"2019": 13.1, "2018": 16.1},
        "WACC": {"2019": 9.0, "2018": 9.5},
        "Economic Return": {"2019": 4.1, "2018": 6.6},
    },
}


def _verdict(points: str):  # type: ignore[no-untyped-def]
    return check(
        "Adjusted operating income rose by $2.1 million to $120.7 million. After-tax ROIC "
        f"declined by {points} percentage points to 13.1%.",
        ("financials_tool", ROIC),
    )


def test_a_change_in_points_to_a_stated_rate_is_found() -> None:
    verdict = _verdict("3.0")

    assert status(verdict, "3.0 percentage points") == "derived"


def test_a_wrong_change_in_points_is_flagged() -> None:
    verdict = _verdict("2.0")

    assert findings_on(verdict, "2.0 percentage points") != []
