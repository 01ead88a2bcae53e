"""Label words: what a number is *of* ("operating cash flow", "price").

Report labels come from the words before a number (or a table's row and column
headers); evidence labels from JSON keys and paths or the words before a number
in text. Both are reduced to the same canonical tokens so "Operating Cash Flow",
`operating_cash_flow`, `operatingCashFlow` and "OCF" compare equal, and
"closed at" meets a JSON `price`. The vocabulary is general finance wording,
not tuned to any dataset.
"""

from __future__ import annotations

import re
from functools import lru_cache


def wordset(text: str) -> frozenset[str]:
    """The whitespace-separated words of `text` (for word lists in the source)."""
    return frozenset(text.split())


_CAMEL = re.compile(
    r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|(?<=[A-Za-z])(?=[0-9])|(?<=[0-9])(?=[A-Za-z])"
)
_NON_WORD = re.compile(r"[^a-z0-9&]+")

# Multi-word names first (applied to the lower-cased, space-joined text).
_PHRASES: tuple[tuple[str, str], ...] = (
    ("operating cash flows", "ocf"),
    ("operating cash flow", "ocf"),
    ("cash from operations", "ocf"),
    ("cash flow from operations", "ocf"),
    ("cash flow from operating activities", "ocf"),
    ("net cash provided by operating activities", "ocf"),
    ("free cash flows", "fcf"),
    ("free cash flow", "fcf"),
    ("capital expenditures", "capex"),
    ("capital expenditure", "capex"),
    ("capital spending", "capex"),
    ("purchases of property and equipment", "capex"),
    ("earnings per share", "eps"),
    ("price to earnings", "pe"),
    ("price earnings", "pe"),
    ("p e", "pe"),
    ("price to book", "pb"),
    ("p b", "pb"),
    ("market capitalization", "marketcap"),
    ("market capitalisation", "marketcap"),
    ("market cap", "marketcap"),
    ("mkt cap", "marketcap"),
    ("enterprise value", "ev"),
    ("net income", "netincome"),
    ("gross profit", "grossprofit"),
    ("operating profit", "operatingincome"),
    ("operating earnings", "operatingincome"),
    ("ebit", "operatingincome"),
    ("net profit", "netincome"),
    ("net earnings", "netincome"),
    ("owner earnings", "ownerearnings"),
    ("gross margin", "grossmargin"),
    ("operating margin", "operatingmargin"),
    ("net margin", "netmargin"),
    ("profit margin", "netmargin"),
    ("operating income", "operatingincome"),
    ("dividend yield", "dividendyield"),
    ("return on invested capital", "roic"),
    ("return on equity", "roe"),
    ("return on assets", "roa"),
    ("shares outstanding", "sharesoutstanding"),
    ("outstanding shares", "sharesoutstanding"),
    ("intrinsic value", "intrinsicvalue"),
    ("fair value", "intrinsicvalue"),
    ("open interest", "openinterest"),
    ("implied volatility", "iv"),
    ("year over year", "yoy"),
    ("year on year", "yoy"),
    ("quarter over quarter", "qoq"),
    ("52 week high", "high52"),
    ("52 week low", "low52"),
    ("fifty two week high", "high52"),
    ("all time high", "ath"),
    ("research and development", "rd"),
    ("research development", "rd"),  # "Research, development and engineering"
    ("r&d", "rd"),
    # Abbreviations of line items, spelled out as their words.
    ("sg&a", "selling general administrative"),
    ("g&a", "general administrative"),
    ("pp&e", "property plant equipment"),
    ("d&a", "depreciation amortization"),
    ("cap ex", "capex"),
    # A balance at the beginning of a period is its opening balance.
    ("beginning of year", "opening"),
    ("beginning of the year", "opening"),
    ("beginning of period", "opening"),
    ("beginning of the period", "opening"),
    ("op ex", "opex"),
    ("yo y", "yoy"),
    ("q o q", "qoq"),
    ("total debt", "debt"),
    ("long term debt", "debt"),
)

_PHRASE_STARTS = frozenset(phrase.split()[0] for phrase, _ in _PHRASES)

# Single words onto a canonical word.
_SYNONYMS: dict[str, str] = {
    "revenues": "revenue",
    "sales": "revenue",
    "turnover": "revenue",
    "topline": "revenue",
    "closed": "price",
    "close": "price",
    "closing": "price",
    "last": "price",
    "quote": "price",
    "quoted": "price",
    "trading": "price",
    "trades": "price",
    "traded": "price",
    "share_price": "price",
    "px": "price",
    "rose": "change",
    "fell": "change",
    "gained": "change",
    "lost": "change",
    "dropped": "change",
    "declined": "change",
    "increased": "change",
    "decreased": "change",
    "moved": "change",
    "vol": "volume",
    "volumes": "volume",
    "calls": "call",
    "puts": "put",
    "cfo": "ocf",
    "fcff": "fcf",
    "capexp": "capex",
    "profit": "netincome",
    "earnings": "netincome",
    "dividends": "dividend",
    "div": "dividend",
    "mcap": "marketcap",
    "marketcapitalization": "marketcap",
    "ebitda": "ebitda",
    "percentage": "percent",
    "pct": "percent",
    "yield": "yield",
    "estimate": "estimate",
    "estimated": "estimate",
    "consensus": "estimate",
    "expected": "estimate",
    "actual": "actual",
    "reported": "actual",
    "surprise": "surprise",
    "employees": "employee",
    "headcount": "employee",
    "staff": "employee",
}

_STOPWORDS = wordset(
    """
    a an the of in on at to for and or by with from as is was were are be been being it
    its this that these those than then which who whom whose what when where while per
    about approximately around roughly nearly almost over under more less up down into
    onto via vs versus also only just still both each any all some such our their his
    her we they you i he she has have had do does did will would should could may might
    can not no nor so if but there here total overall value amount figure number usd eur
    gbp dkk jpy inr chf cad aud million millions billion billions thousand thousands
    trillion mn bn mm k m b t x data item items n
    """
)


@lru_cache(maxsize=65536)
def label_tokens(text: str) -> frozenset[str]:
    """Canonical content words of a label, key or path."""
    if not text:
        return frozenset()
    words = _NON_WORD.sub(" ", _CAMEL.sub(" ", text).lower()).split()
    if not _PHRASE_STARTS.isdisjoint(words):
        spaced = " " + " ".join(words) + " "
        for phrase, canonical in _PHRASES:
            if phrase in spaced:
                spaced = spaced.replace(" " + phrase + " ", " " + canonical + " ")
        words = spaced.split()
    tokens: set[str] = set()
    previous = ""
    for word in words:
        if word in _STOPWORDS or (word.isdigit() and not _is_year(word)):
            previous = ""
            continue
        if previous and word.isalpha():
            # "Operating income" also as "operatingincome": PDF text often loses its spaces.
            tokens.add(previous + word)
        previous = word if word.isalpha() else ""
        word = _SYNONYMS.get(word, word)
        if len(word) > 4 and word.endswith("ies"):  # "liabilities" is "liability"
            word = _SYNONYMS.get(word[:-3] + "y", word[:-3] + "y")
        elif len(word) > 3 and word[-1] == "s" and word[-2] != "s":
            word = _SYNONYMS.get(word[:-1], word[:-1])
        tokens.add(word)
    return frozenset(tokens)


def _is_year(word: str) -> bool:
    # Years label *which* number ("2023 revenue"), so they stay in labels.
    return len(word) == 4 and word[:2] in ("19", "20")


def overlap(report: frozenset[str], evidence: frozenset[str]) -> float:
    """Label agreement in [0, 1]: shared tokens over the smaller label's size."""
    if not report or not evidence:
        return 0.0
    shared = len(report & evidence)
    if not shared:
        return 0.0
    return min(1.0, shared / min(len(report), len(evidence), 4))
