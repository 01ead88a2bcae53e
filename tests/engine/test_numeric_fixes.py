"""Deterministic fixes: FIND / REPLACE / VERIFIED_WITH with their proof. A fix's
FIND occurs exactly once in the body, at `offset`."""

import itertools
from decimal import Decimal
from typing import Any

import pytest

from validation.engine.checks.numeric import NumericResult, analyze, build_index, extract
from validation.engine.checks.numeric._formatting import digits_like, replace_digits
from validation.engine.types import EngineSettings, EvidenceItem, FixProposal

DEFAULTS = EngineSettings()  # resolved once, as validate() does


def check(body: str, *evidence: tuple[str, Any]) -> NumericResult:
    items = [EvidenceItem(source_ref=ref, content=content) for ref, content in evidence]
    return analyze(body, build_index(items), settings=DEFAULTS)


def applied(body: str, fix: FixProposal) -> str:
    assert body.count(fix.find) == 1
    assert body[fix.offset : fix.offset + len(fix.find)] == fix.find
    return body[: fix.offset] + fix.replace + body[fix.offset + len(fix.find) :]


# ------------------------------------------------------------------ arithmetic


def test_wrong_arithmetic_is_fixed_with_the_calculator_result() -> None:
    body = "Owner Earnings: Operating Cash Flow $15.5B - CapEx $0.7B = $15.8B"
    result = check(body, ("fin", {"operating_cash_flow": 15.5e9, "capex": 0.7e9}))
    (finding,) = result.findings
    assert (finding.check, finding.kind) == ("claims_supported", "arithmetic")
    assert finding.severity == "major"
    assert finding.text == "$15.8B"
    (fix,) = result.fixes
    assert fix.kind == "arithmetic"
    assert fix.origin == "deterministic"
    assert fix.verified_with == "calculator: 15.5 - 0.7 = 14.8"
    assert fix.confidence == pytest.approx(0.99)
    assert fix.finding_index == 0
    assert [call.tool for call in fix.tool_calls] == ["calculator"]
    assert fix.tool_calls[0].input == {"expression": "15.5 - 0.7"}
    assert applied(body, fix).endswith("= $14.8B")


def test_a_wrong_result_is_one_finding_not_also_an_orphan() -> None:
    options = ("options", {"call_volume": 10899, "put_volume": 9976})
    result = check("Check: 10,899 + 9,976 = 21,875 contracts", options)
    assert [finding.kind for finding in result.findings] == ["arithmetic"]
    assert result.report.orphan_numbers == []
    assert [match.text for match in result.report.suspicious] == ["21,875"]
    (fix,) = result.fixes
    assert fix.replace.endswith("20,875")


def test_a_wrong_percentage_keeps_its_precision() -> None:
    body = "EPS surprise: (0.50 - 0.45) / 0.45 * 100 = 10.96%"
    (fix,) = check(body).fixes
    assert fix.find == "10.96%"
    assert fix.replace == "11.11%"
    assert fix.verified_with.startswith("calculator: (0.50 - 0.45) / 0.45 * 100 = 11.1111")


def test_a_wrong_change_is_fixed() -> None:
    (fix,) = check("Revenue grew from $40B to $44B, up 12%.").fixes
    assert (fix.find, fix.replace) == ("12%", "10%")


def test_a_repeated_wrong_result_gets_a_unique_find() -> None:
    body = "First 2 + 2 = 5 apples. Later 3 + 3 = 5 pears."
    result = check(body)
    finds = {fix.find: fix.replace for fix in result.fixes}
    # The shortest unique text around each result, widened word by word.
    assert finds == {"2 = 5": "2 = 4", "3 = 5": "3 = 6"}
    for fix in result.fixes:
        applied(body, fix)


# ------------------------------------------------------------------ close but wrong


QUOTE = ("quote-NVO", {"symbol": "NVO", "price": 190.68, "change": 2.35})


def test_a_close_number_with_one_clear_match_is_fixed_from_the_evidence() -> None:
    body = "NVO closed at $190.66 today."
    result = check(body, QUOTE)
    (fix,) = result.fixes
    assert (fix.find, fix.replace) == ("$190.66", "$190.68")
    assert fix.kind == "close_but_wrong"
    assert fix.verified_with == "evidence quote-NVO: price = 190.68"
    assert 0.85 <= fix.confidence <= 0.95
    assert fix.evidence[0].excerpt == "price = 190.68"
    (call,) = fix.tool_calls
    assert call.tool == "evidence_search"
    assert call.output == "quote-NVO: price = 190.68"
    assert call in result.tool_calls
    assert result.findings[fix.finding_index or 0].kind == "close_but_wrong"


def test_the_fix_keeps_the_report_format() -> None:
    body = "Owner earnings came to $14.6B last year."
    (fix,) = check(body, ("fin", {"owner_earnings": 14812000000})).fixes
    assert fix.replace == "$14.8B"


def test_a_text_excerpt_proves_a_fix() -> None:
    article = "Shares of NVO closed at $190.68 on Friday after a strong quarter."
    (fix,) = check("NVO closed at $190.61.", ("news", article)).fixes
    assert fix.replace == "$190.68"
    assert "closed at $190.68" in fix.evidence[0].excerpt


def test_no_fix_when_two_evidence_numbers_fit_about_equally() -> None:
    evidence = ("quote", {"symbol": "NVO", "price_bid": 190.62, "price_ask": 190.70})
    result = check("NVO price was $190.66.", evidence)
    assert [finding.kind for finding in result.findings] == ["close_but_wrong"]
    assert result.fixes == []


def test_no_fix_when_a_better_labelled_number_is_further_away() -> None:
    evidence = ("quote", {"symbol": "NVO", "price": 190.80, "price_open": 190.67})
    result = check("NVO price was $190.66.", evidence)
    assert [finding.kind for finding in result.findings] == ["close_but_wrong"]
    assert result.fixes == []


def test_a_nearer_number_about_something_else_does_not_compete() -> None:
    evidence = ("quote", {"symbol": "NVO", "price": 190.80, "eps_growth": 190.67})
    (fix,) = check("NVO price was $190.66.", evidence).fixes
    assert fix.replace == "$190.80"


def test_every_fix_applies_cleanly_to_the_body() -> None:
    body = (
        "NVO closed at $190.66 today. NVO closed at $190.66 yesterday too.\n"
        "Check: 10,899 + 9,976 = 21,875 contracts."
    )
    result = check(body, QUOTE)
    assert len(result.fixes) == 3
    spans = sorted((fix.offset, fix.offset + len(fix.find)) for fix in result.fixes)
    assert all(end <= start for (_, end), (start, _) in itertools.pairwise(spans))
    for fix in result.fixes:
        assert applied(body, fix) != body


# ------------------------------------------------------------------ formatting


@pytest.mark.parametrize(
    ("text", "written", "expected"),
    [
        ("$15.8B", "14.8", "$14.8B"),
        ("10.96%", "11.1111", "11.11%"),
        ("21,875", "20875", "20,875"),
        ("(1,234)", "1243", "1,243"),  # the parentheses stay outside the mention
        ("-3.2%", "3.46", "-3.5%"),
        ("USD 15.5 billion", "14.812", "USD 14.8 billion"),
        ("$0.7B", "0.04", "$0.04B"),  # never round a real value to zero
        ("$950", "10500.4", "$10,500"),
    ],
)
def test_replacing_digits_keeps_the_format(text: str, written: str, expected: str) -> None:
    (mention,) = extract(f"It was {text} then.")
    assert replace_digits(mention, Decimal(written)) == expected


def test_digits_like_rounds_half_up() -> None:
    (mention,) = extract("It was 1.25% then.")
    assert digits_like(mention, Decimal("1.245")) == "1.25"


def test_a_number_longer_than_the_decimal_context_is_written_at_its_own_precision() -> None:
    # 29 significant digits: one more than Python's default decimal context holds.
    (mention,) = extract("It was $42.999999999999999999999999999B then.")
    assert digits_like(mention, Decimal(44)) == "44." + "0" * 27
    assert replace_digits(mention, Decimal("43.5")) == "$43.5" + "0" * 26 + "B"


def test_a_close_number_written_with_27_decimals_gets_a_fix_not_an_error() -> None:
    body = "Owner earnings were $42.999999999999999999999999999B [acme] in 2024."
    result = check(body, ("acme", {"owner_earnings": 44_000_000_000}))
    (fix,) = result.fixes
    assert fix.find == "$42.999999999999999999999999999B"
    assert fix.replace == "$44." + "0" * 27 + "B"
