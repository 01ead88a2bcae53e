"""Structured fields of a report: the decision, the conviction and the numeric fields.

The refinement seed's bug was a re-parse that turned ``decision`` into UNKNOWN and
``intrinsic_value`` into None. Here a field that cannot be re-read keeps its previous
value -- :func:`extract_fields` never empties a field.

Decision (last match wins, so a closing "FINAL DECISION" beats an early summary):

* the strong label ``FINAL DECISION``, any word: ``FINAL DECISION: BUY``,
  ``**FINAL DECISION:** BUY``, ``**FINAL DECISION: BUY**``, ``Final decision - WATCH``;
* weak labels, a known rating word (``BUY``, ``STRONG BUY``, ``ACCUMULATE``, ``WATCH``,
  ``HOLD``, ``REDUCE``, ``AVOID``, ``SELL``, ``STRONG SELL``, ``PASS``) in any case, or
  any word written in capitals: ``**Decision:** BUY``, ``DECISION: AVOID``,
  ``Decision: **Watch**``, ``Recommendation: WATCH``, ``Verdict: AVOID``,
  ``Rating: HOLD``, ``Action: BUY``, ``| **Decision** | BUY |``.

A strong label beats a weak one. Template echoes (``[BUY|WATCH|AVOID]``) and
placeholders (``UNKNOWN``, ``N/A``, ``TBD``, ``NONE``) are not values.

Conviction: ``FINAL CONVICTION: HIGH``, ``Conviction: Moderate``, ``Conviction level:
LOW`` -- one of ``VERY HIGH``, ``HIGH``, ``MODERATE``, ``MEDIUM``, ``LOW``, ``VERY LOW``.
Values are upper-cased.

Numeric fields (a label, optional filler such as "per share", "(DCF)", "estimate",
"is", "of", "at", "~", then the number):

=====================  ==========================================================
``intrinsic_value``    intrinsic value, ``intrinsic_value``, IV
``fair_value``         fair value, ``fair_value``
``target_price``       target price, price target, ``target_price``
``margin_of_safety``   margin of safety, ``margin_of_safety``, MoS
``current_price``      current price, share price, stock price, ``current_price``
=====================  ==========================================================

When no number follows the label directly, the result of a formula shown on the same line
counts (``Margin of safety: (139 - 104.2) / 139 = 25.0%`` -> 25.0). A value is stored as
the number shown: ``$195.00`` -> 195.00, ``25%`` -> 25; scale words multiply
(``$14.8B`` -> 14800000000). The last occurrence of a field wins.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

from validation.engine.types import ExtractedFields

RATINGS = (
    "STRONG BUY",
    "STRONG SELL",
    "ACCUMULATE",
    "BUY",
    "WATCH",
    "HOLD",
    "REDUCE",
    "AVOID",
    "SELL",
    "PASS",
)
CONVICTIONS = ("VERY HIGH", "VERY LOW", "HIGH", "MODERATE", "MEDIUM", "LOW")
_PLACEHOLDERS = frozenset({"UNKNOWN", "N/A", "NA", "TBD", "NONE", "NULL", "PENDING"})

_DECORATION = r"[\s*_`>#|]*"  # markdown emphasis, quotes, headings, table pipes
_SEPARATOR = r"[*_\s]*[:\-–—=|][*_\s]*"  # noqa: RUF001
_STRONG_DECISION = re.compile(
    rf"(?im)(?:^|[|\s*_]){_DECORATION}final\s+decision"
    rf"{_SEPARATOR}\[?([A-Za-z][A-Za-z/]*(?:\s+[A-Za-z]+)?)"
)
_WEAK_DECISION = re.compile(
    rf"(?im)(?:^|[|\s*_]){_DECORATION}(?:decision|recommendation|verdict|rating|action)"
    rf"{_SEPARATOR}\[?([A-Za-z]+(?:\s+[A-Za-z]+)?)"
)
_CONVICTION = re.compile(
    rf"(?im)(?:^|[|\s*_]){_DECORATION}(?:final\s+)?conviction(?:\s+level)?"
    rf"{_SEPARATOR}\[?([A-Za-z]+(?:\s+[A-Za-z]+)?)"
)

_NUMERIC_LABELS: dict[str, str] = {
    "intrinsic_value": r"intrinsic[\s_]+value(?:\s+per\s+share)?|\bIV\b",
    "fair_value": r"fair[\s_]+value(?:\s+estimate)?(?:\s+per\s+share)?",
    "target_price": r"(?:target[\s_]+price|price[\s_]+target)",
    "margin_of_safety": r"margin[\s_]+of[\s_]+safety|\bMoS\b",
    "current_price": r"(?:current|share|stock)[\s_]+price",
}
_FILLER = (
    r"(?:[\s*_:=~≈|]+|\([^)\n]{0,40}\)|\b(?:per\s+share|estimated?|is|was|of|at|about|"
    r"approximately|approx\.?|around|roughly|stands\s+at|comes\s+to|now)\b)*"
)
_NUMBER = (
    r"(?P<sign>[-−])?\s*(?:[$€£]|USD\s*|EUR\s*|GBP\s*|DKK\s*)?\s*"  # noqa: RUF001
    r"(?P<number>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?:(?P<suffix>[kKmMbBtT]n?)\b|\s*(?P<word>thousand|million|billion|trillion|bn|mn)\b)?"
    r"(?P<percent>\s*%)?"
)
_SCALES = {
    "k": Decimal(10) ** 3,
    "thousand": Decimal(10) ** 3,
    "m": Decimal(10) ** 6,
    "mn": Decimal(10) ** 6,
    "million": Decimal(10) ** 6,
    "b": Decimal(10) ** 9,
    "bn": Decimal(10) ** 9,
    "billion": Decimal(10) ** 9,
    "t": Decimal(10) ** 12,
    "tn": Decimal(10) ** 12,
    "trillion": Decimal(10) ** 12,
}
_LABEL_PATTERNS = {name: re.compile(rf"(?i)(?:{label})") for name, label in _NUMERIC_LABELS.items()}
_DIRECT = re.compile(rf"(?i){_FILLER}{_NUMBER}")
# "Margin of safety: (139.00 - 104.20) / 139.00 = 25.0%": the result of a shown formula.
_RESULT = re.compile(rf"(?i)[:=]?(?:(?![.;!?]\s)[^\n:=]){{0,120}}?=[*_\s]*{_NUMBER}")


def extract_fields(body: str, previous: ExtractedFields | None = None) -> ExtractedFields:
    """Read the fields of ``body``; whatever cannot be read keeps its ``previous`` value."""
    previous = previous or ExtractedFields()
    numeric = dict(previous.numeric)
    numeric.update(read_numeric(body))
    return ExtractedFields(
        decision=read_decision(body) or previous.decision,
        conviction=read_conviction(body) or previous.conviction,
        numeric=numeric,
    )


def read_decision(text: str) -> str | None:
    strong = _last_value(_STRONG_DECISION, text, None)
    return strong or _last_value(_WEAK_DECISION, text, RATINGS)


def read_conviction(text: str) -> str | None:
    return _last_value(_CONVICTION, text, CONVICTIONS)


def _last_value(pattern: re.Pattern[str], text: str, allowed: tuple[str, ...] | None) -> str | None:
    found: str | None = None
    for match in pattern.finditer(text):
        after = text[match.end(1) :]
        bracketed = text[match.start(1) - 1] == "["
        if after.startswith("|") or (bracketed and after.lstrip().startswith("|")):
            continue  # the prompt's template "[BUY|WATCH|AVOID]" echoed back
        value = _normalize_word(match.group(1), allowed)
        if value is not None:
            found = value
    return found


def _normalize_word(raw: str, allowed: tuple[str, ...] | None) -> str | None:
    """``allowed=None``: any word (a strong label); else a word of ``allowed``, or any word
    written in capitals (``DECISION: ACCUMULATE`` is a field, ``decision: we wait`` prose)."""
    words = raw.split()
    if not words:
        return None
    upper = [word.upper() for word in words]
    vocabulary = allowed if allowed is not None else RATINGS
    # "STRONG BUY" is two words; "BUY because" is one word and prose.
    for candidate in (" ".join(upper[:2]), upper[0]):
        if candidate in vocabulary:
            return candidate
    if upper[0] in _PLACEHOLDERS or "/" in upper[0]:
        return None
    if allowed is None or (words[0].isupper() and len(words[0]) > 1 and allowed is RATINGS):
        return upper[0]
    return None


def read_numeric(text: str) -> dict[str, Decimal]:
    values: dict[str, Decimal] = {}
    for name, label in _LABEL_PATTERNS.items():
        for found in label.finditer(text):
            match = _DIRECT.match(text, found.end()) or _RESULT.match(text, found.end())
            value = _to_decimal(match) if match else None
            if value is not None:
                values[name] = value
    return values


def _to_decimal(match: re.Match[str]) -> Decimal | None:
    try:
        value = Decimal(match.group("number").replace(",", ""))
    except InvalidOperation:  # pragma: no cover - the pattern only admits digits
        return None
    scale = (match.group("suffix") or match.group("word") or "").lower()
    if scale and not match.group("percent"):
        value *= _SCALES[scale]
    if match.group("sign"):
        value = -value
    return value


def fields_from_mapping(mapping: Mapping[str, Any]) -> ExtractedFields:
    """A bundle's loose ``fields`` dict as :class:`ExtractedFields`; unreadable values are
    dropped, never guessed. Numeric entries may sit at the top level or under ``numeric``."""
    decision = mapping.get("decision")
    conviction = mapping.get("conviction")
    numeric: dict[str, Decimal] = {}
    nested = mapping.get("numeric")
    candidates = dict(nested) if isinstance(nested, Mapping) else {}
    candidates.update({k: v for k, v in mapping.items() if k not in ("decision", "conviction")})
    for key, value in candidates.items():
        if isinstance(value, bool) or not isinstance(value, int | float | str | Decimal):
            continue
        try:
            number = Decimal(str(value).replace(",", ""))
        except InvalidOperation:
            continue
        if number.is_finite():
            numeric[str(key)] = number
    return ExtractedFields(
        decision=decision.strip().upper()
        if isinstance(decision, str) and decision.strip()
        else None,
        conviction=(
            conviction.strip().upper()
            if isinstance(conviction, str) and conviction.strip()
            else None
        ),
        numeric=numeric,
    )
