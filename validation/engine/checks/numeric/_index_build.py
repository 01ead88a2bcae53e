"""Building the evidence index: every number of every item, walked from JSON (keys,
scales, numeric strings) and scanned from text.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from validation.engine.checks.numeric._durations import with_durations
from validation.engine.checks.numeric._extract import parse_number_string, scan_numbers
from validation.engine.checks.numeric._identifiers import identifier_parts, with_identifier_parts
from validation.engine.checks.numeric._index_state import (
    _HAS_DIGIT,
    _INF,
    _KEY_SCALE,
    _LONG_STRING,
    _NUMERIC_STRING,
    _PERIOD_KEYS,
    _PLAIN_NUMBER,
    _PROSE,
    _SCALAR,
    _SCALE_IN_STRING,
    _SCALED,
    _SCALES,
    _STRING,
    _TEXT,
    _UNIT_KEY_SET,
    _UNIT_KEYS,
    _UNSET,
    _IndexState,
    _is_iso_date,
    _plain,
    _Task,
    _year_of,
)
from validation.engine.checks.numeric._number_words import number_words, with_number_words


class _IndexBuilding(_IndexState):
    """Building the index: walking JSON and text into entries, grouped and scaled."""

    # ------------------------------------------------------------ building

    def _add_text(self, item: int, text: str) -> None:
        record = self.items[item]
        magnitudes = self._magnitude
        records = self._record
        numbers = with_durations(
            text, with_identifier_parts(text, with_number_words(text, scan_numbers(text)))
        )
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
                            if number_words(child):  # "twenty-four", "a dozen"
                                texts.append((child_key, child))
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
                    if (has_digit(child) is not None and not _is_iso_date(child)) or number_words(
                        child
                    ):
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
        if len(text) <= _LONG_STRING and _NUMERIC_STRING.fullmatch(text):
            plain = _PLAIN_NUMBER.fullmatch(text)
            if plain is not None:
                # A bare number in a string is a value, even "1900" (no year rule).
                number = plain.group(1).replace(",", "")
                group = self._group(label_key, parent, context)
                self._append_scaled(
                    (_STRING, container, key, number, group),
                    float(number),
                    scale if scaled else Decimal(1),
                    "",
                    (),
                )
                for _, _, part, _, _ in identifier_parts(text):  # a phone: "5035550172"
                    self._append_scaled(
                        (_STRING, container, key, part, group), float(part), Decimal(1), "", ()
                    )
                return
            mention = parse_number_string(text)
        else:
            mention = None
        if mention is not None:
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
        # Any other string is read as prose, the way a person reads it ("1418 Mission
        # Street", "about 80 seats", "$15-$25"), labelled by its key too.
        group = self._group(label_key, parent, context)
        text_id = len(self._string_texts)
        self._string_texts.append(text)
        numbers = with_durations(
            text, with_identifier_parts(text, with_number_words(text, scan_numbers(text)))
        )
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
