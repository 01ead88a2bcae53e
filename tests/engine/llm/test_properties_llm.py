"""Properties of the LLM path's text handling: hostile model output never crashes it."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from validation.engine.fixes import ParsedFix
from validation.engine.llm.figures import numbers_in
from validation.engine.llm.fixer import check_fix
from validation.engine.llm.judge import locate
from validation.engine.llm.settings import LLMSettings
from validation.engine.llm.view import split_report

SETTINGS = LLMSettings(base_url="http://unused/v1")
TEXT = st.text(alphabet=st.sampled_from("ab1.,=%$-+*/ ()\n:;B"), max_size=80)


@given(find=TEXT.filter(bool), replace=TEXT, verified=TEXT.filter(str.strip))
def test_checking_any_fix_never_raises(find: str, replace: str, verified: str) -> None:
    body = "Revenue was $1.5B and costs were 0.7B; margin = 53.3%."
    fix = ParsedFix(number=1, find=find, replace=replace, verified_with=verified)
    checked = check_fix(body, fix, [], SETTINGS)
    assert checked.status in {"kept", "conflict", "refused"}
    if checked.proposal is not None:
        assert body[checked.proposal.offset :].startswith(find)
        assert not checked.proposal.verified  # no tool call, no verification


@given(body=st.text(max_size=300), quote=st.text(max_size=40))
def test_a_located_quote_is_a_span_of_the_body(body: str, quote: str) -> None:
    span = locate(body, quote)
    if span is not None:
        start, end = span
        assert 0 <= start < end <= len(body)


@given(body=st.text(min_size=1, max_size=2000), budget=st.integers(min_value=10, max_value=200))
def test_split_report_covers_the_body_in_order(body: str, budget: int) -> None:
    parts = split_report(body, budget)
    assert "".join(part.text for part in parts) == body
    assert [part.number for part in parts] == list(range(1, len(parts) + 1))


@given(TEXT)
def test_numbers_in_never_raises(text: str) -> None:
    for shown in numbers_in(text):
        assert shown.decimals >= 0
