"""The evidence index's entries and its data: entry kinds and flags, and the state
every part of the index shares.
"""

from __future__ import annotations

import json
import math
import re
import weakref
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

# Entry kinds (first field of an entry's record).
_TEXT = 0  # (kind, item, start, end, number, scale, unit, flags)
_SCALAR = 1  # (kind, container, key or index, value, group, flags)
_STRING = 2  # (kind, container, key, number, group, flags, scale, unit)
_PROSE = 3  # (kind, container, key, number, group, flags, scale, unit, text id, start, end)
# The as-written twin of a scaled number is the entry right after it, and shares
# its record (the same tuple object: one allocation, and one object fewer for the
# garbage collector). The record's flags field says _SCALED; `_flags_of` adds
# _MANTISSA for the twin.
_MANTISSA = 1
_SCALED = 2

_KEY_SCALE = re.compile(
    r"(?:_(?:in_)?|(?<=[a-z])(?:In)?)(?P<w>[Tt]housands|[Mm]illions|[Bb]illions|[Tt]rillions)$"
    r"|_(?:in_)?(?P<s>mm|mn|bn|MM|MN|BN)$"
)
_UNIT_KEYS = ("unit", "units", "scale", "currency_unit", "denomination", "Unit", "Units")
_UNIT_KEY_SET = frozenset(_UNIT_KEYS)
_SCALES = {
    "thousand": Decimal(1000),
    "thousands": Decimal(1000),
    "million": Decimal(10**6),
    "millions": Decimal(10**6),
    "mm": Decimal(10**6),
    "mn": Decimal(10**6),
    "billion": Decimal(10**9),
    "billions": Decimal(10**9),
    "bn": Decimal(10**9),
    "trillion": Decimal(10**12),
    "trillions": Decimal(10**12),
}
_SCALE_IN_STRING = re.compile(r"(?i)\b(thousands?|millions?|billions?|trillions?|mm|mn|bn)\b")
_NUMERIC_STRING = re.compile(
    r"[ ]*[(+\-\u2212]?[ ]*(?:[$€£¥]|[A-Z]{3}[ ]?)?[ ]*[-\u2212]?"
    r"(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\.[0-9]+)?"
    r"[ ]*(?:%|[kKmMbBT]|bn|mn|mm|MM|[a-z]{4,9}|[A-Z]{3})?[ ]*\)?[ ]*"
)
_LONG_STRING = 40
_PLAIN_NUMBER = re.compile(r"[ ]*[-+\u2212]?((?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\.[0-9]+)?)[ ]*")
_HAS_DIGIT = re.compile(r"[0-9]")
_PERIOD_KEYS = frozenset(
    ("year", "fiscal_year", "fiscalYear", "fy", "period", "date", "as_of", "asOf")
)
_YEAR = re.compile(r"(?:FY|CY)?'?((?:19|20)[0-9]{2})(?![0-9])")


def _is_iso_date(text: str) -> bool:
    return len(text) == 10 and text[4:5] == "-" and text[7:8] == "-"


def _year_of(period: Any) -> str:
    """The year a record is about: 2023, "2023-12-31", "FY2023"."""
    if type(period) is int and 1900 <= period <= 2100:
        return str(period)
    if type(period) is str:
        match = _YEAR.match(period.strip())
        if match:
            return match.group(1)
    return ""


_INF = math.inf
_UNSET: Any = object()
_EXCERPT_RADIUS = 60
_MAX_EXCERPT = 2000  # EvidenceExcerpt.excerpt's bound
_COMMON_TOKEN = 64  # a label token on more entries than this says little


@dataclass(slots=True)
class _Item:
    source_ref: str
    url: str | None
    text: str | None  # text items; JSON items keep None
    content: Any = None  # JSON items: the parsed content (its titles may declare a scale)
    first: int = 0  # entry ids of this item are first..last-1, in document order
    last: int = 0
    starts: list[int] = field(default_factory=list)  # text numbers' positions, in order
    ends: list[int] = field(default_factory=list)


# A JSON object or array: (item, parent container or -1, is a list, scale, scaled,
# key or index in the parent). A plain tuple: builds create thousands, and tuples
# are the cheapest objects to make and to leave for the garbage collector. The
# path is not stored: `_container_path` spells it out from the parents on demand.
_Container = tuple[int, int, bool, Decimal, bool, Any]
# What the walk keeps per (key, parent key, context): group, its members, and the
# key's own scale ("revenue_millions") as a float, or None.
_Slot = tuple[int, list[int], float | None]
# A pending node of the walk: (node, -1 or the array position to resume at, parent
# container (the array's own when resuming), key or index in the parent, key,
# parent key, scale, scaled, context).
_Task = tuple[Any, int, int, Any, str, str, Decimal, bool, int]


class _IndexState:
    """The index's data: per-entry records, containers, groups and the memos of its lookups."""

    def __init__(self) -> None:
        self.items: list[_Item] = []
        self.refs: dict[str, int] = {}  # source_ref -> item id
        self._magnitude: list[float] = []  # per entry, for search
        self._record: list[tuple[Any, ...]] = []  # per entry, see the kinds above
        self._containers: list[_Container] = []
        self._contexts: dict[tuple[str, ...], int] = {}
        self._context_list: list[tuple[str, ...]] = []
        self._groups: dict[tuple[str, str, int], int] = {}  # (key, parent, context) -> id
        self._group_keys: list[tuple[str, str, int]] = []
        self._group_members: list[list[int]] = []  # building only, then `_members`
        self._members: list[tuple[int, ...]] = []  # entries of each group
        self._group_tokens: dict[int, frozenset[str]] = {}
        self._group_context: dict[int, frozenset[str]] = {}  # by context id
        self._group_everything: dict[int, frozenset[str]] = {}  # what and whose, by group
        self._string_texts: list[str] = []  # JSON strings scanned as text (all but a lone number)
        self._key_scales: dict[str, Decimal | None] = {}
        # Building only: (parent key, context) -> key -> slot of a JSON number.
        self._slots: dict[tuple[str, int], dict[str, _Slot]] = {}
        self._years: dict[str, str] = {}  # period string -> its year ("" if none)
        self._paths: dict[int, str] = {}  # container -> its path, once asked for
        self._order: list[int] = []
        self._keys: list[float] = []
        self._cache: dict[int, Any] = {}  # entry -> EvidenceNumber (typed on the index)
        self._postings: dict[str, list[int]] | None = None
        self._related: dict[tuple[frozenset[str], int], list[int]] = {}
        self._self_ref: weakref.ReferenceType[Any] = weakref.ref(self)  # typed on the index
        self._tokens: dict[int, frozenset[str]] = {}  # text entries
        self._labels: dict[int, str] = {}  # text entries
        self._prose_labels: dict[tuple[int, int], str] = {}  # (item, place of a text number)
        self._item_scales: dict[int, frozenset[Decimal]] = {}  # declared by an item's text
        # Answers to pure lookups against this (immutable) index, so validating the
        # next revision of a report - mostly the same numbers - is cheap. Bounded.
        self.memo: dict[Any, Any] = {}


def _maybe_json(content: str) -> Any:
    stripped = content.lstrip()
    if stripped[:1] not in ("{", "["):
        return None
    try:
        return json.loads(content)
    except ValueError:
        return None


def _plain(value: Decimal) -> str:
    try:
        text = format(value, "f")
    except (InvalidOperation, ValueError):  # pragma: no cover - finite by construction
        return str(value)
    return text
