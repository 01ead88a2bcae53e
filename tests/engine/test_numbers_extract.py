"""numbers.extract: every numeric claim with span, value, unit, scale, sign,
precision and label - and nothing that is not a claim."""

from decimal import Decimal

import pytest

from validation.engine.checks.numeric import NumberMention, extract


def only(text: str) -> NumberMention:
    mentions = extract(text)
    assert len(mentions) == 1, [mention.text for mention in mentions]
    return mentions[0]


def texts(text: str) -> list[str]:
    return [mention.text for mention in extract(text)]


# ------------------------------------------------------------------ values and units


def test_currency_with_scale_suffix() -> None:
    mention = only("Owner earnings were $14.8B.")
    assert mention.text == "$14.8B"  # the sentence-final period is not part of it
    assert mention.written == Decimal("14.8")
    assert mention.value == Decimal("14800000000")
    assert mention.unit == "$"
    assert mention.scale == 10**9
    assert mention.decimals == 1
    assert mention.quantum == Decimal("0.1") * 10**9


def test_span_points_at_the_text() -> None:
    text = "Revenue rose to $40.1 billion in the year."
    mention = only(text)
    assert text[mention.start : mention.end] == "$40.1 billion"
    assert text[mention.num_start : mention.num_end] == "40.1"


@pytest.mark.parametrize(
    ("text", "value", "scale"),
    [
        ("1.2B", "1200000000", 10**9),
        ("5bn", "5000000000", 10**9),
        ("$3.5 billion", "3500000000", 10**9),
        ("700M", "700000000", 10**6),
        ("700mm", "700000000", 10**6),
        ("700 MM", "700000000", 10**6),
        ("7 mn", "7000000", 10**6),
        ("12 million", "12000000", 10**6),
        ("$250K", "250000", 1000),
        ("250 thousand", "250000", 1000),
        ("2T", "2000000000000", 10**12),
        ("1.5 trillion", "1500000000000", 10**12),
    ],
)
def test_scale_words_and_suffixes(text: str, value: str, scale: int) -> None:
    mention = only(f"The figure was {text} last year.")
    assert mention.value == Decimal(value)
    assert mention.scale == scale
    assert not mention.scale_from_context


@pytest.mark.parametrize(
    ("text", "unit"),
    [
        ("$5", "$"),
        ("€5", "€"),
        ("£5", "£"),
        ("¥5", "¥"),
        ("US$5", "US$"),
        ("USD 5", "USD"),
        ("EUR 15.5 billion", "EUR"),
        ("15.5 billion USD", "USD"),
        ("5 dollars", "$"),
        ("22.5%", "%"),
        ("22.5 percent", "%"),
        ("5 per cent", "%"),
        ("3 percentage points", "pp"),
        ("25bps", "bp"),
        ("25 basis points", "bp"),
        ("1.5x", "x"),
    ],
)
def test_units(text: str, unit: str) -> None:
    assert only(f"It was {text} in the end.").unit == unit


def test_thousands_separators_and_precision() -> None:
    mention = only("Volume was 1,234,567.89 shares")
    assert mention.written == Decimal("1234567.89")
    assert mention.separators
    assert mention.decimals == 2


def test_a_leading_point_is_read_as_a_fraction() -> None:
    assert only("a yield of .5% on cash").written == Decimal("0.5")


def test_a_dotted_run_after_a_point_is_not_a_number() -> None:
    assert [m.written for m in extract(".0.0")] == []


def test_fraction_of_a_percent() -> None:
    mention = only("Rates rose 0.25% today")
    assert mention.written == Decimal("0.25")
    assert mention.unit == "%"
    assert mention.decimals == 2


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("net loss of (1,234)", "-1234"),
        ("a change of -3.2%", "-3.2"),
        ("a change of \u22125%", "-5"),
        ("a move of -$5.2B", "-5.2"),
        ("a move of $-5", "-5"),
        ("a gain of +4%", "4"),
    ],
)
def test_signs_and_parenthesised_negatives(text: str, written: str) -> None:
    mention = only(text)
    assert mention.written == Decimal(written)
    assert mention.negative == written.startswith("-")


def test_a_percentage_in_parentheses_in_prose_is_an_aside_not_a_negative() -> None:
    mentions = extract("10,899 of 20,875 contracts (52.2%) were calls")
    assert mentions[-1].written == Decimal("52.2")
    assert not mentions[-1].negative


def test_subtraction_is_not_a_negative_sign() -> None:
    _, second = extract("$15.5B - $0.7B")
    assert second.written == Decimal("0.7")
    assert not second.negative


# ------------------------------------------------------------------ ranges


@pytest.mark.parametrize("text", ["10\u201312%", "10-12%", "10 \u2013 12%"])
def test_a_percentage_range_gives_both_ends_the_unit(text: str) -> None:
    low, high = extract(f"Growth of {text} is expected")
    assert (low.written, high.written) == (Decimal(10), Decimal(12))
    assert low.unit == high.unit == "%"
    assert low.in_range and high.in_range


def test_a_currency_range_with_a_shared_scale() -> None:
    low, high = extract("guidance of $1.2-1.5B")
    assert low.value == Decimal("1200000000")
    assert high.value == Decimal("1500000000")


def test_to_ranges_keep_both_ends() -> None:
    low, high = extract("a target of $5 to $7")
    assert (low.written, high.written) == (Decimal(5), Decimal(7))
    assert low.in_range


def test_from_to_is_a_change_not_a_range() -> None:
    old, new = extract("rose from $188.33 to $190.68")
    assert not old.in_range and not new.in_range


@pytest.mark.parametrize(
    "text",
    [
        "Total net sales fell $540 million to $13,448 million",
        "Sales dropped $406 million to $5,686 million",
        "headcount rose 182 thousand to 16,223 thousand",
        "appliances were down $94 million to $680 million",
        "revenue grew roughly $1.2 billion to $9.8 billion",
    ],
)
def test_a_move_and_the_level_it_reached_are_not_a_range(text: str) -> None:
    change, level = extract(text)
    assert not change.in_range and not level.in_range


@pytest.mark.parametrize("text", ["sales should grow 5% to 7%", "prices rose $5 to $7 a unit"])
def test_a_move_between_ends_of_one_magnitude_stays_a_range(text: str) -> None:
    low, high = extract(text)
    assert low.in_range and high.in_range


# ------------------------------------------------------------------ context scale


def test_a_scale_stated_once_applies_to_the_block() -> None:
    text = "Key figures (in millions)\n\nRevenue was 15,500 and margin 44.2%.\n"
    revenue, margin = extract(text)
    assert revenue.value == Decimal("15500000000")
    assert revenue.scale_from_context
    assert revenue.scale_text == "(in millions)"
    assert margin.value == Decimal("44.2")  # percentages never take a block scale


@pytest.mark.parametrize(
    "phrase", ["(in millions)", "in $ millions", "($ in millions)", "(USD millions)", "($M)"]
)
def test_scale_phrases(phrase: str) -> None:
    mention = only(f"All amounts {phrase}.\n\nRevenue: 15,500")
    assert mention.value == Decimal("15500000000")


def test_the_stated_scale_ends_at_the_next_heading() -> None:
    text = "## Results (in thousands)\nSales 1,200\n## Other\nStores 1,200\n"
    scaled, plain = extract(text)
    assert scaled.value == 1_200_000
    assert plain.value == 1200


def test_a_number_own_scale_is_not_a_stated_scale() -> None:
    _, second = extract("Revenue was $5.1 billion. Stores: 1,200")
    assert second.value == 1200


# ------------------------------------------------------------------ tables


TABLE = """\
| Metric (in millions) | 2023 | 2024 |
|---|---:|---:|
| Revenue | 15,500 | 16,200 |
| Margin | (5.2%) | 3.1% |
"""


def test_table_cells_are_labelled_by_row_and_column() -> None:
    mentions = extract(TABLE)
    assert [mention.text for mention in mentions] == ["15,500", "16,200", "5.2%", "3.1%"]
    assert mentions[0].label == "Revenue 2023"
    assert mentions[1].label == "Revenue 2024"
    assert mentions[0].in_table
    assert {"revenue", "2023"} <= mentions[0].tokens


def test_table_scale_and_accounting_negatives() -> None:
    revenue, _, margin, _ = extract(TABLE)
    assert revenue.value == Decimal("15500000000")
    assert margin.written == Decimal("-5.2")  # "(5.2%)" in a table is negative


def test_a_column_header_scale_applies_to_its_column_only() -> None:
    table = "| Ticker | Price | Revenue ($M) |\n| --- | --- | --- |\n| NVO | 190.68 | 40,100 |\n"
    price, revenue = extract(table)
    assert price.value == Decimal("190.68")
    assert revenue.value == Decimal("40100000000")
    assert revenue.label == "NVO Revenue ($M)"


def test_a_units_row_under_the_header_scales_each_column_it_names() -> None:
    # Filings often state units in a row of their own, one cell per column; a column
    # whose cell is blank (a price per share) keeps its own values.
    table = (
        "| Quarter | Units sold | Price per unit | Backlog |\n"
        "|---|---|---|---|\n"
        "|  | (Units in thousands) |  | (Dollars in millions) |\n"
        "| First | 1,250 | $ 18.40 | $ 2,310 |\n"
    )
    units, price, backlog = extract(table)
    assert units.value == Decimal("1250000")
    assert price.value == Decimal("18.40")
    assert backlog.value == Decimal("2310000000")


def test_a_lone_units_cell_in_a_row_of_blanks_scales_the_whole_table() -> None:
    table = (
        "|  | 2024 | 2023 |\n"
        "|---|---|---|\n"
        "|  | (In thousands) |  |\n"
        "| Freight revenue | 4,120 | 3,870 |\n"
    )
    current, prior = extract(table)
    assert current.value == Decimal("4120000")
    assert prior.value == Decimal("3870000")


def test_a_units_row_may_hold_a_word_beside_its_units() -> None:
    table = (
        "|  |  | 2024 | 2023 |\n"
        "|---|---|---|---|\n"
        "|  | Note | £m | £m |\n"
        "| Receivables | 7 | 18.5 | 17.9 |\n"
    )
    note, current, prior = extract(table)
    assert note.value == Decimal("7")  # the note column states no units
    assert current.value == Decimal("18500000")
    assert prior.value == Decimal("17900000")


def test_a_row_with_numbers_is_never_a_units_row() -> None:
    table = (
        "| Item | Amount |\n"
        "|---|---|\n"
        "| Bonds (in millions of units) issued | 12 |\n"
        "| Fees | 40 |\n"
    )
    _, fees = extract(table)
    assert fees.value == Decimal("40")


# ------------------------------------------------------------------ labels


def test_labels_are_the_words_before_the_number() -> None:
    mention = only("NVO closed at $190.66 today")
    assert mention.label == "NVO closed at"
    assert {"nvo", "price"} <= mention.tokens  # "closed" reads as a price


def test_a_label_stops_at_the_previous_number() -> None:
    ocf, capex, result = extract("Operating Cash Flow $15.5B - CapEx $0.7B = $14.8B")
    assert ocf.label == "Operating Cash Flow"
    assert {"ocf", "capex"} <= result.tokens  # nothing but "=" before it: the clause labels it
    assert "ocf" in ocf.tokens
    assert capex.label == "CapEx"
    assert "capex" in capex.tokens


def test_only_the_numbers_asked_for_are_labelled_and_the_rest_keep_their_values() -> None:
    text = "Sales were $12.5M. Stores numbered 40. Staff reached 310."
    every = extract(text)
    first_two = extract(text, labelled=2)
    assert [m.label for m in first_two[:2]] == [m.label for m in every[:2]]
    assert [m.tokens for m in first_two[:2]] == [m.tokens for m in every[:2]]
    assert every[2].label == "Staff reached"
    assert (first_two[2].label, first_two[2].tokens) == ("", frozenset())
    assert [(m.start, m.end, m.value, m.unit) for m in first_two] == [
        (m.start, m.end, m.value, m.unit) for m in every
    ]


def test_words_after_the_number_join_its_tokens() -> None:
    mention = only("There were 10,899 calls")
    assert "call" in mention.tokens


def test_hedged_numbers_are_marked_approximate() -> None:
    assert only("about 1,200 stores").approx
    assert only("more than 40% of sales").approx
    assert only("~$5B in cash").approx
    assert not only("exactly 1,200 stores").approx


# ------------------------------------------------------------------ not claims


@pytest.mark.parametrize(
    "text",
    [
        "In 2024 the company grew.",
        "FY2024 results",
        "FY 24 results",
        "the '24 vintage",
        "from 2019-20 onwards",
        "on 2024-03-31 it closed",
        "on 3/31/2024 it closed",
        "on 31.03.2024 it closed",
        "on March 31, 2024 it closed",
        "on 31 March it closed",
        "by Mar. 5 it closed",
        "at 10:30 AM it closed",
        "in Q3 2024 and 3Q24 and H1",
        "the 1st and 2nd quarter",
        "## 4. Financial Analysis",
        "1. Revenue grew\n2) Margins held",
        "### 2.3 Risks",
        "see note [1] and [^2] and ^3",
        "as reported [1, 2] and [3-5] and [12,14]",
        "the source<sup>4</sup>",
        "see https://example.com/report/2024/123 for details",
        "see [the filing](https://sec.gov/doc/123456) for details",
        "www.example.com/5",
        "GPT-4 and COVID-19 and F-150",
        "the 3D and 4G and v2 models",
        "the 52-week high and the 10-K and the 3-D model",
        "the S&P 500 and the Russell 2000 and the FTSE 100",
        "version 1.2.3 and 10.0.0.1",
        "open 24/7 and 3/4 of them",
        "see page 67 and Table 2 and Step 3 and Tier 1",
        "the top 3 reasons",
        "No. 1 in its market and #1 overall",
        "a 3:1 split",
    ],
)
def test_non_claims_are_skipped(text: str) -> None:
    assert extract(text) == [], texts(text)


@pytest.mark.parametrize(
    "text",
    [
        "see §4.1 for the price",
        "as § 4.2 shows",
        "the quote [§4.1 retailer_search] agrees",
        "see section 4.2 for the cash flow",
        "Section 3 covers the risks",
        "per §7.revise_1 the estimate held",
        "see Sec. 4.2 and sections 4.1 and 4.3",
        "see §§ 4.1-4.3 and Table 2.1 and Appendix B.2 and Note 12.4",
        "(see §4.2)",
    ],
)
def test_section_references_are_not_claims(text: str) -> None:
    assert extract(text) == [], texts(text)


def test_a_number_beside_a_section_reference_is_still_a_claim() -> None:
    assert texts("Price $104.20 [§4.1 retailer_search], margin 41% per section 4.2.") == [
        "$104.20",
        "41%",
    ]
    assert texts("Section 4.2: revenue was 4.2 billion") == ["4.2 billion"]


def test_a_year_like_amount_with_a_unit_is_a_claim() -> None:
    assert texts("It cost $2,024 and 2019 units sold 2,019") == ["$2,024", "2,019"]


def test_a_period_is_a_claim_like_any_count() -> None:
    # "another 20 days in detention", "a 15-day trial", "a 20-minute call": a wrong
    # period is a wrong number (small ones the evidence lacks are dropped later).
    assert texts("Sales rose 40% over 12 months to $5.2B in 3 years") == [
        "40%",
        "12",
        "$5.2B",
        "3",
    ]
    assert texts("a 15-day trial, a 20-minute call and a 5-year plan") == ["15", "20", "5"]


def test_an_index_level_is_a_claim_but_its_name_is_not() -> None:
    assert texts("The S&P 500 closed at 4,500") == ["4,500"]


def test_numbers_in_link_text_count_but_not_in_the_target() -> None:
    assert texts("[revenue of $5B](https://example.com/5)") == ["$5B"]


def test_empty_and_numberless_text() -> None:
    assert extract("") == []
    assert extract("No numbers here at all.") == []


# ------------------------------------------------------------------ ratios and trailing scale


@pytest.mark.parametrize(
    ("text", "value"), [("1.35:1", "1.35"), ("0.88:1", "0.88"), ("2.0:1", "2.0")]
)
def test_a_ratio_to_one_is_a_multiple(text: str, value: str) -> None:
    mention = only(f"The quick ratio was {text} at year end.")
    assert mention.text == text
    assert mention.value == Decimal(value)
    assert mention.unit == "x"


@pytest.mark.parametrize("text", ["10:30", "9:45:10", "3:2", "1:10", "3:1", "1.5:1.2"])
def test_times_and_other_ratios_are_not_claims(text: str) -> None:
    assert texts(f"The call began at {text} today.") == []


@pytest.mark.parametrize(
    ("phrase", "scale"),
    [
        ("in USD millions", 10**6),
        ("in millions", 10**6),
        ("in thousands", 1000),
        ("in US dollars billions", None),
        ("in $ thousands", 1000),
    ],
)
def test_a_scale_written_right_after_the_number_is_its_own(phrase: str, scale: int | None) -> None:
    mention = only(f"Total current liabilities are $5,466,312 {phrase}.")
    if scale is None:
        assert mention.scale == 1
        return
    assert mention.scale == scale
    assert mention.value == Decimal(5_466_312) * scale
    assert not mention.scale_from_context
    assert mention.text == f"$5,466,312 {phrase}"


def test_a_scale_phrase_before_the_number_is_not_its_own() -> None:
    mention = only("The liabilities in millions are $5,466.")
    assert mention.text == "$5,466"


# ------------------------------------------------------------------ layouts with spaces


LAYOUT = """\
                              Year ended June 30,
                                2024        2023
Net sales                      100.0 %     100.0 %
Cost of sales                   61.5        58.2
Selling and admin               22.0        24.9
Operating margin                16.5 %      16.9 %
"""


def test_a_layout_column_with_percent_on_its_first_and_last_rows_is_all_percentages() -> None:
    values = {mention.text: mention.unit for mention in extract(LAYOUT)}
    assert values["61.5"] == values["24.9"] == "%"
    assert values["16.5 %"] == "%"


def test_a_blank_line_ends_the_layout_block() -> None:
    text = LAYOUT.replace("Selling and admin", "\nSelling and admin")
    units = {mention.text: mention.unit for mention in extract(text)}
    assert units["22.0"] == ""  # its block has no first row in percent
    assert units["61.5"] == ""  # nor does its own (no last row in percent)


def test_a_list_in_prose_is_not_a_layout() -> None:
    text = "- Growth was 5%\n- Stores opened: 300\n- Margin held at 7%\n"
    stores = next(mention for mention in extract(text) if mention.text == "300")
    assert stores.unit == ""
