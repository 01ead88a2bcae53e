"""Tables a filing lays out with spaces instead of pipes: which bare numbers of a
column of percentages are percentages too.

A statement of percentages of sales writes "%" only on its first and last rows:

    Sales                    100.0 %    100.0 %
    Gross profit              40.0       50.9
    Net income                 7.2 %     20.5 %

Lines that follow one another without a blank line make a block; in a block, a number's
column is its place counted from the right of its line (the figures of a layout are
aligned on the right). A column whose first and last numbers in the block carry "%"
makes every bare number between them a percentage. Markdown tables have their own rule
(`_tables._percent_columns`).
"""

from __future__ import annotations

from collections.abc import Sequence

from validation.engine.checks.numeric._types import _Raw


def mark_layout_percents(text: str, raws: Sequence[_Raw]) -> None:
    """Give "%" to the bare numbers of the layout columns of percentages in `raws`
    (in text order). Linear in the text and the numbers."""
    if sum(1 for raw in raws if raw.unit == "%") < 2:
        return
    line: list[_Raw] = []
    block: list[list[_Raw]] = []
    line_end = -1
    for raw in raws:
        if raw.start > line_end:
            _close_line(line, block)
            line = []
            line_start = text.rfind("\n", 0, raw.start) + 1
            if block and text[block[-1][-1].end : line_start].count("\n") > 1:
                _mark(text, block)  # a blank line between: the block ends
                block = []
            found = text.find("\n", raw.start)
            line_end = len(text) if found < 0 else found
        line.append(raw)
    _close_line(line, block)
    _mark(text, block)


def _close_line(line: list[_Raw], block: list[list[_Raw]]) -> None:
    if line:
        block.append(line)


def _mark(text: str, block: list[list[_Raw]]) -> None:
    if len(block) < 3:
        return
    width = max(len(line) for line in block)
    for column in range(1, min(width, 8) + 1):
        cells = [line[-column] for line in block if len(line) >= column]
        if len(cells) < 3 or cells[0].unit != "%" or cells[-1].unit != "%":
            continue
        if not all(_aligned(text, cell) for cell in cells):
            continue  # prose or a list: its numbers are not set off as a layout's are
        for cell in cells[1:-1]:
            if not (cell.unit or cell.currency or cell.suffix) and cell.scale == 1:
                cell.unit = "%"


def _aligned(text: str, raw: _Raw) -> bool:
    """Set off by a run of spaces, as a layout's figures are ("Gross profit   40.0")."""
    before = text[max(0, raw.start - 3) : raw.start].lstrip("\n")
    return before.rstrip("$(").endswith("  ")
