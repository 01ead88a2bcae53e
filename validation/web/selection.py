"""A selection in the rendered report, mapped back to the Markdown source it came from.

The rendered report marks each block with the source offsets it was rendered from
(``data-src-start`` / ``data-src-end``, :mod:`validation.web.rendering`). What a person
selects is rendered text: the markup around it (``**``, backticks, link destinations,
escapes, table pipes, block markers) is gone. Within the block's source, the text a person
sees is projected out with the source position of each character; the selection is found
in that projection (the occurrence nearest where it was selected) and mapped back to a span
of the source. Linear in the block: one pass to project, one search.
"""

from __future__ import annotations

from dataclasses import dataclass

# Characters Markdown may spend on markup inside a line; "_" only when it does (see below).
_INLINE_MARKUP = frozenset("*`~|")
_LINE_MARKERS = frozenset("#>-+*|")


@dataclass(frozen=True)
class _Projection:
    text: str  # the visible characters, whitespace runs as one space
    where: list[int]  # the source position of each of them


def _project(source: str, start: int, end: int, *, underscores: bool) -> _Projection:
    chars: list[str] = []
    where: list[int] = []
    i = start
    line_start = True
    while i < end:
        char = source[i]
        if char == "\n":
            line_start = True
            _space(chars, where, i)
            i += 1
            continue
        if line_start:
            # Block markers at a line's start: "## ", "> ", "- ", "1. ", "| ".
            j = i
            while j < end and (source[j] in _LINE_MARKERS or source[j] in " \t"):
                j += 1
            k = j
            while k < end and source[k].isdigit():
                k += 1
            if k > j and k < end and source[k] in ".)" and k + 1 < end and source[k + 1] == " ":
                j = k + 2
            line_start = False
            if j > i:
                i = j
                continue
        if char == "\\" and i + 1 < end:  # an escape: the next character as written
            chars.append(source[i + 1])
            where.append(i + 1)
            i += 2
            continue
        if char == "]" and i + 1 < end and source[i + 1] == "(":  # a link's destination
            close = source.find(")", i + 2, end)
            i = close + 1 if close >= 0 else end
            continue
        if char == "<":  # a raw tag
            close = source.find(">", i + 1, end)
            if close >= 0 and "\n" not in source[i:close]:
                i = close + 1
                continue
        if char in _INLINE_MARKUP or char == "[" or (char == "_" and not underscores):
            i += 1
            continue
        if char.isspace():
            _space(chars, where, i)
        else:
            chars.append(char)
            where.append(i)
        i += 1
    return _Projection("".join(chars), where)


def _space(chars: list[str], where: list[int], position: int) -> None:
    if chars and chars[-1] != " ":
        chars.append(" ")
        where.append(position)


def source_span(
    source: str, block_start: int, block_end: int, selected: str, near: int = 0
) -> tuple[int, int] | None:
    """The span of `source` (within ``[block_start, block_end)``) that rendered as
    `selected`, the occurrence nearest `near` (characters into the block's rendered text);
    None when the block's source does not hold it."""
    wanted = " ".join(selected.split())
    if not wanted or not 0 <= block_start < block_end <= len(source):
        return None
    # "_" is kept first (a snake_case name renders as written), then dropped (_emphasis_).
    for underscores in (True, False):
        text = wanted if underscores else wanted.replace("_", "")
        projection = _project(source, block_start, block_end, underscores=underscores)
        best: int | None = None
        position = projection.text.find(text)
        while position >= 0:
            if best is None or abs(position - near) < abs(best - near):
                best = position
            if position > near:
                break  # later ones are further away still
            position = projection.text.find(text, position + 1)
        if best is not None and text:
            first = projection.where[best]
            last = projection.where[best + len(text) - 1]
            return first, last + 1
    return None
