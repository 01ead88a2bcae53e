"""Decision, conviction and numeric fields (docs/spec.md §11.4: a field that
cannot be re-read keeps its old value; nothing becomes UNKNOWN or None)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from validation.engine.fields import (
    extract_fields,
    fields_from_mapping,
    read_conviction,
    read_decision,
    read_numeric,
)
from validation.engine.types import ExtractedFields


@pytest.mark.parametrize(
    ("text", "decision"),
    [
        ("**FINAL DECISION: BUY**", "BUY"),
        ("**FINAL DECISION:** watch", "WATCH"),
        ("FINAL DECISION - AVOID", "AVOID"),
        ("Final decision: STRONG BUY for now", "STRONG BUY"),
        ("DECISION: AVOID", "AVOID"),
        ("DECISION: INVEST", "INVEST"),
        ("**Decision:** BUY", "BUY"),
        ("Decision: **Watch**", "WATCH"),
        ("Recommendation: WATCH", "WATCH"),
        ("**Recommendation:** Hold", "HOLD"),
        ("Verdict: AVOID", "AVOID"),
        ("| **Decision** | BUY |", "BUY"),
        ("> **FINAL DECISION: BUY**", "BUY"),
    ],
)
def test_decision_variants(text: str, decision: str) -> None:
    assert read_decision(f"Some analysis.\n\n{text}\n") == decision


@pytest.mark.parametrize(
    "text",
    [
        "FINAL DECISION: [BUY|WATCH|AVOID]",
        "FINAL DECISION: [BUY | WATCH | AVOID]",
        "FINAL DECISION: UNKNOWN",
        "Decision: we will wait and see",
        "The decision was hard.",
        "No decision here.",
    ],
)
def test_templates_placeholders_and_prose_are_not_decisions(text: str) -> None:
    assert read_decision(text) is None


def test_the_last_final_decision_wins_and_beats_weak_labels() -> None:
    text = (
        "Recommendation: HOLD\n**FINAL DECISION: WATCH**\n...\n**FINAL DECISION: BUY**\n"
        "Rating: SELL"
    )

    assert read_decision(text) == "BUY"


@pytest.mark.parametrize(
    ("text", "conviction"),
    [
        ("**FINAL CONVICTION: HIGH**", "HIGH"),
        ("FINAL CONVICTION: moderate", "MODERATE"),
        ("**Conviction:** Low", "LOW"),
        ("Conviction level: MEDIUM", "MEDIUM"),
        ("Conviction: very high", "VERY HIGH"),
        ("FINAL CONVICTION: [HIGH|MODERATE|LOW]", None),
        ("Conviction: strong", None),
    ],
)
def test_conviction_variants(text: str, conviction: str | None) -> None:
    assert read_conviction(text) == conviction


def test_numeric_fields_and_their_spellings() -> None:
    text = """
**Intrinsic Value:** $195.00 per share
Fair value estimate of $180
Price target: €210.5
Margin of safety: 25%
current_price = 1,104.20
"""

    assert read_numeric(text) == {
        "intrinsic_value": Decimal("195.00"),
        "fair_value": Decimal("180"),
        "target_price": Decimal("210.5"),
        "margin_of_safety": Decimal("25"),
        "current_price": Decimal("1104.20"),
    }


def test_numeric_filler_and_scales() -> None:
    assert read_numeric("Intrinsic value per share (10-year DCF): $139.00.") == {
        "intrinsic_value": Decimal("139.00")
    }
    assert read_numeric("intrinsic_value: 14.8B") == {"intrinsic_value": Decimal("14800000000")}
    assert read_numeric("fair value is $2.5 billion") == {"fair_value": Decimal("2500000000")}
    assert read_numeric("Intrinsic value of $195 may rise") == {"intrinsic_value": Decimal("195")}


def test_a_number_after_other_words_is_not_the_field() -> None:
    assert read_numeric("Intrinsic value is higher than the price of $104.") == {}
    assert read_numeric("The margin of safety is thin. Price = $5.") == {}


def test_the_result_of_a_formula_on_the_label_line_counts() -> None:
    assert read_numeric("Margin of safety: (139.00 - 104.20) / 139.00 = 25.0%.") == {
        "margin_of_safety": Decimal("25.0")
    }
    assert read_numeric("Intrinsic value: $139 (DCF: FCF x 20 = $2.9T)") == {
        "intrinsic_value": Decimal("139")
    }


def test_the_last_occurrence_of_a_numeric_field_wins() -> None:
    assert read_numeric("Intrinsic value: $195.\nRevised intrinsic value: $190.") == {
        "intrinsic_value": Decimal("190")
    }


def test_everything_is_read_from_a_full_report() -> None:
    body = (
        "# NVO\n\nIntrinsic value: $195.00.\n\n**FINAL DECISION: BUY**\n"
        "**FINAL CONVICTION: MODERATE**\n"
    )

    assert extract_fields(body) == ExtractedFields(
        decision="BUY", conviction="MODERATE", numeric={"intrinsic_value": Decimal("195.00")}
    )


def test_a_field_that_cannot_be_re_read_keeps_its_previous_value() -> None:
    previous = ExtractedFields(
        decision="WATCH",
        conviction="HIGH",
        numeric={"intrinsic_value": Decimal("195.0"), "fair_value": Decimal("180")},
    )

    # The bug §11.4 guards against: a fix without the decision lines erased every field.
    fixed = extract_fields("Owner Earnings: $14.8B (15.5 - 0.7). Fair value: $185.", previous)

    assert fixed == ExtractedFields(
        decision="WATCH",
        conviction="HIGH",
        numeric={"intrinsic_value": Decimal("195.0"), "fair_value": Decimal("185")},
    )
    assert previous.numeric["fair_value"] == Decimal("180")  # the previous value is not mutated


def test_a_readable_field_replaces_the_previous_value() -> None:
    previous = ExtractedFields(decision="WATCH", conviction="LOW")

    assert extract_fields("FINAL DECISION: BUY", previous).decision == "BUY"
    assert extract_fields("FINAL DECISION: BUY", previous).conviction == "LOW"


def test_bundle_fields_become_the_previous_fields_leniently() -> None:
    fields = fields_from_mapping(
        {
            "decision": "watch",
            "conviction": " high ",
            "intrinsic_value": 195.0,
            "numeric": {"fair_value": "1,180.5"},
            "ticker": "NVO",
            "flag": True,
            "nested": {"x": 1},
        }
    )

    assert fields == ExtractedFields(
        decision="WATCH",
        conviction="HIGH",
        numeric={"intrinsic_value": Decimal("195.0"), "fair_value": Decimal("1180.5")},
    )
    assert fields_from_mapping({"decision": "", "conviction": 3}) == ExtractedFields()


@pytest.mark.parametrize("wall", [" ", "*", "_", "|", "\n", "*_ |\n"])
def test_a_200_kb_wall_of_decoration_is_read_whole_and_holds_no_field(wall: str) -> None:
    text = (wall * 200_000)[:200_000]

    assert extract_fields(text) == ExtractedFields()
    assert read_decision(f"FINAL DECISION{text}BUY") is None
    assert read_decision(f"{text}**FINAL DECISION:** BUY") == "BUY"
    assert read_conviction(f"{text}Conviction: HIGH.\n{text}") == "HIGH"
    assert read_numeric(f"Intrinsic value{text}") == {}


def test_a_label_inside_a_word_is_not_a_label() -> None:
    assert read_decision("indecision: BUY") is None
    assert read_conviction("xfinal conviction: HIGH") == "HIGH"
    assert read_numeric("Intrinsic value: -   $12") == {"intrinsic_value": Decimal("-12")}
