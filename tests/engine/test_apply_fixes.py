"""Applying accepted fixes to a revision body (DESIGN: Review and apply)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from validation.engine.fixes import (
    NOT_FOUND,
    ApplyResult,
    FixToApply,
    apply_fixes,
    count_occurrences,
)

BODY = "Revenue was $10.5B. Owner Earnings: $14.8B. Margin of safety 25%."


def test_fixes_that_match_once_and_do_not_overlap_are_all_applied_in_one_pass() -> None:
    result = apply_fixes(
        BODY,
        [
            FixToApply(key=1, find="$14.8B", replace="$14.8B (15.5 - 0.7)"),
            FixToApply(key=2, find="$10.5B", replace="$10.4B"),
        ],
    )

    assert result == ApplyResult(
        body="Revenue was $10.4B. Owner Earnings: $14.8B (15.5 - 0.7). Margin of safety 25%.",
        applied=[1, 2],
        conflicts={},
        spans={2: (12, 18), 1: (36, 55)},
    )
    assert result.body[12:18] == "$10.4B"
    assert result.body[36:55] == "$14.8B (15.5 - 0.7)"


def test_replacements_are_never_rescanned_by_later_fixes() -> None:
    # A str.replace chain would turn "a" into "b" and then that "b" into "c".
    result = apply_fixes("a b", [FixToApply(1, "a", "b"), FixToApply(2, "b", "c")])

    assert result.body == "b c"
    assert result.applied == [1, 2]


def test_find_text_missing_from_the_revision_conflicts() -> None:
    result = apply_fixes(BODY, [FixToApply(7, "$99B", "$98B"), FixToApply(8, "25%", "30%")])

    assert result.conflicts == {7: NOT_FOUND}
    assert NOT_FOUND == "FIND text not found in this revision"
    assert result.applied == [8]
    assert result.body == BODY.replace("25%", "30%")


def test_find_text_occurring_more_than_once_conflicts_with_the_count() -> None:
    result = apply_fixes("10% then 10% again", [FixToApply("x", "10%", "11%")])

    assert result.conflicts == {"x": "FIND text occurs 2 times"}
    assert result.body == "10% then 10% again"
    assert result.applied == []


def test_overlapping_occurrences_count_too() -> None:
    result = apply_fixes("aaa", [FixToApply(1, "aa", "b")])

    assert result.conflicts == {1: "FIND text occurs 2 times"}


def test_fixes_whose_spans_overlap_all_conflict_and_the_others_still_apply() -> None:
    result = apply_fixes(
        BODY,
        [
            FixToApply(1, "Owner Earnings: $14.8B", "Owner Earnings: $14.7B"),
            FixToApply(2, "$14.8B. Margin", "$14.9B. Margin"),
            FixToApply(3, "Revenue", "Sales"),
        ],
    )

    assert result.conflicts == {1: "overlaps fix 2", 2: "overlaps fix 1"}
    assert result.applied == [3]
    assert result.body == BODY.replace("Revenue", "Sales")


def test_a_fix_overlapping_two_others_names_both() -> None:
    result = apply_fixes(
        "abcdef", [FixToApply(1, "bcde", "X"), FixToApply(2, "ab", "Y"), FixToApply(3, "ef", "Z")]
    )

    assert result.conflicts == {
        1: "overlaps fix 2, fix 3",
        2: "overlaps fix 1",
        3: "overlaps fix 1",
    }
    assert result.body == "abcdef"


def test_touching_spans_do_not_overlap() -> None:
    result = apply_fixes("abcd", [FixToApply(1, "ab", "12"), FixToApply(2, "cd", "34")])

    assert result.body == "1234"
    assert result.conflicts == {}


def test_an_empty_find_conflicts_rather_than_matching_everywhere() -> None:
    result = apply_fixes("abc", [FixToApply(1, "", "x")])

    assert result.conflicts == {1: "FIND text is empty"}
    assert result.body == "abc"


def test_repeated_keys_are_a_caller_error() -> None:
    with pytest.raises(ValueError, match="repeated: 1"):
        apply_fixes("abc", [FixToApply(1, "a", "x"), FixToApply(1, "b", "y")])


def test_no_fixes_leaves_the_body_unchanged() -> None:
    assert apply_fixes(BODY, []) == ApplyResult(body=BODY)


@given(
    st.text(alphabet="ab \n", max_size=40),
    st.lists(st.tuples(st.text(alphabet="ab ", min_size=1, max_size=4), st.text(max_size=5))),
)
def test_apply_is_one_consistent_pass_whatever_the_fixes(
    body: str, pairs: list[tuple[str, str]]
) -> None:
    fixes = [FixToApply(i, find, replace) for i, (find, replace) in enumerate(pairs)]

    result = apply_fixes(body, fixes)

    assert set(result.applied) | set(result.conflicts) == set(range(len(fixes)))
    assert not set(result.applied) & set(result.conflicts)
    applied = [fixes[key] for key in result.applied if isinstance(key, int)]
    for fix in applied:
        assert count_occurrences(body, fix.find) == 1
    growth = sum(len(fix.replace) - len(fix.find) for fix in applied)
    assert len(result.body) == len(body) + growth
    for key, (start, end) in result.spans.items():
        assert isinstance(key, int)
        assert result.body[start:end] == fixes[key].replace
