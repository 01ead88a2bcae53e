"""The known cases of docs/spec.md, as tests: the options-volume orphan and the earnings
surprise (§13, §14.3), a close price, and owner earnings computed from cash flow and capex."""

from decimal import Decimal
from typing import Any

import pytest

from validation.engine.calculator import evaluate
from validation.engine.checks.numeric import NumericResult, analyze, build_index, extract
from validation.engine.types import EngineSettings, EvidenceItem

DEFAULTS = EngineSettings()  # resolved once, as validate() does


def check(body: str, *evidence: tuple[str, Any], query: str = "") -> NumericResult:
    items = [EvidenceItem(source_ref=ref, content=content) for ref, content in evidence]
    return analyze(body, build_index(items), query=query, settings=DEFAULTS)


def statuses(result: NumericResult) -> dict[str, str]:
    return {match.text: match.status for match in result.report.matches}


OPTIONS = ("options-NVO", {"symbol": "NVO", "call_volume": 10899, "put_volume": 9976})


def test_options_volume_orphan() -> None:
    """§14.3: a volume of 97,271 contracts that no evidence holds is an orphan."""
    body = (
        "NVO options volume today was 97,271 contracts. "
        "Calls and puts together came to 20,875 contracts."
    )
    result = check(body, OPTIONS, query="What is NVO's total options volume today?")
    assert statuses(result) == {"97,271": "orphan", "20,875": "derived"}
    assert [match.text for match in result.report.orphan_numbers] == ["97,271"]
    (finding,) = result.findings
    assert (finding.check, finding.kind) == ("no_hallucinations", "orphan")
    assert result.report.exact_matches == 1


def test_options_volume_written_out() -> None:
    body = "Total volume: 10,899 calls + 9,976 puts = 20,875 contracts."
    result = check(body, OPTIONS)
    assert statuses(result) == {"10,899": "exact", "9,976": "exact", "20,875": "derived"}
    assert result.findings == []


def test_eps_surprise_calculator() -> None:
    """§13: (0.50 - 0.45) / 0.45 * 100 = 11.111..."""
    assert evaluate("(0.50 - 0.45) / 0.45 * 100").quantize(Decimal("0.001")) == Decimal("11.111")


EARNINGS = ("earnings-NVO", {"eps_actual": 0.50, "eps_estimate": 0.45})


def test_eps_surprise_correct_is_accepted_and_not_suspicious() -> None:
    result = check("Earnings surprise: (0.50 - 0.45) / 0.45 * 100 = 11.11%", EARNINGS)
    assert statuses(result)["11.11%"] == "derived"
    assert result.report.suspicious == []
    assert result.findings == [] and result.fixes == []


def test_eps_surprise_wrong_is_fixed_to_11_11() -> None:
    body = "Earnings surprise: (0.50 - 0.45) / 0.45 * 100 = 10.96%"
    result = check(body, EARNINGS)
    (finding,) = result.findings
    assert finding.kind == "arithmetic"
    (fix,) = result.fixes
    assert (fix.find, fix.replace) == ("10.96%", "11.11%")
    assert fix.verified_with.startswith("calculator: (0.50 - 0.45) / 0.45 * 100 = 11.11")
    assert fix.tool_calls[0].tool == "calculator"


QUOTE = ("quote-NVO", {"symbol": "NVO", "price": 190.68, "change": 2.35})


def test_price_close_but_wrong_is_fixed() -> None:
    result = check("NVO closed at $190.66.", QUOTE)
    assert statuses(result) == {"$190.66": "close_but_wrong"}
    (finding,) = result.findings
    assert finding.message == (
        '"$190.66" is close to price 190.68 in quote-NVO but not equal at the precision shown'
    )
    (fix,) = result.fixes
    assert (fix.find, fix.replace) == ("$190.66", "$190.68")
    assert fix.verified_with == "evidence quote-NVO: price = 190.68"


def test_price_and_change_exact() -> None:
    result = check("NVO trades at $190.68, up $2.35.", QUOTE)
    assert statuses(result) == {"$190.68": "exact", "$2.35": "exact"}
    assert result.findings == []


OWNER_EARNINGS = "Owner Earnings: Operating Cash Flow $15.5B - CapEx $0.7B = $14.8B"


@pytest.mark.parametrize(
    "financials",
    [
        {"operating_cash_flow": 15.5e9, "capital_expenditures": 700_000_000},
        {"unit": "millions", "operating_cash_flow": 15500, "capex": 700},
        {"operating_cash_flow_millions": 15500, "capex_millions": 700},
        {"operating_cash_flow": 15500, "capex": 700},  # millions, unstated: found by label
        {"cash_flow": {"operating_cash_flow": "15.5B", "capital_expenditures": "700M"}},
    ],
)
def test_nvo_owner_earnings_are_accepted(financials: dict[str, Any]) -> None:
    """Owner earnings of $14.8B are operating cash flow $15.5B less capex $0.7B, however the
    evidence writes them."""
    result = check(OWNER_EARNINGS, ("gurufocus-NVO", financials))
    assert statuses(result) == {"$15.5B": "exact", "$0.7B": "exact", "$14.8B": "derived"}
    assert result.findings == []
    assert [call.tool for call in result.tool_calls] == ["calculator"]


def test_nvo_owner_earnings_from_a_filing_text() -> None:
    filing = "Cash flow statement (DKK million)\n\nOperating cash flow 15,512; capex (701)."
    result = check(OWNER_EARNINGS, ("20-F", filing))
    assert statuses(result) == {"$15.5B": "rounded", "$0.7B": "rounded", "$14.8B": "derived"}


def test_a_year_is_never_matched_to_a_neighbouring_year_nor_an_orphan() -> None:
    result = check(
        "In 2019 revenue was $1.2B, up from 2018.",
        ("fin", {"fiscal_year": 2018, "revenue": 1.2e9}),
    )
    assert statuses(result) == {"$1.2B": "exact"}
    assert result.findings == []


def test_scale_and_multiple_are_extracted() -> None:
    billions, multiple = extract("Revenue of 1.2B at 1.5x sales.")
    assert billions.value == Decimal("1200000000")
    assert billions.scale_text == "B"
    assert multiple.written == Decimal("1.5")
    assert multiple.unit == "x"


def test_a_rounded_computed_percentage_is_not_suspicious() -> None:
    result = check("The surprise was 11.11% this quarter.", ("calc", {"surprise_pct": 11.1111}))
    assert statuses(result) == {"11.11%": "rounded"}
    assert result.report.suspicious == []
