"""What an evidence entry is: its JSON path, its label and row label, an excerpt of
its text, and the scale its item declares.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

from validation.engine.checks.numeric._index_build import _IndexBuilding
from validation.engine.checks.numeric._index_state import (
    _EXCERPT_RADIUS,
    _MANTISSA,
    _MAX_EXCERPT,
    _PROSE,
    _SCALAR,
    _SCALED,
    _TEXT,
    _plain,
)
from validation.engine.checks.numeric._prose_labels import prose_label
from validation.engine.checks.numeric._scales import declared_scales, single_scale
from validation.engine.types import EvidenceExcerpt

_LINE_REACH = 300  # characters of a number's line read back from it (`line_before`)


class _IndexLabels(_IndexBuilding):
    """What an entry is: its path, label, row label, excerpt and declared scale."""

    def remember(self, key: Any, value: Any) -> None:
        """Store a lookup answer in `memo` (cleared when it grows past 50,000)."""
        if len(self.memo) >= 50_000:
            self.memo.clear()
        self.memo[key] = value

    def item_of(self, entry: int) -> int:
        record = self._record[entry]
        return int(record[1]) if record[0] == _TEXT else self._containers[record[1]][0]

    def raw_of(self, entry: int) -> str:
        """An entry's digits as written ("1234.50", no sign), as its full record's `raw`,
        without building the record (its label is the costly part) or its scale."""
        record = self._record[entry]
        kind = record[0]
        if kind == _TEXT:
            return str(record[4])
        if kind == _SCALAR:
            return _scalar_raw(record[3])
        return str(record[3])

    def label_of(self, entry: int) -> str:
        """The label of one entry, as its full record has it, without building the record."""
        cached = self._cache.get(entry)
        return cached.label if cached is not None else self._label(entry)

    def labelled_entries(self) -> Iterator[tuple[int, int, str, str | None]]:
        """(entry, item, label, key) of every entry but the as-written twins of scaled
        numbers, in order, in one pass over the records: a number of a JSON object as its
        object's path and its key (its label, as `label_of` gives it, is "path.key", or the
        key alone at the root), any other number as its label and None."""
        records, containers = self._record, self._containers
        paths, path_of = self._paths, self._container_path
        previous = None
        for entry, record in enumerate(records):
            if record is previous:
                continue  # the twin shares its scaled number's record
            previous = record
            kind = record[0]
            if kind == _TEXT:
                yield entry, record[1], self._label(entry), None
                continue
            owner = record[1]
            item = containers[owner][0]
            if kind == _PROSE:
                yield entry, item, self._label(entry), None
                continue
            path = paths.get(owner)
            if path is None:
                path = path_of(owner)
            if containers[owner][2]:
                yield entry, item, f"{path}[{record[2]}]", None
            else:
                yield entry, item, path, str(record[2])

    def _flags(self, entry: int) -> int:
        return self._flags_of(entry, self._record[entry])

    def _flags_of(self, entry: int, record: tuple[Any, ...]) -> int:
        flags = int(record[7] if record[0] == _TEXT else record[5])
        if entry and self._record[entry - 1] is record:
            flags |= _MANTISSA  # the twin (see _MANTISSA)
        return flags

    def _parts(self, entry: int) -> tuple[str, Decimal, str, int]:
        """(raw number, scale, unit, flags) of an entry."""
        record = self._record[entry]
        kind = record[0]
        if kind == _TEXT:
            return record[4], record[5], record[6], self._flags_of(entry, record)
        if kind == _SCALAR:
            raw = _scalar_raw(record[3])
            flags = self._flags_of(entry, record)
            scale = Decimal(1)
            if flags & _SCALED:
                container = self._containers[record[1]]
                own = self._key_scale(record[2]) if isinstance(record[2], str) else None
                scale = own if own is not None else container[3]
            return raw, scale, "", flags
        return record[3], record[6], record[7], self._flags_of(entry, record)

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
            if item.starts[position] == start and item.ends[position] == end:
                label = self._prose_label_at(record[1], position)
            else:  # another number starts at the same place (its span is not the first's)
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
            label = self._prose_label_at(item_id, position)
            if label or position == 0:
                return label
            prev_end = item.ends[position - 1]
            if not _SAME_ROW.fullmatch(item.text, prev_end, item.starts[position]):
                return label
            position -= 1
        return ""

    def _prose_label_at(self, item_id: int, position: int) -> str:
        """The words of a text number's own clause (`prose_label`), by its place among its
        item's numbers: read once, though the cells after it in its row ask again."""
        key = (item_id, position)
        label = self._prose_labels.get(key)
        if label is None:
            item = self.items[item_id]
            text = item.text
            assert text is not None
            starts, ends = item.starts, item.ends
            prev_end = ends[position - 1] if position > 0 else 0
            next_start = starts[position + 1] if position + 1 < len(starts) else len(text)
            label = prose_label(text, starts[position], ends[position], prev_end, next_start)
            self._prose_labels[key] = label
        return label

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

    def line_before(self, entry: int) -> str:
        """The words of a text number's line before it, as written (stop words and all:
        "Net income per diluted share (1) | $3.50 |"), at most `_LINE_REACH` characters; a
        JSON number's path."""
        record = self._record[entry]
        if record[0] != _TEXT:
            return self._path(entry) if record[0] != _PROSE else self._label(entry)
        text: str | None = self.items[record[1]].text
        assert text is not None
        start: int = record[2]
        reach = max(0, start - _LINE_REACH)
        return text[text.rfind("\n", reach, start) + 1 : start]

    def shares_row_label(self, entry: int) -> bool:
        """The number next to this one in the same text item has its label, with nothing
        written between them but spaces, separators and signs: two cells of one table row,
        in markdown or as a filing's text lays it out ("Consolidated Operating Revenues
        $ 136,835 $ 133,613"). The row label names every column alike, so it does not
        single this number out. (Words between them - "139.00 USD (10-year DCF" - make
        them two statements of one sentence, not two cells.)"""
        records = self._record
        record = records[entry]
        if record[0] != _TEXT:
            return False
        label = self._label(entry)
        if not label:
            return False
        text = self.items[record[1]].text
        assert text is not None
        for step in (-1, 1):
            other = entry + step
            while 0 <= other < len(records) and records[other] is record:
                other += step  # the as-written twin of a scaled number
            if not 0 <= other < len(records):
                continue
            neighbour = records[other]
            if neighbour[0] != _TEXT or neighbour[1] != record[1]:
                continue
            low, high = (neighbour[3], record[2]) if step < 0 else (record[3], neighbour[2])
            gap = text[low:high]
            if not _CELL_GAP.fullmatch(gap):
                continue
            if "(" in gap and not _CELL_BREAK.search(gap):
                continue
            if self._label(other) == label:
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
            # Text declares for the whole evidence; a tool's JSON only for its own digits
            # (and scanning every record's strings would cost every report its time).
            everywhere = self.memo.get(("declared", -1))
            if everywhere is None:
                everywhere = frozenset().union(
                    *(
                        self._declared_in(other)
                        for other in range(len(self.items))
                        if self.items[other].content is None
                    )
                )
                self.remember(("declared", -1), everywhere)
            own = everywhere
        scale = single_scale(own) if own else self._shown_scale(item)
        self.remember(key, scale)
        return scale

    def _shown_scale(self, item: int) -> Decimal | None:
        """The scale a document that declares none shows for an item's bare numbers: its
        prose writes some of them with a scale word ("$39.2 million" for the cell 39.2),
        all at one scale, and no coincidence would do (two values, or one of three
        significant digits: "$2 million" beside a cell 2 proves nothing)."""
        shown_by_item: dict[int, dict[str, set[Decimal]]] | None = self.memo.get(("shown",))
        if shown_by_item is None:
            shown_by_item = self._shown_digits()
            self.remember(("shown",), shown_by_item)
        shown = shown_by_item.get(item)
        if not shown:
            return None
        scales = set().union(*shown.values())
        if len(scales) != 1:
            return None
        if len(shown) < 2 and not any(_significant(raw) >= 3 for raw in shown):
            return None
        return next(iter(scales))

    def _shown_digits(self) -> dict[int, dict[str, set[Decimal]]]:
        """Per item, its bare numbers' digits that the evidence also writes with a scale
        word, and those scales; one pass over the records, and none at all when no
        number has a scale word."""
        written: dict[str, set[Decimal]] = {}
        bare: list[int] = []
        for entry in range(len(self._record)):
            flags = self._flags(entry)
            if not flags & _SCALED:
                bare.append(entry)
            elif not flags & _MANTISSA:
                raw, scale, _, _ = self._parts(entry)
                written.setdefault(raw, set()).add(scale)
        shown: dict[int, dict[str, set[Decimal]]] = {}
        if written:
            for entry in bare:
                raw = self.raw_of(entry)
                if raw in written:
                    shown.setdefault(self.item_of(entry), {})[raw] = written[raw]
        return shown

    def _declared_in(self, item: int) -> frozenset[Decimal]:
        """The scales one item's text declares, scanned once per item (an item's own
        scan and the evidence-wide union share it)."""
        scales = self._item_scales.get(item)
        if scales is None:
            record = self.items[item]
            text = record.text if record.content is None else _json_strings(record.content)
            scales = self._item_scales[item] = declared_scales(text) if text else frozenset()
        return scales


def _significant(raw: str) -> int:
    """The significant digits of digits as written ("39.2": 3, "0.05": 1)."""
    return len(raw.replace(".", "").lstrip("0"))


def _scalar_raw(value: Any) -> str:
    """A JSON number's digits as written, without its sign (1e-05 as "0.00001")."""
    raw = repr(value) if type(value) is float else str(value)
    if "e" in raw or "E" in raw:
        raw = _plain(Decimal(raw))
    return raw.lstrip("-")


def _json_strings(content: Any) -> str:
    """A JSON item's keys and string values, one per line: where a tool's table says
    its scale (`"title": "($ in millions)"`, `"Revenue (in thousands)": {...}`)."""
    strings: list[str] = []
    stack = [content]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                strings.append(str(key))
                stack.append(value)
        elif isinstance(node, list | tuple):
            stack.extend(node)
        elif isinstance(node, str):
            strings.append(node)
    return "\n".join(strings)


# Blanks, currency signs and cell separators between two cells of one row; a line break
# that opens another markdown row ("|\n|  | 1,203,980") ends it: an unlabelled row (a
# total line) has no label of the row above.
_SAME_ROW = re.compile(r"(?:[^\S\n]|[$€£¥()%|-]|\n(?![ \t]*\|)){0,12}")
_MARKDOWN_ROW_LABEL_CHARS = 200


# What stands between two cells of one row: spaces, separators, signs, currency symbols and
# the parentheses of negative amounts; but within a line, a parenthesis opens a remark
# ("139.00 USD (10-year DCF" is no second cell), unless a table separator stands there.
_CELL_GAP = re.compile(r"[\s|$€£¥%\-\u2013\u2014,:;()]*")
_CELL_BREAK = re.compile(r"[\n\t|]|  ")


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


def _window(text: str, start: int, end: int) -> str:
    low = max(0, start - _EXCERPT_RADIUS)
    high = min(len(text), end + _EXCERPT_RADIUS)
    snippet = " ".join(text[low:high].split())
    if low > 0:
        snippet = "…" + snippet
    if high < len(text):
        snippet = snippet + "…"
    return snippet
