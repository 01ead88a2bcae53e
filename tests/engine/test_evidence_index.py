"""numbers.build_index: every evidence number, findable by value in O(log n),
with its label and an excerpt a reviewer can read."""

from decimal import Decimal
from typing import Any

from validation.engine.checks.numeric import EvidenceIndex, EvidenceNumber, build_index
from validation.engine.types import EvidenceItem


def index_of(*contents: Any) -> EvidenceIndex:
    return build_index(
        [
            EvidenceItem(source_ref=f"item-{position}", content=content)
            for position, content in enumerate(contents)
        ]
    )


def find(index: EvidenceIndex, value: float, relative: float = 1e-9) -> list[EvidenceNumber]:
    """Entries whose magnitude is within `relative` of `value`."""
    low, high = value * (1 - relative), value * (1 + relative)
    return [index.number(entry) for entry in index.nearest(value, low, high, 50)]


def test_json_numbers_at_any_depth_are_labelled_by_their_path() -> None:
    index = index_of({"quote": {"symbol": "NVO", "price": 190.68, "history": [{"close": 188.33}]}})
    (price,) = find(index, 190.68)
    assert price.value == Decimal("190.68")
    assert price.label == "quote.price"
    assert "price" in price.tokens
    assert "nvo" in price.context  # the name beside it says whose price it is
    (close,) = find(index, 188.33)
    assert close.label == "quote.history[0].close"


def test_json_keys_in_any_spelling_give_the_same_tokens() -> None:
    index = index_of({"operatingCashFlow": 1.0, "operating_cash_flow": 2.0, "OCF": 3.0})
    tokens = [find(index, value)[0].tokens for value in (1.0, 2.0, 3.0)]
    assert all("ocf" in token_set for token_set in tokens)


def test_numeric_strings_in_json_count() -> None:
    index = index_of({"revenue": "15.5B", "shares": "1,234", "margin": "22.5%", "px": "$190.68"})
    (revenue,) = [number for number in find(index, 15.5e9) if not number.mantissa]
    assert revenue.full_value == Decimal("15500000000")
    assert find(index, 1234)[0].label == "shares"
    assert find(index, 22.5)[0].unit == "%"
    assert find(index, 190.68)[0].raw == "190.68"


def test_dates_and_names_in_json_are_not_numbers() -> None:
    index = index_of({"date": "2024-03-31", "name": "Novo Nordisk", "id": "A1B2", "ok": True})
    assert len(index) == 0


def test_a_scaled_number_is_findable_at_full_value_and_as_written() -> None:
    index = index_of("Revenue reached 15,500 million in 2024.")
    full = [number for number in find(index, 15.5e9) if not number.mantissa]
    written = [number for number in find(index, 15500) if number.mantissa]
    assert full[0].value == Decimal("15500000000")
    assert written[0].value == Decimal("15500")
    assert written[0].full_value == Decimal("15500000000")


def test_a_unit_string_beside_json_numbers_scales_them() -> None:
    index = index_of({"unit": "millions", "operating_cash_flow": 15500, "capex": 700})
    (ocf,) = [number for number in find(index, 15.5e9) if not number.mantissa]
    assert ocf.has_scale
    assert ocf.label == "operating_cash_flow"
    assert [number.mantissa for number in find(index, 15500)] == [True]


def test_a_key_suffix_scales_its_number() -> None:
    index = index_of({"revenue_millions": 40100, "capexInThousands": 500})
    assert find(index, 40.1e9)
    assert find(index, 500_000)


def test_large_json_values_keep_their_exact_value() -> None:
    index = index_of({"owner_earnings": 14812000000, "float_value": 15.5e9})
    assert find(index, 14812000000)[0].value == Decimal("14812000000")
    assert find(index, 15.5e9)[0].value == Decimal("15500000000.0")


def test_json_written_as_a_string_is_parsed() -> None:
    index = index_of('{"call_volume": 10899, "put_volume": 9976}')
    assert find(index, 10899)[0].label == "call_volume"


def test_text_that_only_looks_like_json_stays_text() -> None:
    index = index_of("[not json] revenue of $5.1 billion")
    assert find(index, 5.1e9)


def test_long_json_strings_are_scanned_as_prose() -> None:
    summary = "The company reported revenue of $40.1 billion and a margin of 22.5% this year."
    index = index_of({"summary": summary})
    (revenue,) = [number for number in find(index, 40.1e9) if not number.mantissa]
    assert revenue.label.startswith("summary")
    assert "revenue" in revenue.tokens


def test_text_numbers_are_labelled_by_the_words_before_them() -> None:
    index = index_of("NVO shares closed at $190.68, up $2.35 on the day.")
    (price,) = find(index, 190.68)
    assert price.label == "NVO shares closed at"
    assert "price" in price.tokens


def test_markdown_tables_in_evidence() -> None:
    table = "| Item | 2023 | 2024 |\n|---|---|---|\n| Revenue | 15,500 | 16,200 |\n"
    index = index_of(table)
    assert find(index, 16200)
    assert not find(index, 2023)  # header years are not numbers


def test_excerpts_show_the_proof() -> None:
    text = "x" * 300 + " revenue of $40.1 billion in 2024 " + "y" * 300
    index = index_of(text, {"quote": {"price": 190.68}})
    (revenue,) = [number for number in find(index, 40.1e9) if not number.mantissa]
    excerpt = index.excerpt(revenue.entry)
    assert "revenue of $40.1 billion" in excerpt.excerpt
    assert len(excerpt.excerpt) < 160
    assert excerpt.excerpt.startswith("…") and excerpt.excerpt.endswith("…")
    assert excerpt.source_ref == "item-0"
    (price,) = find(index, 190.68)
    json_excerpt = index.excerpt(price.entry)
    assert json_excerpt.excerpt == "quote.price = 190.68"
    assert json_excerpt.label == "quote.price"


def test_lookup_returns_the_nearest_first_and_respects_the_limit() -> None:
    index = index_of({"values": [100, 101, 99, 105, 200]})
    nearest = [index.magnitude(entry) for entry in index.nearest(100.2, 90, 110, 3)]
    assert nearest == [100, 101, 99]
    assert index.nearest(150, 140, 160, 5) == []


def test_neighbours_stay_inside_their_item() -> None:
    index = index_of({"a": 1, "b": 2, "c": 3}, {"d": 4})
    (b,) = find(index, 2)
    neighbours = [index.magnitude(entry) for entry in index.neighbours(b.entry, 5)]
    assert neighbours == [1, 2, 3]


def test_related_finds_numbers_by_label_words() -> None:
    index = index_of({"symbol": "NVO", "call_volume": 10899, "put_volume": 9976, "price": 190.68})
    related = {index.magnitude(entry) for entry in index.related({"volume", "call"}, 6)}
    assert related == {10899, 9976}
    assert index.related({"nothing"}, 6) == []


def test_related_skips_labels_shared_by_many_numbers() -> None:
    series = {"prices": [{"close": 100 + day} for day in range(50)], "eps": 5.2}
    index = index_of(series)
    assert index.related({"price", "close"}, 6) == []


def test_materialized_numbers_are_cached() -> None:
    index = index_of({"price": 190.68})
    entry = index.nearest(190.68, 190, 191, 1)[0]
    assert index.number(entry) is index.number(entry)


def test_many_items_and_sources() -> None:
    index = index_of(*[{"price": float(value)} for value in range(1, 201)])
    assert len(index) == 200
    (hit,) = find(index, 150)
    assert hit.source_ref == "item-149"
    assert index.refs["item-149"] == 149


def _nested(depth: int, leaf: Any) -> dict[str, Any]:
    """{"a": {"a": ... {"a": leaf}}}, built in a loop: json.loads and any recursive
    builder would hit their own limits first."""
    node: dict[str, Any] = {"a": leaf}
    for _ in range(depth - 1):
        node = {"a": node}
    return node


def test_json_nested_ten_thousand_levels_deep_is_indexed_without_recursion() -> None:
    depth = 10_000
    nested = _nested(depth, {"price": 190.68, "history": [[1.5, {"close": 188.33}], 2.5]})
    # model_construct: the index must cope on its own, whatever bound the
    # contract's validation puts on nesting.
    index = build_index([EvidenceItem.model_construct(source_ref="deep", content=nested)])
    assert len(index) == 4
    (price,) = find(index, 190.68)
    assert price.label == ".".join(["a"] * depth) + ".price"
    assert price.source_ref == "deep"
    (close,) = find(index, 188.33)
    assert close.label.endswith(".a.history[0][1].close")
    (inner,) = find(index, 1.5)
    assert inner.label.endswith(".a.history[0][0]")
    excerpt = index.excerpt(close.entry).excerpt
    assert excerpt.endswith("history[0][1].close = 188.33")
    assert excerpt.startswith("…") and len(excerpt) == 2000  # the path's end, within bounds


def test_arrays_keep_document_order_around_nested_containers() -> None:
    index = index_of({"row": [1.0, [2.0, {"x": 3.0}, 4.0], 5.0, {"y": 6.0}, 7.0]})
    # Entry ids follow the document: the neighbours of a number are its neighbours.
    values = [index.magnitude(entry) for entry in range(len(index))]
    assert values == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]
    labels = [index.number(entry).label for entry in range(len(index))]
    assert labels == [
        "row[0]",
        "row[1][0]",
        "row[1][1].x",
        "row[1][2]",
        "row[2]",
        "row[3].y",
        "row[4]",
    ]
