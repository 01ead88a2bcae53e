"""What a long report is read for once: the numbers past the judged cap are counted, not
read; a word said again adds nothing to the report's terms; the words before a number
are judged once per text; two plain numbers and an operator, or a change in percent,
are computed without a parse, to the same result (issue 26, point 5)."""

from __future__ import annotations

import pytest

from validation.engine import calculator
from validation.engine.checks._query_words import terms
from validation.engine.checks.numeric import extract, extract_judged
from validation.engine.checks.numeric._lexicon import _is_hedged, _is_reference
from validation.engine.checks.reading import ReportReading


def test_past_the_judged_numbers_only_the_next_one_is_read_and_the_rest_are_counted() -> None:
    text = "Sales were $4.1 million, costs $2.2 million, 12% margin, 7 stores, 9 towns, 31 staff."

    read, count = extract_judged(text, 3)

    everything = extract(text, labelled=3)
    assert count == len(everything) == 6
    assert read == everything[:4]  # the first three labelled, the fourth as extract reads it
    assert read[3].label == ""


def test_a_text_with_fewer_numbers_than_judged_is_read_whole() -> None:
    text = "Orders rose from 1,200 to 1,450 [crm]."

    read, count = extract_judged(text, 10)

    assert read == extract(text, labelled=10)
    assert count == 2


def test_the_report_reading_counts_the_numbers_it_does_not_read() -> None:
    body = "Units shipped: " + ", ".join(str(n) for n in range(100, 160)) + "."
    reading = ReportReading(body, [])

    assert reading.mention_count == len(extract(body))
    assert len(reading.mentions) <= reading.mention_count


def test_words_said_again_keep_the_first_surface_form_and_order_of_terms() -> None:
    found = terms("Costs, margin; freight. costs, cost, margins, Costs, freight")

    assert list(found) == ["cost", "margin", "freight"]
    assert found["cost"] == "costs"
    assert found == terms("Costs, margin; freight.")


def test_a_reference_or_a_hedge_is_read_from_the_words_just_before_a_number() -> None:
    wall = "see page 4, about 9 units, " * 50
    for start in (wall.index("4"), wall.rindex("4")):
        assert _is_reference(wall, start, "4")
        assert not _is_hedged(wall, start)
    for start in (wall.index("9"), wall.rindex("9")):
        assert _is_hedged(wall, start)
        assert not _is_reference(wall, start, "9")
    assert not _is_reference("4 units", 0, "4")
    # The same words before an index's size and before any other number.
    assert _is_reference("the S&P 500 fell", 8, "500")
    assert not _is_reference("the S&P 517 fell", 8, "517")
    assert not _is_hedged("9 units", 0)


@pytest.mark.parametrize(
    "expression",
    [
        "15.5 - 0.7",
        "2 + 2",
        "0.1+0.2",
        "1418 * 0.25",
        "7 / 3",
        "100/8",
        "0 - 12.75",
        "123456789012345678901234567890 * 987654321098765432109876543210",
        "4 / 0",
        "0.5 / 0.0",
        "05.5 + 1",  # a leading zero: read by the parse tree, as before
        "007 + 1",  # not a Python number at all
        "1.5e3 - 2",
        "2 ** 8",
        "9 // 2",
        "-3 + 4",
        "(12 - 10) / 10 * 100",
        "(1 - 2) / 3 * 100",
        "(3.5 + 1.25) * 4 / 7",
        "(5 - 5) / 0 * 100",
        "(5 - 4) / 2 * 3 + 1",
        "(05 - 4) / 2 * 3",
    ],
)
def test_two_numbers_or_a_change_in_percent_compute_as_the_walk_does(expression: str) -> None:
    walked = _walked(expression)

    calculator.clear_cache()
    try:
        result = calculator.calculate(expression)
    except calculator.CalculatorError as error:
        assert str(error) == walked
    else:
        assert result == walked


def _walked(expression: str) -> calculator.Calculation | str:
    """What the calculator gives by walking the expression's parse tree alone."""
    normalized = calculator.normalize(expression)
    try:
        exact = calculator._Walker(normalized).run()
    except calculator.CalculatorError as error:
        return str(error)
    value = calculator._to_decimal(exact)
    return calculator.Calculation(
        normalized, value, calculator.format_plain(value), calculator._terminates(exact)
    )
