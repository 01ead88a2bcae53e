"""widen_to_unique: the FIND of every fix occurs exactly once in the body."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from validation.engine.spans import occurs_once, widen_to_unique


def test_a_unique_span_is_returned_as_is() -> None:
    body = "Owner Earnings: $14.8B. Revenue: $40.1B."
    start = body.index("$14.8B")
    assert widen_to_unique(body, start, start + 6) == ("$14.8B", start)


def test_a_repeated_span_is_widened_by_whole_words() -> None:
    body = "Revenue rose 5% in Q1. Margin rose 5% too."
    start = body.rindex("5%")
    find, offset = widen_to_unique(body, start, start + 2)
    assert find == "5% too."
    assert offset == start
    assert body.count(find) == 1


def test_widening_goes_left_when_the_right_side_repeats() -> None:
    body = "cost $5 total. price $5 total."
    start = body.index("$5")
    find, offset = widen_to_unique(body, start, start + 2)
    assert find == "cost $5"
    assert offset == 0


def test_overlapping_occurrences_count() -> None:
    body = "aaa"
    assert not occurs_once(body, "aa")
    find, offset = widen_to_unique(body, 1, 3)
    assert find == "aaa"
    assert offset == 0


def test_a_partial_token_is_widened_to_the_whole_token_first() -> None:
    body = "x $14.8B y $14.8M"
    start = body.index("14.8")
    find, offset = widen_to_unique(body, start, start + 4)
    assert body[offset : offset + len(find)] == find
    assert "14.8" in find
    assert occurs_once(body, find)


@pytest.mark.parametrize(("start", "end"), [(3, 3), (5, 2), (-1, 2), (0, 99)])
def test_an_empty_or_out_of_range_span_is_refused(start: int, end: int) -> None:
    with pytest.raises(ValueError, match="span"):
        widen_to_unique("short body", start, end)


@given(st.text(alphabet="ab $5.\n", min_size=1, max_size=60), st.data())
def test_the_result_always_contains_the_span_and_occurs_once(
    body: str, data: st.DataObject
) -> None:
    start = data.draw(st.integers(0, len(body) - 1))
    end = data.draw(st.integers(start + 1, len(body)))
    find, offset = widen_to_unique(body, start, end)
    assert body[offset : offset + len(find)] == find
    assert offset <= start and end <= offset + len(find)
    assert occurs_once(body, find)


def test_on_long_repeated_text_bisection_still_finds_a_unique_widening(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from validation.engine import spans

    monkeypatch.setattr(spans, "_STAIRCASE_WORK", 0)
    body = "Intro line.\n" + "##x\n" * 400 + "The end.\n"
    start = body.index("##x")
    find, offset = spans.widen_to_unique(body, start, start + 3)

    assert spans.occurs_once(body, find)
    assert body[offset : offset + len(find)] == find
    assert offset <= start and start + 3 <= offset + len(find)
