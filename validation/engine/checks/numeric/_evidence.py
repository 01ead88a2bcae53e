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
strings ("15.5B", "1,234", "22.5%") count as numbers, and any other string is read
as prose is ("Harbor 52 Grill", "1418 Mission Street", "about 80"). A scale stated in JSON by a
key suffix (`revenue_millions`, `capexInThousands`) or a sibling `unit`/`scale`
string ("millions") applies to the numbers it governs.
"""

from __future__ import annotations

import gc
import weakref
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from validation.engine.checks.numeric._index_labels import _IndexLabels
from validation.engine.checks.numeric._index_state import (
    _COMMON_TOKEN,
    _MANTISSA,
    _PROSE,
    _SCALAR,
    _SCALED,
    _TEXT,
    _Item,
    _maybe_json,
)
from validation.engine.checks.numeric._labels import label_tokens
from validation.engine.checks.numeric._prose_labels import prose_label
from validation.engine.types import EvidenceItem


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


class EvidenceIndex(_IndexLabels):
    """Sorted, bisectable view of every evidence number (see the module docstring)."""

    # Typed here, where EvidenceNumber lives: the state that sets them cannot import it.
    _cache: dict[int, EvidenceNumber]
    _self_ref: weakref.ReferenceType[EvidenceIndex]

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

    def is_mantissa(self, entry: int) -> bool:
        return bool(self._flags(entry) & _MANTISSA)

    def has_scale(self, entry: int) -> bool:
        return bool(self._flags(entry) & _SCALED)

    def negative_scalar(self, entry: int) -> bool:
        """A JSON number below zero (-2545): the index keeps magnitudes, the record the
        value as the tool gave it."""
        record = self._record[entry]
        return record[0] == _SCALAR and isinstance(record[3], (int, float)) and record[3] < 0

    def text_span(self, entry: int) -> tuple[int, int] | None:
        """Where a number of an item's own text stands in it (None for JSON values)."""
        record = self._record[entry]
        return (record[2], record[3]) if record[0] == _TEXT else None

    def unit(self, entry: int) -> str:
        record = self._record[entry]
        kind = record[0]
        if kind == _SCALAR:
            return ""
        return str(record[6] if kind == _TEXT else record[7])

    def value_of(self, entry: int) -> Decimal:
        """An entry's value, as its full record (`number`) has it, without building the
        record (its label is the costly part)."""
        cached = self._cache.get(entry)
        if cached is not None:
            return cached.value
        raw, scale, _, flags = self._parts(entry)
        written = Decimal(raw)
        return written if flags & _MANTISSA else written * scale

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
        if isinstance(content, dict | list):
            record.content = content
        index.items.append(record)
        index.refs[item.source_ref] = position
        record.first = len(index)
        if isinstance(content, str):
            index._add_text(position, content)
        elif isinstance(content, dict | list):
            index._walk(position, content)
        record.last = len(index)
