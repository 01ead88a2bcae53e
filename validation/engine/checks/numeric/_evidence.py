"""The evidence number index: every number of every evidence item, searchable by
value in O(log n).

Built once per evidence set and reused across attempts. Values are kept as a
sorted array of absolute float magnitudes (bisect); exact `Decimal`s, labels and
excerpts are made only for the few entries a lookup returns, so building stays
linear and cheap.

Each number is stored at its full value (number x scale: "15,500 million" and a
JSON `14812000000` both as 1.55e10 / 1.48e10) and, when it carries a scale, also
as written (15500), so a report "15,500" in a "(in millions)" table finds it too.
JSON keys and paths are the labels of JSON numbers (`quote.price`); numeric
strings ("15.5B", "1,234", "22.5%") count as numbers. A scale stated in JSON by a
key suffix (`revenue_millions`, `capexInThousands`) or a sibling `unit`/`scale`
string ("millions") applies to the numbers it governs.
"""

from __future__ import annotations

import gc
import json
import math
import re
import weakref
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from validation.engine.checks.numeric._extract import (
    parse_number_string,
    prose_label,
    scan_numbers,
)
from validation.engine.checks.numeric._labels import label_tokens
from validation.engine.checks.numeric._scales import declared_scales, single_scale
from validation.engine.types import EvidenceExcerpt, EvidenceItem

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
class EvidenceNumber:
    """One evidence number, materialized for a candidate match (read-only)."""

    entry: int
    item: int
    source_ref: str
    url: str | None
    value: Decimal  # what this entry stands for (full value, or as written for a twin)
    full_value: Decimal  # number x scale
    written: Decimal
    decimals: int
    unit: str
    has_scale: bool
    mantissa: bool  # this entry is the as-written twin of a scaled number
    label: str  # JSON path, or the words before the number in text
    raw: str  # the number as it appears in the evidence, unsigned
    # A weak reference: the index caches its numbers, and a strong one would make
    # every index a reference cycle that only the (slow) cyclic collector frees.
    index: weakref.ReferenceType[EvidenceIndex] = field(repr=False, compare=False)
    # Computed on first use: many matches never need them.
    _tokens: frozenset[str] | None = field(default=None, repr=False, compare=False)
    _context: frozenset[str] | None = field(default=None, repr=False, compare=False)

    @property
    def is_percent(self) -> bool:
        return self.unit in ("%", "pp")

    @property
    def tokens(self) -> frozenset[str]:
        """What the number is: its key and parent key, or the words before it."""
        if self._tokens is None:
            index = self.index()
            self._tokens = index.tokens(self.entry) if index is not None else frozenset()
        return self._tokens

    @property
    def context(self) -> frozenset[str]:
        """Whose it is: names and the year beside a JSON number ("NVO", "2023")."""
        if self._context is None:
            index = self.index()
            self._context = index.context_tokens(self.entry) if index is not None else frozenset()
        return self._context


@dataclass(slots=True)
class _Item:
    source_ref: str
    url: str | None
    text: str | None  # text items; JSON items keep None
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


class EvidenceIndex:
    """Sorted, bisectable view of every evidence number (see the module docstring)."""

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
        self._string_texts: list[str] = []  # long JSON strings scanned as text
        self._key_scales: dict[str, Decimal | None] = {}
        # Building only: (parent key, context) -> key -> slot of a JSON number.
        self._slots: dict[tuple[str, int], dict[str, _Slot]] = {}
        self._years: dict[str, str] = {}  # period string -> its year ("" if none)
        self._paths: dict[int, str] = {}  # container -> its path, once asked for
        self._order: list[int] = []
        self._keys: list[float] = []
        self._cache: dict[int, EvidenceNumber] = {}
        self._postings: dict[str, list[int]] | None = None
        self._related: dict[tuple[frozenset[str], int], list[int]] = {}
        self._self_ref = weakref.ref(self)
        self._tokens: dict[int, frozenset[str]] = {}  # text entries
        self._labels: dict[int, str] = {}  # text entries
        self._item_scales: dict[int, frozenset[Decimal]] = {}  # declared by an item's text
        # Answers to pure lookups against this (immutable) index, so validating the
        # next revision of a report - mostly the same numbers - is cheap. Bounded.
        self.memo: dict[Any, Any] = {}

    # ------------------------------------------------------------ building

    def _add_text(self, item: int, text: str) -> None:
        record = self.items[item]
        magnitudes = self._magnitude
        records = self._record
        numbers = scan_numbers(text)
        for start, end, number, scale, unit in numbers:
            record.starts.append(start)
            record.ends.append(end)
            if scale == 1:
                magnitudes.append(float(number))
                records.append((_TEXT, item, start, end, number, scale, unit, 0))
            else:
                magnitudes.append(float(number) * float(scale))
                magnitudes.append(float(number))
                shared = (_TEXT, item, start, end, number, scale, unit, _SCALED)
                records.append(shared)
                records.append(shared)  # the twin

    def _group(self, key: str, parent: str, context: int) -> int:
        group_key = (key, parent, context)
        group = self._groups.get(group_key)
        if group is None:
            group = self._groups[group_key] = len(self._group_keys)
            self._group_keys.append(group_key)
            self._group_members.append([])
        return group

    def _key_scale(self, key: str) -> Decimal | None:
        scales = self._key_scales
        if key in scales:
            return scales[key]
        suffix = _KEY_SCALE.search(key)
        found = _SCALES[(suffix.group("w") or suffix.group("s")).lower()] if suffix else None
        scales[key] = found
        return found

    def _walk(self, item: int, root: Any) -> None:
        """Index every number under `root` (a JSON object or array), depth first in
        document order.

        Iterative, with an explicit stack, so nesting of any depth is fine (no
        RecursionError), and paths are not formatted here: a container records its
        parent and its key, and `_container_path` spells the path out only for the
        few entries a lookup returns.

        Numbers of an object come before its strings, which come before its
        nested containers; an array's members come in order, so the array is
        resumed after each nested container (see `_Task`)."""
        magnitudes = self._magnitude
        records = self._record
        containers = self._containers
        groups = self._groups
        group_keys = self._group_keys
        group_members = self._group_members
        slots = self._slots
        key_scales = self._key_scales
        key_scale = self._key_scale
        make_group = self._group
        add_string = self._add_string
        contexts = self._contexts
        context_list = self._context_list
        unit_keys = _UNIT_KEY_SET
        years = self._years
        has_digit = _HAS_DIGIT.search
        period_keys = _PERIOD_KEYS
        stack: list[_Task] = [(root, -1, -1, "", "", "", Decimal(1), False, -1)]
        pop = stack.pop
        push = stack.append
        while stack:
            node, start, owner, place, key, parent, scale, scaled, context = pop()
            if start < 0 and type(node) is dict:
                # One pass sorts the members; numbers are added once the context
                # (the names and year beside them) is known.
                numbers: list[tuple[str, Any]] = []
                texts: list[tuple[str, str]] = []
                children: list[tuple[str, Any]] = []
                names: list[str] = []
                unit_like = False  # a string member under a unit key ("unit": "millions")
                for child_key, child in node.items():
                    if type(child_key) is not str:
                        child_key = str(child_key)
                    kind = type(child)
                    if kind is int or kind is float:
                        numbers.append((child_key, child))
                        if kind is int and child_key in period_keys and 1900 <= child <= 2100:
                            names.append(str(child))
                    elif kind is str:
                        if child_key in unit_keys:
                            unit_like = True
                        if has_digit(child) is None:
                            if 0 < len(child) <= 40:
                                names.append(child)
                        else:
                            if child_key in period_keys:
                                year = years.get(child)
                                if year is None:
                                    year = years[child] = _year_of(child)
                                if year:
                                    names.append(year)
                            # Not an ISO date ("2024-03-31"; `_is_iso_date`, inlined).
                            if not (len(child) == 10 and child[4] == "-" and child[7] == "-"):
                                texts.append((child_key, child))
                    elif kind is dict or kind is list or kind is tuple:
                        children.append((child_key, child))
                if names:
                    if unit_like:
                        for unit_key in _UNIT_KEYS:
                            unit_value = node.get(unit_key)
                            if type(unit_value) is str:
                                match = _SCALE_IN_STRING.search(unit_value)
                                if match:
                                    scale, scaled = _SCALES[match.group(1).lower()], True
                                    break
                    context_key = (*context_list[context], *names) if context >= 0 else tuple(names)
                    found = contexts.get(context_key)
                    if found is None:
                        found = contexts[context_key] = len(context_list)
                        context_list.append(context_key)
                    context = found
                container = len(containers)
                containers.append((item, owner, False, scale, scaled, place))
                if numbers:
                    factor = float(scale) if scaled else 1.0
                    base_flags = _SCALED if scaled else 0
                    # The slots of this object's numbers: by key, the parent key and
                    # context being the same for all of them.
                    here = slots.get((key, context))
                    if here is None:
                        here = slots[(key, context)] = {}
                    for child_key, child in numbers:
                        if type(child) is float:
                            if not -_INF < child < _INF:
                                continue  # NaN or infinite
                            magnitude = child
                        else:
                            try:
                                magnitude = float(child)
                            except OverflowError:
                                continue
                        if magnitude < 0:
                            magnitude = -magnitude
                        slot = here.get(child_key)
                        if slot is None:
                            group_key = (child_key, key, context)
                            group = groups.get(group_key)
                            if group is None:
                                group = groups[group_key] = len(group_keys)
                                group_keys.append(group_key)
                                members: list[int] = []
                                group_members.append(members)
                            else:
                                members = group_members[group]
                            own = key_scales.get(child_key, _UNSET)
                            if own is _UNSET:
                                own = key_scale(child_key)
                            slot = here[child_key] = (
                                group,
                                members,
                                None if own is None else float(own),
                            )
                        group, members, own = slot
                        members.append(len(records))
                        if own is None:
                            flags = base_flags
                            magnitudes.append(magnitude * factor)
                        else:
                            flags = _SCALED
                            magnitudes.append(magnitude * own)
                        shared = (_SCALAR, container, child_key, child, group, flags)
                        records.append(shared)
                        if flags:
                            magnitudes.append(magnitude)
                            records.append(shared)  # the twin
                for child_key, text in texts:
                    add_string(item, container, child_key, text, key, key, scale, scaled, context)
                for child_key, child in reversed(children):
                    key_own = key_scales.get(child_key, _UNSET)
                    if key_own is _UNSET:
                        key_own = key_scale(child_key)
                    # A key that names a scale ("revenue_millions") scales what is under it.
                    child_scale, child_scaled = (
                        (scale, scaled) if key_own is None else (key_own, True)
                    )
                    push(
                        (
                            child,
                            -1,
                            container,
                            child_key,
                            child_key,
                            key,
                            child_scale,
                            child_scaled,
                            context,
                        )
                    )
                continue
            # An array (or a resumed run of one, start >= 0).
            if start < 0:
                if type(node) is not list and type(node) is not tuple:
                    node = list(node)  # a dict subclass at the top: its keys, as before
                container = len(containers)
                containers.append((item, owner, True, scale, scaled, place))
                group = make_group(key, parent, context)
                position = 0
            else:
                container = owner
                group = groups[(key, parent, context)]
                position = start
            members = group_members[group]
            factor = float(scale) if scaled else 1.0
            flags = _SCALED if scaled else 0
            length = len(node)
            while position < length:
                child = node[position]
                kind = type(child)
                if kind is int or kind is float:
                    if kind is float:
                        if not -_INF < child < _INF:
                            position += 1
                            continue  # NaN or infinite
                        magnitude = child
                    else:
                        try:
                            magnitude = float(child)
                        except OverflowError:
                            position += 1
                            continue
                    if magnitude < 0:
                        magnitude = -magnitude
                    members.append(len(records))
                    magnitudes.append(magnitude * factor)
                    element = (_SCALAR, container, position, child, group, flags)
                    records.append(element)
                    if flags:
                        magnitudes.append(magnitude)
                        records.append(element)  # the twin
                elif kind is str:
                    if has_digit(child) is not None and not _is_iso_date(child):
                        add_string(
                            item, container, position, child, parent, key, scale, scaled, context
                        )
                elif kind is dict or kind is list or kind is tuple:
                    if start >= 0:
                        break  # a resumed run ends at the next container: it has its task
                    # The rest of the array, in order: each nested container, and
                    # each run of other members after one.
                    tasks: list[_Task] = []
                    after_container = True
                    for rest in range(position, length):
                        member = node[rest]
                        kind = type(member)
                        if kind is dict or kind is list or kind is tuple:
                            tasks.append(
                                (member, -1, container, rest, key, parent, scale, scaled, context)
                            )
                            after_container = True
                        elif after_container:
                            tasks.append(
                                (node, rest, container, rest, key, parent, scale, scaled, context)
                            )
                            after_container = False
                    tasks.reverse()
                    stack.extend(tasks)
                    break
                position += 1

    def _add_string(
        self,
        item: int,
        container: int,
        key: Any,
        text: str,
        parent: str,
        own_key: str,
        scale: Decimal,
        scaled: bool,
        context: int,
    ) -> None:
        label_key = key if isinstance(key, str) else own_key
        if len(text) <= _LONG_STRING:
            if not _NUMERIC_STRING.fullmatch(text):
                return
            plain = _PLAIN_NUMBER.fullmatch(text)
            if plain is not None:
                # A bare number in a string is a value, even "1900" (no year rule).
                number = plain.group(1).replace(",", "")
                self._append_scaled(
                    (_STRING, container, key, number, self._group(label_key, parent, context)),
                    float(number),
                    scale if scaled else Decimal(1),
                    "",
                    (),
                )
                return
            mention = parse_number_string(text)
            if mention is None:
                return
            group = self._group(label_key, parent, context)
            number = _plain(abs(mention.written))
            if scaled and mention.scale == 1 and not mention.is_percent:
                number_scale = scale
            else:
                number_scale = mention.scale
            self._append_scaled(
                (_STRING, container, key, number, group),
                float(number),
                number_scale,
                mention.unit,
                (),
            )
            return
        # A long string is prose: scan it like a text item, labelled by its key too.
        group = self._group(label_key, parent, context)
        text_id = len(self._string_texts)
        self._string_texts.append(text)
        numbers = scan_numbers(text)
        for start, end, number, scale, unit in numbers:
            self._append_scaled(
                (_PROSE, container, key, number, group),
                float(number),
                scale,
                unit,
                (text_id, start, end),
            )

    def _append_scaled(
        self,
        head: tuple[Any, ...],
        written: float,
        scale: Decimal,
        unit: str,
        tail: tuple[Any, ...],
    ) -> None:
        scaled = scale != 1
        entry = len(self._record)
        self._magnitude.append(written * float(scale))
        shared = (*head, _SCALED if scaled else 0, scale, unit, *tail)
        self._record.append(shared)
        self._group_members[head[4]].append(entry)
        if scaled:
            self._magnitude.append(written)
            self._record.append(shared)  # the twin

    def _finish(self) -> None:
        # The walk's helpers are done with: dropping them now spares the garbage
        # collector thousands of objects for the life of the index.
        self._slots.clear()
        self._years.clear()
        # Tuples of ints, unlike lists, leave the collector's view at its next
        # pass instead of being traversed for the life of the index.
        self._members = list(map(tuple, self._group_members))
        self._group_members = []
        magnitude = self._magnitude
        self._order = sorted(range(len(magnitude)), key=magnitude.__getitem__)
        self._keys = list(map(magnitude.__getitem__, self._order))

    # ------------------------------------------------------------ lookups

    def __len__(self) -> int:
        return len(self._record)

    def nearest(self, magnitude: float, low: float, high: float, limit: int) -> list[int]:
        """Up to `limit` entry ids with magnitude in [low, high], nearest first."""
        keys = self._keys
        first = bisect_left(keys, low)
        last = bisect_right(keys, high)
        if first >= last:
            return []
        if last - first <= limit:
            ids = self._order[first:last]
            if len(ids) > 1:
                values = self._magnitude
                ids.sort(key=lambda entry: abs(values[entry] - magnitude))
            return ids
        middle = bisect_left(keys, magnitude, first, last)
        left, right = middle - 1, middle
        picked: list[int] = []
        order = self._order
        while len(picked) < limit and (left >= first or right < last):
            if right >= last or (
                left >= first and magnitude - keys[left] <= keys[right] - magnitude
            ):
                picked.append(order[left])
                left -= 1
            else:
                picked.append(order[right])
                right += 1
        return picked

    def remember(self, key: Any, value: Any) -> None:
        """Store a lookup answer in `memo` (cleared when it grows past 50,000)."""
        if len(self.memo) >= 50_000:
            self.memo.clear()
        self.memo[key] = value

    def magnitude(self, entry: int) -> float:
        return self._magnitude[entry]

    def operand(self, entry: int) -> tuple[float, float, str, int, bool]:
        """(magnitude, magnitude as written, unit, item, is a twin) in one call."""
        records = self._record
        record = records[entry]
        kind = record[0]
        if kind == _TEXT:
            item, unit, flags = record[1], record[6], record[7]
        else:
            item = self._containers[record[1]][0]
            unit = "" if kind == _SCALAR else record[7]
            flags = record[5]
        if entry and records[entry - 1] is record:
            flags |= _MANTISSA
        magnitude = self._magnitude[entry]
        written = (
            self._magnitude[entry + 1] if flags & (_SCALED | _MANTISSA) == _SCALED else magnitude
        )
        return magnitude, written, unit, item, bool(flags & _MANTISSA)

    def item_of(self, entry: int) -> int:
        record = self._record[entry]
        return int(record[1]) if record[0] == _TEXT else self._containers[record[1]][0]

    def _flags(self, entry: int) -> int:
        return self._flags_of(entry, self._record[entry])

    def _flags_of(self, entry: int, record: tuple[Any, ...]) -> int:
        flags = int(record[7] if record[0] == _TEXT else record[5])
        if entry and self._record[entry - 1] is record:
            flags |= _MANTISSA  # the twin (see _MANTISSA)
        return flags

    def is_mantissa(self, entry: int) -> bool:
        return bool(self._flags(entry) & _MANTISSA)

    def has_scale(self, entry: int) -> bool:
        return bool(self._flags(entry) & _SCALED)

    def unit(self, entry: int) -> str:
        record = self._record[entry]
        kind = record[0]
        if kind == _SCALAR:
            return ""
        return str(record[6] if kind == _TEXT else record[7])

    def _parts(self, entry: int) -> tuple[str, Decimal, str, int]:
        """(raw number, scale, unit, flags) of an entry."""
        record = self._record[entry]
        kind = record[0]
        if kind == _TEXT:
            return record[4], record[5], record[6], self._flags_of(entry, record)
        if kind == _SCALAR:
            value = record[3]
            raw = repr(value) if type(value) is float else str(value)
            if "e" in raw or "E" in raw:
                raw = _plain(Decimal(raw))
            flags = self._flags_of(entry, record)
            scale = Decimal(1)
            if flags & _SCALED:
                container = self._containers[record[1]]
                own = self._key_scale(record[2]) if isinstance(record[2], str) else None
                scale = own if own is not None else container[3]
            return raw.lstrip("-"), scale, "", flags
        return record[3], record[6], record[7], self._flags_of(entry, record)

    def number(self, entry: int) -> EvidenceNumber:
        """The full record of one entry (cached)."""
        cached = self._cache.get(entry)
        if cached is not None:
            return cached
        raw, scale, unit, flags = self._parts(entry)
        item_id = self.item_of(entry)
        item = self.items[item_id]
        written = Decimal(raw)
        full = written * scale
        mantissa = bool(flags & _MANTISSA)
        number = EvidenceNumber(
            entry=entry,
            item=item_id,
            source_ref=item.source_ref,
            url=item.url,
            value=written if mantissa else full,
            full_value=full,
            written=written,
            decimals=len(raw) - raw.index(".") - 1 if "." in raw else 0,
            unit=unit,
            has_scale=bool(flags & _SCALED),
            mantissa=mantissa,
            label=self._label(entry),
            raw=raw,
            index=self._self_ref,
        )
        self._cache[entry] = number
        return number

    def _tokens_of_group(self, group: int) -> frozenset[str]:
        """What JSON numbers are: their key and parent key."""
        tokens = self._group_tokens.get(group)
        if tokens is None:
            key, parent, _ = self._group_keys[group]
            tokens = self._group_tokens[group] = label_tokens(key) | label_tokens(parent)
        return tokens

    def _context_of_group(self, group: int) -> frozenset[str]:
        """Whose JSON numbers are: name-like strings and years beside them."""
        return self._context_tokens(self._group_keys[group][2])

    def _context_tokens(self, context: int) -> frozenset[str]:
        tokens = self._group_context.get(context)
        if tokens is None:
            tokens = frozenset()
            if context >= 0:
                for text in self._context_list[context]:
                    tokens |= label_tokens(text)
            self._group_context[context] = tokens
        return tokens

    def context_tokens(self, entry: int) -> frozenset[str]:
        record = self._record[entry]
        return frozenset() if record[0] == _TEXT else self._context_of_group(record[4])

    def tokens(self, entry: int) -> frozenset[str]:
        """Label tokens of an entry (cheap for JSON numbers, cached for text)."""
        record = self._record[entry]
        kind = record[0]
        if kind == _TEXT:
            tokens = self._tokens.get(entry)
            if tokens is None:
                tokens = self._tokens[entry] = label_tokens(self._label(entry))
            return tokens
        tokens = self._tokens_of_group(record[4])
        if kind == _PROSE:
            text = self._string_texts[record[8]]
            tokens = tokens | label_tokens(prose_label(text, record[9], record[10], 0, len(text)))
        return tokens

    def _container_path(self, container: int) -> str:
        """`quote.price`, `annual[2]`: how a container is reached from its item's
        root (walked up iteratively: nesting can be arbitrarily deep)."""
        path = self._paths.get(container)
        if path is not None:
            return path
        containers = self._containers
        steps: list[tuple[bool, Any]] = []  # (parent is a list, key), leaf first
        current = container
        while True:
            _, owner, _, _, _, place = containers[current]
            if owner < 0:
                break
            steps.append((containers[owner][2], place))
            current = owner
        parts: list[str] = []
        written = False  # is the path so far non-empty
        for in_list, place in reversed(steps):
            if in_list:
                parts.append(f"[{place}]")
                written = True
            else:
                if written:
                    parts.append(".")
                parts.append(place)
                written = written or bool(place)
        path = self._paths[container] = "".join(parts)
        return path

    def _path(self, entry: int) -> str:
        record = self._record[entry]
        is_list = self._containers[record[1]][2]
        path = self._container_path(record[1])
        key = record[2]
        if is_list:
            return f"{path}[{key}]"
        return f"{path}.{key}" if path else str(key)

    def _label(self, entry: int) -> str:
        record = self._record[entry]
        kind = record[0]
        if kind == _TEXT:
            cached = self._labels.get(entry)
            if cached is not None:
                return cached
            item = self.items[record[1]]
            assert item.text is not None
            start, end = record[2], record[3]
            position = bisect_left(item.starts, start)
            prev_end = item.ends[position - 1] if position > 0 else 0
            next_start = (
                item.starts[position + 1] if position + 1 < len(item.starts) else len(item.text)
            )
            label = prose_label(item.text, start, end, prev_end, next_start)
            if not label and position > 0 and _SAME_ROW.fullmatch(item.text, prev_end, start):
                # The next column of a table row: the row's label ("Net sales $ 14,082 $ 11,303").
                label = self._row_label(record[1], position - 1)
            if not label:
                label = _markdown_row_label(item.text, start)
            self._labels[entry] = label
            return label
        path = self._path(entry)
        if kind == _PROSE:
            text = self._string_texts[record[8]]
            words = prose_label(text, record[9], record[10], 0, len(text))
            return f"{path}: {words}" if words else path
        return path

    def _row_label(self, item_id: int, position: int) -> str:
        """The label of the text number at `position`, or of the first number of its
        row (numbers separated by blanks, currency signs and parentheses only)."""
        item = self.items[item_id]
        assert item.text is not None
        for _ in range(8):
            start, end = item.starts[position], item.ends[position]
            prev_end = item.ends[position - 1] if position > 0 else 0
            next_start = (
                item.starts[position + 1] if position + 1 < len(item.starts) else len(item.text)
            )
            label = prose_label(item.text, start, end, prev_end, next_start)
            if label or position == 0 or not _SAME_ROW.fullmatch(item.text, prev_end, start):
                return label
            position -= 1
        return ""

    def excerpt(self, entry: int) -> EvidenceExcerpt:
        """What a reviewer sees as proof: ~120 characters around a text number, or
        `path = value` for a JSON number."""
        record = self._record[entry]
        kind = record[0]
        item = self.items[self.item_of(entry)]
        if kind == _TEXT:
            assert item.text is not None
            snippet = _window(item.text, record[2], record[3])
            label = self._label(entry)
        elif kind == _PROSE:
            snippet = _window(self._string_texts[record[8]], record[9], record[10])
            label = self._path(entry)
        else:
            label = self._path(entry)
            snippet = f"{label} = {self._parts(entry)[0]}"
            if len(snippet) > _MAX_EXCERPT:  # a path thousands of levels deep: keep its end
                snippet = "…" + snippet[1 - _MAX_EXCERPT :]
        return EvidenceExcerpt(
            source_ref=item.source_ref, url=item.url, excerpt=snippet, label=label
        )

    def shares_row_label(self, entry: int) -> bool:
        """Another number of the same markdown table row has this one's label (the row
        label names every column alike, so it does not single this number out)."""
        record = self._record[entry]
        if record[0] != _TEXT:
            return False
        label = self._label(entry)
        item = self.items[record[1]]
        assert item.text is not None
        if not label or label != _markdown_row_label(item.text, record[2]):
            return False
        for other in (entry - 1, entry + 1):
            if 0 <= other < len(self._record):
                neighbour = self._record[other]
                if (
                    neighbour[0] == _TEXT
                    and neighbour[1] == record[1]
                    and self._label(other) == label
                ):
                    return True
        return False

    def written_in_text(self, entry: int) -> bool:
        """The number stands in text as written (trailing zeros and all), not as a
        JSON number whose precision was lost ("190.70" stored as 190.7)."""
        return self._record[entry][0] in (_TEXT, _PROSE)

    def declared_scale(self, item: int) -> Decimal | None:
        """The scale an item's text declares for its numbers ("(in millions)"),
        else the one the evidence as a whole declares; None when none or several."""
        key = ("declared", item)
        if key in self.memo:
            return self.memo[key]  # type: ignore[no-any-return]
        own = self._declared_in(item)
        if not own:
            everywhere = self.memo.get(("declared", -1))
            if everywhere is None:
                everywhere = frozenset().union(
                    *(self._declared_in(other) for other in range(len(self.items)))
                )
                self.remember(("declared", -1), everywhere)
            own = everywhere
        scale = single_scale(own)
        self.remember(key, scale)
        return scale

    def _declared_in(self, item: int) -> frozenset[Decimal]:
        """The scales one item's text declares, scanned once per item (an item's own
        scan and the evidence-wide union share it)."""
        scales = self._item_scales.get(item)
        if scales is None:
            text = self.items[item].text
            scales = self._item_scales[item] = declared_scales(text) if text else frozenset()
        return scales

    def neighbours(self, entry: int, radius: int) -> range:
        """Entries just before and after `entry` in its evidence item (the same row,
        sentence or JSON object, usually)."""
        item = self.items[self.item_of(entry)]
        return range(max(item.first, entry - radius), min(item.last, entry + radius + 1))

    def related(self, tokens: Iterable[str], limit: int) -> list[int]:
        """JSON numbers whose key, parent key or context (names, years) share
        tokens with `tokens`, best first. Candidates come from the rarest tokens,
        so a common word ("revenue" in every record) does not flood the search;
        labels shared by many numbers (a time series) are skipped."""
        wanted = frozenset(tokens)
        key = (wanted, limit)
        remembered = self._related.get(key)
        if remembered is not None:
            return remembered
        postings = self._postings
        if postings is None:
            postings = self._build_postings()
        lists = sorted(
            (len(groups), token, groups)
            for token in wanted
            if (groups := postings.get(token)) is not None
        )
        candidates: set[int] = set()
        for size, _, groups in lists:
            if candidates and size > _COMMON_TOKEN:
                break
            candidates.update(groups[: _COMMON_TOKEN * 2])
        everything = self._group_everything
        group_tokens = self._group_tokens
        group_context = self._group_context
        group_keys = self._group_keys
        scores: list[tuple[int, int]] = []
        for group in candidates:
            labelled = everything.get(group)
            if labelled is None:
                what = group_tokens.get(group)
                if what is None:
                    what = self._tokens_of_group(group)
                whose = group_context.get(group_keys[group][2])
                if whose is None:
                    whose = self._context_of_group(group)
                labelled = everything[group] = what | whose
            scores.append((-len(wanted & labelled), group))
        scores.sort()
        picked: list[int] = []
        records = self._record
        group_members = self._members
        for _, group in scores:
            members = group_members[group]
            if len(members) > limit:
                continue
            for entry in members:
                if not (entry and records[entry - 1] is records[entry]):  # not a twin
                    picked.append(entry)
            if len(picked) >= limit:
                break
        picked = picked[:limit]
        if len(self._related) < 4096:
            self._related[key] = picked  # the index never changes: remember the answer
        return picked

    def _build_postings(self) -> dict[str, list[int]]:
        postings: dict[str, list[int]] = {}
        by_label: dict[tuple[str, str], list[int]] = {}
        by_context: dict[int, list[int]] = {}
        label_get = by_label.get
        context_get = by_context.get
        for group, (key, parent, context) in enumerate(self._group_keys):
            label = (key, parent)
            same = label_get(label)
            if same is None:
                by_label[label] = [group]
            else:
                same.append(group)
            if context >= 0:
                same = context_get(context)
                if same is None:
                    by_context[context] = [group]
                else:
                    same.append(group)
        for (key, parent), groups in by_label.items():
            for token in label_tokens(key) | label_tokens(parent):
                postings.setdefault(token, []).extend(groups)
        for context, groups in by_context.items():
            tokens: frozenset[str] = frozenset()
            for text in self._context_list[context]:
                tokens |= label_tokens(text)
            for token in tokens:
                postings.setdefault(token, []).extend(groups)
        self._postings = postings
        return postings


_SAME_ROW = re.compile(r"[\s$€£¥()%|-]{0,12}")
_MARKDOWN_ROW_LABEL_CHARS = 200


def _markdown_row_label(text: str, start: int) -> str:
    """The row label of a number in a markdown table: the first cell of its row that
    has words ("| Discount rate | 2.9 | 3.8 |" -> "Discount rate"), or ""."""
    line_start = text.rfind("\n", max(0, start - _MARKDOWN_ROW_LABEL_CHARS), start) + 1
    if line_start == 0 and start > _MARKDOWN_ROW_LABEL_CHARS:
        return ""
    row = text[line_start:start]
    if not row.lstrip(" \t").startswith("|"):
        return ""
    for cell in row.split("|")[1:-1]:
        words = cell.strip()
        if words and any(char.isalpha() for char in words):
            return words
    return ""


def build_index(evidence: Sequence[EvidenceItem]) -> EvidenceIndex:
    """Index every number of every evidence item (text, markdown tables, JSON at
    any depth, and JSON written as a string)."""
    index = EvidenceIndex()
    # Building allocates tens of thousands of small tuples; pausing the cyclic
    # collector meanwhile spares a full collection of the whole process (which,
    # in a big worker, can cost more than the build). Nothing here makes cycles.
    collecting = gc.isenabled()
    gc.disable()
    try:
        _fill(index, evidence)
        index._finish()
    finally:
        if collecting:
            gc.enable()
    return index


def _fill(index: EvidenceIndex, evidence: Sequence[EvidenceItem]) -> None:
    for position, item in enumerate(evidence):
        content: Any = item.content
        if isinstance(content, str):
            parsed = _maybe_json(content)
            if parsed is not None:
                content = parsed
        record = _Item(item.source_ref, item.url, content if isinstance(content, str) else None)
        index.items.append(record)
        index.refs[item.source_ref] = position
        record.first = len(index)
        if isinstance(content, str):
            index._add_text(position, content)
        elif isinstance(content, dict | list):
            index._walk(position, content)
        record.last = len(index)


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


def _window(text: str, start: int, end: int) -> str:
    low = max(0, start - _EXCERPT_RADIUS)
    high = min(len(text), end + _EXCERPT_RADIUS)
    snippet = " ".join(text[low:high].split())
    if low > 0:
        snippet = "…" + snippet
    if high < len(text):
        snippet = snippet + "…"
    return snippet
