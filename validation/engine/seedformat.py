"""Read a pipeline's ``context.md`` + ``response.md`` pair into a :class:`Bundle`.

``context.md`` holds numbered sections (docs/spec.md §2.2):

====  ============================  ==================================================
§0    User Query                    -> ``Bundle.query`` (+ ``goals``)
§1    Query Analysis Validation     goals may be listed here too
§2    Gathered Context              -> evidence, kind ``context``
§3    Plan                          goals may be listed here too
§4    Execution Progress            -> evidence, kind ``workflow_result``
§5    (executor notes)              ignored
§6    Synthesis                     the draft; used as the body if response.md is blank
§7+   earlier validation attempts   ignored
====  ============================  ==================================================

Section headings are recognised liberally: any markdown heading level, with or without
``§``, ``Section`` or a trailing dot -- ``## 0. User Query``, ``## §4 Execution Progress``,
``# Section 4``, ``### §2: Gathered Context``, a bold line ``**§0 User Query**`` -- and, at
heading levels 1-2, by name alone (``## User Query``, ``## Gathered Context``,
``## Execution Progress`` / ``## Workflow Results``, ``## Plan``, ``## Synthesis``).
A heading numbered ``N.k`` (``### 4.1 Quote``) is a sub-section of §N, not a new section.

Evidence items of §2 and §4 are cut like this:

* one item per sub-heading (any heading inside the section); its ``source_ref`` is
  ``§N.k title`` when the heading is numbered (``### 4.1 get_quote`` -> ``§4.1 get_quote``)
  (``### 2. get_quote`` inside §4 is ``§4.2 get_quote`` too) and the heading text
  otherwise (``### tool-7: get_quote`` -> ``tool-7: get_quote``);
  text before the first sub-heading becomes an item ``§N``;
* a section without sub-headings is split on its top-level list items (``§4.1``, ``§4.2``…),
  or is one item ``§N`` when it has no list either;
* a fenced block that parses as a JSON object/array becomes its own item with JSON
  content. When it is the only thing under its heading it takes the heading's ref;
  otherwise the text keeps the ref and each fence is ``<ref> #k``;
* ``url`` is the first http(s) URL of the item (for JSON: a top-level ``url``/``link``/
  ``source_url`` key, else the first URL-looking string).

Refs are made unique by suffixing `` (2)``, `` (3)``… and are cut to 200 characters.
"""

from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass, field
from typing import Any

from validation.engine.types import Bundle, EvidenceItem

# Possessive and with the closing #s stripped in Python (heading_title): a line of 200,000
# "#" or "*" is read once, not re-split at every character. _FENCE_OPEN / _fence_blocks do
# what one DOTALL pattern with a backreference did, in one pass over the lines.
_HEADING = re.compile(r"^(#{1,6})[ \t]*+(.*)$")
_BOLD_SECTION = re.compile(r"^\*\*\s*+(§\s*+\d+(?:\.\d+)?[^*]*+)\*\*:?\s*+$")
_BARE_SECTION = re.compile(r"^(§\s*\d+(?:\.\d+)?(?:[.:)\-–—]\s*.*|\s+\S.*)?)$")  # noqa: RUF001
_NUMBERED = re.compile(
    r"^(?:§\s*|section\s+|sec\.\s*)?(\d+)(?:\.(\d+))?(?=[\s.:)\-–—]|$)[.:)\-–—]?\s*(.*)$",  # noqa: RUF001
    re.IGNORECASE,
)
_SECTION_NAMES: tuple[tuple[int, re.Pattern[str]], ...] = (
    (0, re.compile(r"^(user\s+query|original\s+query|query)$", re.IGNORECASE)),
    (1, re.compile(r"^query\s+analysis(\s+validation)?$", re.IGNORECASE)),
    (2, re.compile(r"^(gathered\s+context|context)$", re.IGNORECASE)),
    (3, re.compile(r"^(plan|planning|research\s+plan)$", re.IGNORECASE)),
    (4, re.compile(r"^(execution(\s+progress)?|workflow\s+results?)$", re.IGNORECASE)),
    (6, re.compile(r"^(synthesis|draft\s+response)$", re.IGNORECASE)),
    (7, re.compile(r"^validation(\s+result)?(\s*\(attempt\s*\d+\))?$", re.IGNORECASE)),
)
_FENCE_OPEN = re.compile(r"(`{3,}|~{3,})[ \t]*+[\w+-]*+[^\n]*+\n")
_FENCE_CLOSE = re.compile(r"(`{3,}|~{3,})[ \t]*+(?=\n|$)")
_LIST_ITEM = re.compile(r"^(?:[-*+]|\d+[.)])\s+")
_URL = re.compile(r"https?://[^\s<>()\[\]\"'`]+")
_GOALS_LABEL = re.compile(
    r"^[#>*\s]*+(?:detected\s+|user\s+)?goals?\s*+(?:\(\d+\))?[\s*]*+:?[\s*]*+(.*)$",
    re.IGNORECASE,
)
_GOAL_LINE = re.compile(r"^[-*+\s]*+goal\s*+#?\s*+(\d+)[\s*]*+[:.)\-–—][\s*]*+(.+)$", re.I)  # noqa: RUF001
_QUERY_LABEL = re.compile(
    r"^[>*\s]*+(?:original\s+|user\s+)?(?:query|question|request)[\s*]*+:[\s*]*+(.*)$",
    re.IGNORECASE,
)
_EMPHASIS = re.compile(r"(\*\*|__|`)")
_EVIDENCE_KINDS = {2: "context", 4: "workflow_result"}
Content = str | dict[str, Any] | list[Any]
_Item = tuple[str, Content, str | None]  # source_ref, content, url
_MAX_REF = 200


@dataclass
class _Heading:
    level: int
    title: str
    number: tuple[int, int | None] | None  # (section, subsection) when numbered
    explicit: bool = False  # written with "§" or "Section": a section at any level


@dataclass
class _Section:
    number: int
    title: str
    level: int
    lines: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "\n".join(self.lines).strip()


def read_seed(context_md: str, response_md: str) -> Bundle:
    """Build a bundle from the context pair. ``ValueError`` if §0 holds no query; pydantic's
    ``ValidationError`` (a ``ValueError`` too) if the result breaks the bundle's bounds."""
    sections = _split_sections(context_md)
    first = {section.number: section for section in reversed(sections)}  # first wins
    query_section = first.get(0)
    if query_section is None:
        raise ValueError(
            "context.md has no §0 user query section "
            "(expected a heading such as '## 0. User Query' or '## §0 User Query')"
        )
    query, goals = _read_query(query_section)
    if not query:
        raise ValueError("context.md: the §0 user query section is empty")
    for number in (1, 3):
        if not goals and number in first:
            _, goals = _read_query(first[number])

    body = response_md.strip()
    if not body and 6 in first:
        body = first[6].text
    if not body:
        raise ValueError("response.md is empty and context.md has no §6 synthesis to use instead")

    evidence: list[EvidenceItem] = []
    refs: set[str] = set()
    for section in sections:
        if section.number in _EVIDENCE_KINDS:
            for ref, content, url in _evidence_items(section):
                evidence.append(
                    EvidenceItem(
                        source_ref=_unique(ref, refs),
                        kind=_EVIDENCE_KINDS[section.number],
                        url=url,
                        content=content,
                    )
                )
    return Bundle(query=query, goals=goals, title=_title(body), body=body, evidence=evidence)


# ---------------------------------------------------------------- sections


def _parse_heading(line: str) -> _Heading | None:
    match = _HEADING.match(line)
    if match:
        level, title = len(match.group(1)), _clean(heading_title(match))
    else:
        stripped = line.strip()
        marker = _BOLD_SECTION.match(stripped)
        if marker is None and len(stripped) <= 60 and not stripped.endswith("."):
            marker = _BARE_SECTION.match(stripped)
        if marker is None:
            return None
        level, title = 2, _clean(marker.group(1).strip())
    numbered = _NUMBERED.match(title)
    explicit = bool(re.match(r"(§|section\b|sec\.)", title, re.IGNORECASE))
    # "## 4. Execution Progress" is a section; "### 2024 results" is not.
    if numbered and (explicit or int(numbered.group(1)) <= 9):
        sub = int(numbered.group(2)) if numbered.group(2) is not None else None
        number = (int(numbered.group(1)), sub)
        return _Heading(level, numbered.group(3).strip(), number, explicit)
    return _Heading(level, title, None) if match else None


def _split_sections(context_md: str) -> list[_Section]:
    sections: list[_Section] = []
    current: _Section | None = None
    in_fence = False
    for line in context_md.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
        heading = None if in_fence else _parse_heading(line)
        number = _section_number(heading, current)
        if heading is not None and number is not None:
            current = _Section(number, heading.title, heading.level)
            sections.append(current)
            continue
        if current is not None:
            current.lines.append(line)
    return sections


def _section_number(heading: _Heading | None, current: _Section | None) -> int | None:
    """The section a heading opens, or None when it is content of the current section."""
    if heading is None:
        return None
    if heading.number is not None:
        section, sub = heading.number
        if sub is not None:
            return None  # "### 4.1 ..." is a part of §4, never a section of its own
        if heading.explicit or current is None or heading.level <= current.level:
            return section
        return None  # "### 1. Revenue" deeper inside a section is content
    if heading.level <= 2 and (current is None or heading.level <= current.level):
        for number, pattern in _SECTION_NAMES:
            if pattern.match(heading.title):
                return number
    return None


# ---------------------------------------------------------------- §0 query and goals


def _read_query(section: _Section) -> tuple[str, list[str]]:
    goals: list[str] = []
    kept: list[str] = []
    labelled_query: str | None = None
    in_goals = False
    for raw in section.lines:
        line = raw.strip()
        goal_line = _GOAL_LINE.match(line)
        if goal_line:
            goals.append(_clean(goal_line.group(2)))
            continue
        label = _GOALS_LABEL.match(line)
        if label and not _LIST_ITEM.match(line):
            in_goals = True
            if label.group(1).strip():
                goals.extend(_split_inline_goals(label.group(1)))
            continue
        if in_goals:
            if _LIST_ITEM.match(line):
                goals.append(_clean(_LIST_ITEM.sub("", line)))
                continue
            if not line:
                continue
            in_goals = False
        query_label = _QUERY_LABEL.match(line)
        if query_label and labelled_query is None and query_label.group(1).strip():
            labelled_query = _clean(query_label.group(1))
            continue
        if _parse_heading(raw) is not None:
            continue
        kept.append(re.sub(r"^>\s?", "", line))
    query = labelled_query or "\n".join(kept).strip()
    if not query and ":" in section.title:
        query = section.title.split(":", 1)[1].strip()
    return query, [goal for goal in goals if goal]


def _split_inline_goals(text: str) -> list[str]:
    return [_clean(part) for part in re.split(r";|\s\|\s", text) if part.strip()]


# ---------------------------------------------------------------- §2 / §4 evidence


def _evidence_items(
    section: _Section,
) -> list[tuple[str, str | dict[str, Any] | list[Any], str | None]]:
    base = f"§{section.number}"
    chunks = _chunks(section)
    items: list[_Item] = []
    for ref, text in chunks:
        blocks = [(start, end, _as_json(inner)) for start, end, inner in _fence_blocks(text)]
        fences = [content for _start, _end, content in blocks if content is not None]
        rest = text
        for start, end, content in reversed(blocks):
            if content is not None:
                rest = rest[:start] + rest[end:]
        rest = rest.strip()
        if len(fences) == 1 and not _meaningful(rest):
            items.append((ref, fences[0], _json_url(fences[0])))
            continue
        if rest:
            items.append((ref, rest, _first_url(rest)))
        for k, content in enumerate(fences, start=1):
            items.append((f"{ref} #{k}", content, _json_url(content)))
    if not items and section.text:
        items.append((base, section.text, _first_url(section.text)))
    return items


def _chunks(section: _Section) -> list[tuple[str, str]]:
    base = f"§{section.number}"
    chunks: list[tuple[str, list[str]]] = [(base, [])]
    in_fence = False
    for line in section.lines:
        if line.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
        heading = None if in_fence else _parse_heading(line)
        if heading is not None and (heading.title or heading.number):
            chunks.append((_heading_ref(heading, section.number), []))
            continue
        chunks[-1][1].append(line)
    if len(chunks) > 1:
        return [(ref, "\n".join(lines).strip()) for ref, lines in chunks if _has_text(lines)]
    return _list_chunks(base, section.lines)


def _list_chunks(base: str, lines: list[str]) -> list[tuple[str, str]]:
    """Split on top-level list items; a fenced block never splits."""
    preamble: list[str] = []
    items: list[list[str]] = []
    in_fence = False
    for line in lines:
        fence_line = line.lstrip().startswith(("```", "~~~"))
        top_item = not in_fence and not line.startswith((" ", "\t")) and _LIST_ITEM.match(line)
        if fence_line:
            in_fence = not in_fence
        if top_item:
            items.append([_LIST_ITEM.sub("", line, count=1)])
        elif items:  # indented, fenced, blank or lazy continuation of the last item
            items[-1].append(line)
        else:
            preamble.append(line)
    if not items:
        return [(base, "\n".join(lines).strip())]
    chunks = [(base, "\n".join(preamble).strip())] if _has_text(preamble) else []
    chunks.extend((f"{base}.{k}", "\n".join(item).strip()) for k, item in enumerate(items, start=1))
    return chunks


def _heading_ref(heading: _Heading, section_number: int) -> str:
    if heading.number is not None:
        major, minor = heading.number
        if minor is not None:
            prefix = f"§{major}.{minor}"
        elif heading.explicit:
            prefix = f"§{major}"
        else:  # "### 1. Revenue" inside §4 is item 4.1
            prefix = f"§{section_number}.{major}"
        return f"{prefix} {heading.title}".strip()
    return heading.title or f"§{section_number}"


def _has_text(lines: list[str]) -> bool:
    return any(line.strip() for line in lines)


def _meaningful(text: str) -> bool:
    # A caption such as "Result:" or "Output" does not deserve its own evidence item.
    return len(re.sub(r"[^\w]", "", text)) > 12


def _as_json(text: str) -> dict[str, Any] | list[Any] | None:
    stripped = text.strip()
    if not stripped.startswith(("{", "[")):
        return None
    try:
        value = json.loads(stripped)
    except ValueError:
        return None
    return value if isinstance(value, dict | list) else None


def _first_url(text: str) -> str | None:
    match = _URL.search(text)
    return match.group(0).rstrip(".,;:!?") if match else None


def _json_url(content: dict[str, Any] | list[Any]) -> str | None:
    if isinstance(content, dict):
        for key in ("url", "link", "source_url", "href"):
            value = content.get(key)
            if isinstance(value, str) and _URL.fullmatch(value.strip()):
                return value.strip()
    return _first_url(json.dumps(content, ensure_ascii=False))


def _unique(ref: str, seen: set[str]) -> str:
    ref = ref[:_MAX_REF].strip() or "§"
    candidate, n = ref, 1
    while candidate in seen:
        n += 1
        suffix = f" ({n})"
        candidate = ref[: _MAX_REF - len(suffix)] + suffix
    seen.add(candidate)
    return candidate


def heading_title(match: re.Match[str]) -> str:
    """The text of a `_HEADING` match without its closing #s and trailing blanks."""
    return match.group(2).rstrip(" \t#")


def _fence_blocks(text: str) -> list[tuple[int, int, str]]:
    """(start, end, inner text) of each fenced block, leftmost first, not overlapping: an
    opening fence line at a line start, then everything up to the first later line that is
    the very same fence alone. An opening fence that is never closed is not a block.

    Each line is classified once and a closing line is found by bisection, so a text of
    thousands of unclosed fences costs no more than its length."""
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    closers: dict[str, list[int]] = {}
    for index, start in enumerate(starts):
        close = _FENCE_CLOSE.match(text, start)
        if close is not None:
            closers.setdefault(close.group(1), []).append(index)
    blocks: list[tuple[int, int, str]] = []
    index = 0
    while index < len(starts):
        opener = _FENCE_OPEN.match(text, starts[index])
        if opener is None:
            index += 1
            continue
        candidates = closers.get(opener.group(1), [])
        at = bisect.bisect_right(candidates, index)
        if at == len(candidates):
            index += 1
            continue
        closing = candidates[at]
        close = _FENCE_CLOSE.match(text, starts[closing])
        assert close is not None
        blocks.append((starts[index], close.end(), text[opener.end() : starts[closing]]))
        index = closing + 1
    return blocks


def _clean(text: str) -> str:
    text = _EMPHASIS.sub("", text).strip()
    return text.rstrip(":").strip()


def _title(body: str) -> str:
    for line in body.splitlines():
        match = _HEADING.match(line)
        if match and heading_title(match):
            return _clean(heading_title(match))[:300]
    return ""
