"""A change written with its rate and the level it reached, "rose by about $3.8 million,
or roughly 18.6%, to $24.2 million": the change ends at that level, even with its rate
written between them, and the level may be taken as the table writes it (24,193 in a
table that states no scale, which the note rounds to $24.2 million)."""

from __future__ import annotations

from tests.engine.reports import check, flagged

TABLE = """\
|  | 2024 | 2023 | 2022 |
|---|---|---|---|
| Net earnings | $31,482 | $27,615 | $22,940 |
| Depreciation | $12,207 | $11,930 | $10,414 |
| Cash from operations | $52,118 | $49,377 | $41,006 |
"""
NOTE = (
    "Net cash provided by operations was $52.1 million for 2024, consisting of $31.5 "
    "million of net earnings and $12.2 million of depreciation. For 2023 it was $49.4 "
    "million, consisting of $27.6 million of net earnings and $11.9 million of depreciation."
)


def body(change: str, rate: str) -> str:
    return (
        f"Net earnings rose by about {change}, or roughly {rate}, to $31.5 million in 2024. "
        "Cash from operations reached $52.1 million."
    )


def test_a_change_and_its_rate_to_a_level_the_table_writes() -> None:
    # 31,482 - 27,615 = 3,867 thousand ($3.9 million), 14.0 % of 27,615.
    assert flagged(check(body("$3.9 million", "14.0%"), ("table", TABLE), ("p1", NOTE))) == []


def test_a_wrong_change_is_flagged() -> None:
    found = flagged(check(body("$4.3 million", "14.0%"), ("table", TABLE), ("p1", NOTE)))
    assert "$4.3 million" in found


def test_a_wrong_rate_is_flagged() -> None:
    found = flagged(check(body("$3.9 million", "15.7%"), ("table", TABLE), ("p1", NOTE)))
    assert "15.7%" in found


def test_a_rise_to_the_earlier_level_is_no_rise_to_it() -> None:
    # "rose ... to $27.6 million in 2024": 2023's level, which the note states too, so the
    # level alone passes as a restatement. 31,482 - 27,615 ends at 27,615 only as a fall:
    # it explains no rise to it, and the change stays flagged.
    wrong_level = body("$3.9 million", "14.0%").replace("to $31.5 million", "to $27.6 million")
    assert "$3.9 million" in flagged(check(wrong_level, ("table", TABLE), ("p1", NOTE)))
