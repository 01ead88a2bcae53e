"""Numbers for people (issue 28): at the precision of their inputs, thousands separated; a
computed tail rounded away, real digits kept; codes, dates and words left alone."""

from __future__ import annotations

from decimal import Decimal

import pytest

from validation.engine.readable import decimals_written, readable_number, readable_text


@pytest.mark.parametrize(
    ("value", "decimals", "shown"),
    [
        ("87300000.0000000000", 0, "87,300,000"),
        (16400000.000000004, 1, "16,400,000"),
        (Decimal("14.8000000000000001"), 1, "14.8"),
        ("5.16666666666", 1, "5.2"),
        ("0.1234567", None, "0.123457"),
        ("16400000.000000004", None, "16,400,000"),
        ("-3.50", None, "-3.5"),
        ("not a number", None, "not a number"),
    ],
)
def test_a_number_reads_at_its_precision_with_separators(
    value: object, decimals: int | None, shown: str
) -> None:
    assert readable_number(value, decimals) == shown  # type: ignore[arg-type]


def test_the_precision_of_inputs_is_read_off_the_expression() -> None:
    assert decimals_written("15.5 - 0.75") == 2
    assert decimals_written("873 * 100000") == 0


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("873 * 100000 = 87300000.0000000000", "873 * 100,000 = 87,300,000"),
        ("= 16400000.000000004 in all", "= 16,400,000 in all"),
        ("year 2024, id 12345, already 1,234,567", "year 2024, id 12,345, already 1,234,567"),
        ("gurufocus-nvo-2024 and 2024-01-05 and v1.2.3 and 00123456", None),
        ("(15.5 - 0.7) = 14.8", None),
    ],
)
def test_running_text_keeps_everything_but_its_numbers(text: str, shown: str | None) -> None:
    assert readable_text(text) == (shown if shown is not None else text)


def test_a_wall_of_digits_is_read_in_linear_time() -> None:
    wall = "1" * 200_000 + "." + "2" * 200_000
    assert readable_text(wall).count(",") == (200_000 - 1) // 3
