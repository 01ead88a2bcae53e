"""Benchmark of the numeric check: `.venv/bin/python bench/engine_bench.py`.

Generates, deterministically, a ~10,000-character report with ~150 numbers (exact,
rounded, derived, written calculations, wrong and orphan numbers) against ~200 KB
of evidence (JSON tool outputs and text with a table), then prints medians over
30 runs:

- cold: build_index + analyze (module caches cleared first),
- warm: analyze with a reused index,
- cold with the evidence doubled, and the ratio doubled / cold;
- the whole pipeline, every check (``validate``): cold (index built, caches cleared)
  and warm (index reused).

Targets on one core: cold <= 30 ms, warm <= 5 ms, ratio <= 2.0.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from validation.engine.checks.numeric import analyze, build_index, reset_caches
from validation.engine.pipeline import validate
from validation.engine.types import Bundle, EngineSettings, EvidenceItem

SETTINGS = EngineSettings()  # resolved once, as validate() does

TICKERS = [f"T{chr(65 + n // 26)}{chr(65 + n % 26)}" for n in range(40)]
WORDS = str.split(
    "the company reported strong demand across segments while management reiterated "
    "guidance and highlighted pricing discipline in a competitive market with steady "
    "margins and disciplined capital allocation over the period"
)


def _money(rng: random.Random, low: float, high: float) -> float:
    return round(rng.uniform(low, high), 2)


def make_evidence(rng: random.Random, copies: int = 1) -> list[EvidenceItem]:
    items: list[EvidenceItem] = []
    for copy in range(copies):
        suffix = f"-{copy}" if copy else ""
        for ticker in TICKERS:
            price = _money(rng, 20, 900)
            change = _money(rng, -15, 15)
            items.append(
                EvidenceItem(
                    source_ref=f"quote-{ticker}{suffix}",
                    kind="tool",
                    content={
                        "symbol": ticker,
                        "price": price,
                        "change": change,
                        "change_percent": round(change / (price - change) * 100, 4),
                        "volume": rng.randint(100_000, 90_000_000),
                        "market_cap": rng.randint(10**9, 3 * 10**12),
                        "pe": round(rng.uniform(5, 80), 2),
                        "eps": round(rng.uniform(0.1, 30), 2),
                    },
                )
            )
            years = []
            for year in range(2020, 2025):
                revenue = rng.randint(1_000, 400_000)
                years.append(
                    {
                        "fiscal_year": year,
                        "revenue": revenue,
                        "gross_profit": int(revenue * rng.uniform(0.2, 0.8)),
                        "operating_income": int(revenue * rng.uniform(0.05, 0.4)),
                        "net_income": int(revenue * rng.uniform(0.02, 0.3)),
                        "operating_cash_flow": int(revenue * rng.uniform(0.1, 0.4)),
                        "capital_expenditures": int(revenue * rng.uniform(0.01, 0.1)),
                        "eps_diluted": round(rng.uniform(0.1, 30), 2),
                    }
                )
            items.append(
                EvidenceItem(
                    source_ref=f"financials-{ticker}{suffix}",
                    kind="tool",
                    content={"ticker": ticker, "unit": "millions", "annual": years},
                )
            )
        for ticker in TICKERS[:8]:
            chain = []
            for month in range(1, 4):
                strikes = []
                for strike in range(100, 300, 10):
                    strikes.append(
                        {
                            "strike": strike,
                            "call_volume": rng.randint(0, 20_000),
                            "put_volume": rng.randint(0, 20_000),
                            "call_open_interest": rng.randint(0, 90_000),
                            "put_open_interest": rng.randint(0, 90_000),
                            "implied_volatility": round(rng.uniform(0.1, 0.9), 4),
                        }
                    )
                chain.append({"expiration": f"2024-0{month}-19", "strikes": strikes})
            items.append(
                EvidenceItem(
                    source_ref=f"options-{ticker}{suffix}",
                    kind="tool",
                    content={"symbol": ticker, "chain": chain},
                )
            )
        for ticker in TICKERS[:5]:
            history = []
            close = _money(rng, 50, 500)
            for day in range(100):
                close = round(close * rng.uniform(0.97, 1.03), 2)
                history.append(
                    {
                        "date": f"2024-{1 + day // 28:02d}-{1 + day % 28:02d}",
                        "open": round(close * rng.uniform(0.99, 1.01), 2),
                        "high": round(close * 1.02, 2),
                        "low": round(close * 0.98, 2),
                        "close": close,
                        "volume": rng.randint(10_000, 9_000_000),
                    }
                )
            items.append(
                EvidenceItem(
                    source_ref=f"history-{ticker}{suffix}",
                    kind="tool",
                    content=json.dumps({"symbol": ticker, "prices": history}),
                )
            )
        for article in range(11):
            items.append(
                EvidenceItem(
                    source_ref=f"news-{article}{suffix}",
                    kind="text",
                    url=f"https://news.example.com/{article}",
                    content=_article(rng),
                )
            )
    return items


def _article(rng: random.Random) -> str:
    paragraphs = []
    for _ in range(8):
        sentence = []
        for _ in range(6):
            words = rng.sample(WORDS, 8)
            number = rng.choice(
                [
                    f"${rng.uniform(1, 500):.1f} billion",
                    f"{rng.uniform(0, 60):.1f}%",
                    f"{rng.randint(1_000, 900_000):,}",
                    f"${rng.uniform(1, 900):.2f}",
                    f"{rng.uniform(1, 40):.1f}x",
                ]
            )
            sentence.append(" ".join(words[:5]) + f" {number} " + " ".join(words[5:]) + ".")
        paragraphs.append(" ".join(sentence))
    rows = "\n".join(
        f"| {rng.choice(WORDS).title()} | {rng.randint(100, 99_999):,} | "
        f"{rng.randint(100, 99_999):,} | {rng.uniform(-30, 30):.1f}% |"
        for _ in range(12)
    )
    table = "Key figures (in millions)\n\n| Item | 2023 | 2024 | Change |\n|---|---:|---:|---:|\n"
    return "\n\n".join([*paragraphs[:4], table + rows, *paragraphs[4:]])


def make_report(rng: random.Random, evidence: list[EvidenceItem]) -> str:
    quotes = [item for item in evidence if item.source_ref.startswith("quote-")][:40]
    financials = [item for item in evidence if item.source_ref.startswith("financials-")][:40]
    lines = ["# Portfolio review", "", "## 1. Market snapshot", ""]
    kinds = ["exact", "rounded", "derived", "equation", "wrong", "orphan", "close"]
    count = 0
    position = 0
    while count < 150:
        kind = kinds[position % len(kinds)]
        position += 1
        quote: dict[str, Any] = quotes[position % len(quotes)].content  # type: ignore[assignment]
        statements: dict[str, Any] = financials[position % len(financials)].content  # type: ignore[assignment]
        annual: list[dict[str, Any]] = statements["annual"]
        year = annual[position % len(annual)]
        ticker = quote["symbol"]
        if kind == "exact":
            lines.append(
                f"- {ticker} last traded at ${quote['price']:.2f} with a P/E of {quote['pe']:.2f} "
                f"[quote-{ticker}]."
            )
            count += 2
        elif kind == "rounded":
            lines.append(
                f"{ticker} has a market cap of ${quote['market_cap'] / 1e9:.1f}B and "
                f"revenue of ${year['revenue'] / 1000:.1f}B in {year['fiscal_year']} "
                f"[financials-{ticker}]."
            )
            count += 2
        elif kind == "derived":
            total = year["operating_income"] + year["net_income"]
            lines.append(
                f"In {year['fiscal_year']}, {ticker} operating income plus net income "
                f"came to {total:,} million."
            )
            count += 1
        elif kind == "equation":
            ocf, capex = year["operating_cash_flow"], year["capital_expenditures"]
            lines.append(
                f"Owner earnings: Operating Cash Flow ${ocf:,}M - CapEx ${capex:,}M = "
                f"${ocf - capex:,}M [financials-{ticker}]."
            )
            count += 3
        elif kind == "wrong":
            ocf, capex = year["operating_cash_flow"], year["capital_expenditures"]
            lines.append(
                f"Free cash flow: ${ocf:,}M - ${capex:,}M = ${ocf - capex + 137:,}M as of "
                f"March 31, 2024."
            )
            count += 3
        elif kind == "orphan":
            lines.append(
                f"Analysts see {rng.randint(10_000, 99_999):,} new subscribers and "
                f"a {rng.uniform(1, 9):.2f}% churn rate for {ticker} in Q3 2024."
            )
            count += 2
        else:
            lines.append(
                f"{ticker} EPS was ${quote['eps'] * 1.02 + 0.07:.2f}, "
                f"up {rng.uniform(1, 20):.1f}% year over year."
            )
            count += 2
        lines[-1] += " " + _filler(rng)
        if position % 12 == 0:
            lines += ["", f"## {position // 12 + 1}. Section {position // 12 + 1}", ""]
    return "\n".join(lines) + "\n"


def _filler(rng: random.Random) -> str:
    words = rng.sample(WORDS, 9)
    return " ".join(words).capitalize() + "."


def _median_ms(action: Callable[[], object], runs: int, before: Callable[[], None]) -> float:
    timings = []
    for _ in range(runs):
        before()
        began = time.perf_counter()
        action()
        timings.append((time.perf_counter() - began) * 1000)
    return statistics.median(timings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--profile", action="store_true", help="print a cProfile of cold runs")
    args = parser.parse_args()

    evidence = make_evidence(random.Random(7))
    doubled = make_evidence(random.Random(7), copies=2)
    body = make_report(random.Random(11), evidence)
    size = sum(
        len(item.content) if isinstance(item.content, str) else len(json.dumps(item.content))
        for item in evidence
    )
    index = build_index(evidence)
    result = analyze(body, index, settings=SETTINGS)
    report = result.report
    print(f"report: {len(body):,} chars, {len(report.matches)} claims")
    print(f"evidence: {len(evidence)} items, {size / 1024:.0f} KB, {len(index):,} index entries")
    statuses: dict[str, int] = {}
    for match in report.matches:
        statuses[match.status] = statuses.get(match.status, 0) + 1
    print("statuses:", ", ".join(f"{key}={value}" for key, value in sorted(statuses.items())))
    print(f"findings: {len(result.findings)}, fixes: {len(result.fixes)}")

    if args.profile:
        import cProfile
        import pstats

        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(10):
            reset_caches()
            analyze(body, build_index(evidence), settings=SETTINGS)
        profiler.disable()
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(30)
        return

    cold = _median_ms(
        lambda: analyze(body, build_index(evidence), settings=SETTINGS), args.runs, reset_caches
    )
    warm = _median_ms(lambda: analyze(body, index, settings=SETTINGS), args.runs, lambda: None)
    cold_doubled = _median_ms(
        lambda: analyze(body, build_index(doubled), settings=SETTINGS), args.runs, reset_caches
    )
    bundle = Bundle(query="How did the companies trade and earn?", body=body, evidence=evidence)
    pipeline_cold = _median_ms(lambda: validate(bundle), args.runs, reset_caches)
    pipeline_warm = _median_ms(lambda: validate(bundle, index=index), args.runs, lambda: None)
    print(f"cold (build_index + analyze): {cold:8.2f} ms   target <= 30")
    print(f"warm (analyze, reused index): {warm:8.2f} ms   target <= 5")
    print(f"cold, evidence doubled:       {cold_doubled:8.2f} ms")
    print(f"ratio doubled / cold:         {cold_doubled / cold:8.2f}      target <= 2.0")
    print(f"pipeline cold (validate):     {pipeline_cold:8.2f} ms")
    print(f"pipeline warm (reused index): {pipeline_warm:8.2f} ms")


if __name__ == "__main__":
    main()
