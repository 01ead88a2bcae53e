"""Structured fields of a report: the decision, the conviction and the numeric fields.

The bug this guards against (docs/spec.md §11.4) was a re-parse that turned ``decision``
into UNKNOWN and ``intrinsic_value`` into None. Here a field that cannot be re-read keeps
its previous value -- :func:`extract_fields` never empties a field.

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
from collections.abc import Iterable, Iterator, Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

from validation.engine.types import ExtractedFields
from validation.engine.visible import mask_hidden

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

# Labels are found keyword first and their surroundings are then checked with possessive
# patterns, so every character is looked at a bounded number of times: a wall of spaces,
# `*`, `_`, `|` or newlines costs time linear in its length (no regex tries to start a
# match at each character of the wall and rescan the rest of it).
_STRONG_DECISION_KEY = re.compile(r"(?i)final\s++decision")
_WEAK_DECISION_KEY = re.compile(r"(?i)decision|recommendation|verdict|rating|action")
_CONVICTION_KEY = re.compile(r"(?i)(?:final\s++)?(conviction)(?:\s++level)?")
# What may stand right before a label: markdown emphasis, quotes, headings, table pipes.
_DECORATION_MARKS = frozenset("*_`>#|")
# The decoration run before a label must hold one of these, or start a line.
_LEADING_MARKS = frozenset("*_|")
_SEPARATOR = r"[*_\s]*+[:\-–—=|][*_\s]*+"  # noqa: RUF001
_STRONG_VALUE = re.compile(rf"{_SEPARATOR}\[?([A-Za-z][A-Za-z/]*+(?:\s++[A-Za-z]++)?)")
_WEAK_VALUE = re.compile(rf"{_SEPARATOR}\[?([A-Za-z]++(?:\s++[A-Za-z]++)?)")

_NUMERIC_LABELS: dict[str, str] = {
    "intrinsic_value": r"intrinsic[\s_]+value(?:\s+per\s+share)?|\bIV\b",
    "fair_value": r"fair[\s_]+value(?:\s+estimate)?(?:\s+per\s+share)?",
    "target_price": r"(?:target[\s_]+price|price[\s_]+target)",
    "margin_of_safety": r"margin[\s_]+of[\s_]+safety|\bMoS\b",
    "current_price": r"(?:current|share|stock)[\s_]+price",
}
# Possessive: filler never gives back what it took (a number cannot start with filler), so
# a run of filler is scanned once instead of being re-split in every possible way.
_FILLER = (
    r"(?:[\s*_:=~≈|]++|\([^)\n]{0,40}\)|\b(?:per\s+share|estimated?|is|was|of|at|about|"
    r"approximately|approx\.?|around|roughly|stands\s+at|comes\s+to|now)\b)*+"
)
_NUMBER = (
    r"(?P<sign>[-−])?\s*+(?:[$€£]|(?:USD|EUR|GBP|DKK)\s*+)?\s*+"  # noqa: RUF001
    r"(?P<number>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?:(?P<suffix>[kKmMbBtT]n?)\b|\s*+(?P<word>thousand|million|billion|trillion|bn|mn)\b)?"
    r"(?P<percent>\s*+%)?"
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
_RESULT_REACH = 122  # an optional ":" or "=", at most 120 characters, then "="
_RESULT = re.compile(rf"(?i)[:=]?(?:(?![.;!?]\s)[^\n:=]){{0,120}}?=[*_\s]*+{_NUMBER}")


def extract_fields(body: str, previous: ExtractedFields | None = None) -> ExtractedFields:
    """Read the fields of ``body``; whatever cannot be read keeps its ``previous`` value.

    Only visible text counts: a comment or another construct a Markdown reader hides is
    blanked first (engine.visible), so it decides nothing."""
    body = mask_hidden(body)
    previous = previous or ExtractedFields()
    numeric = dict(previous.numeric)
    numeric.update(read_numeric(body))
    return ExtractedFields(
        decision=read_decision(body) or previous.decision,
        conviction=read_conviction(body) or previous.conviction,
        numeric=numeric,
    )


def read_decision(text: str) -> str | None:
    strong = _last_value(_label_spans(_STRONG_DECISION_KEY, text), _STRONG_VALUE, text, None)
    if strong:
        return strong
    return _last_value(_label_spans(_WEAK_DECISION_KEY, text), _WEAK_VALUE, text, RATINGS)


def read_conviction(text: str) -> str | None:
    return _last_value(_conviction_spans(text), _WEAK_VALUE, text, CONVICTIONS)


def _label_spans(key: re.Pattern[str], text: str) -> Iterator[tuple[int, int]]:
    for found in key.finditer(text):
        if _stands_alone(text, found.start()):
            yield found.start(), found.end()


def _conviction_spans(text: str) -> Iterator[tuple[int, int]]:
    for found in _CONVICTION_KEY.finditer(text):
        if _stands_alone(text, found.start()):
            yield found.start(), found.end()
        elif found.start(1) > found.start() and _stands_alone(text, found.start(1)):
            yield found.start(1), found.end()  # "xfinal conviction": the label is "conviction"


def _stands_alone(text: str, start: int) -> bool:
    """A label counts at line start or after emphasis, a quote, a heading or a table pipe
    (``**Decision:**``, ``| Decision |``), not inside a word (``indecision``).

    The walk back covers only the decoration run right before this label; labels are
    letters, so the runs of two labels never overlap and the walks add up to the text."""
    position = start
    leading = False
    while position > 0:
        char = text[position - 1]
        if char.isspace() or char in _DECORATION_MARKS:
            leading = leading or char.isspace() or char in _LEADING_MARKS
            if char == "\n":
                return True
            position -= 1
            continue
        return leading
    return True


def _last_value(
    spans: Iterable[tuple[int, int]],
    value: re.Pattern[str],
    text: str,
    allowed: tuple[str, ...] | None,
) -> str | None:
    found: str | None = None
    for _start, end in spans:
        match = value.match(text, end)
        if match is None:
            continue
        after = text[match.end(1) : match.end(1) + 200]
        bracketed = text[match.start(1) - 1] == "["
        if after.startswith("|") or (bracketed and after.lstrip().startswith("|")):
            continue  # the prompt's template "[BUY|WATCH|AVOID]" echoed back
        normalized = _normalize_word(match.group(1), allowed)
        if normalized is not None:
            found = normalized
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
            match = _DIRECT.match(text, found.end())
            # A formula result needs an "=" within reach; most labels have none.
            if match is None and "=" in text[found.end() : found.end() + _RESULT_REACH]:
                match = _RESULT.match(text, found.end())
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
