"""Word and line diffs for the review screen: a fix's FIND -> REPLACE in its sentence, and
one revision against another.

Cost is bounded by the input's size: diffs trim the common head and tail first; what is left
is diffed by difflib only while the two sides are smaller than :data:`DIFF_MAX_CELLS` (lines
x lines, or words x words), else it is shown as removed + added as a whole, with a notice
row. Everything returned as ``SafeString`` was escaped here.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

# ---------------------------------------------------------------- diffs

# Words keep their currency sign, decimals, thousands separators and % together, so
# "$15.8B." diffs as "$15.8B" + "." rather than character soup.
_TOKEN = re.compile(r"\s+|[$€£¥]?\w(?:[\w.,%]*[\w%])?|[^\w\s]")


def tokenize(text: str) -> list[str]:
    """Split into word, punctuation and whitespace tokens; ``"".join`` gives `text` back."""
    return _TOKEN.findall(text)


# difflib's matcher is quadratic or worse on repetitive input (a wall of blank lines, "5% "
# x 60,000); past this many cells (old items x new items, after the common head and tail
# are trimmed) the middle is shown as removed + added as a whole.
DIFF_MAX_CELLS = 250_000

# At most this many removed, added or changed rows are shown per block of the diff.
DIFF_MAX_ROWS = 2_000

Opcode = tuple[str, int, int, int, int]


def diff_opcodes(old: Sequence[str], new: Sequence[str]) -> tuple[list[Opcode], bool]:
    """difflib opcodes of `old` → `new`, and whether the middle was too large to diff.

    The common head and tail are found in linear time; only what lies between them goes to
    SequenceMatcher, and only while it has at most DIFF_MAX_CELLS cells."""
    limit = min(len(old), len(new))
    head = 0
    while head < limit and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < limit - head and old[len(old) - 1 - tail] == new[len(new) - 1 - tail]:
        tail += 1
    old_end, new_end = len(old) - tail, len(new) - tail
    opcodes: list[Opcode] = []
    if head:
        opcodes.append(("equal", 0, head, 0, head))
    middle_old, middle_new = old_end - head, new_end - head
    capped = middle_old * middle_new > DIFF_MAX_CELLS
    if capped:
        tag = "replace" if middle_old and middle_new else ("delete" if middle_old else "insert")
        opcodes.append((tag, head, old_end, head, new_end))
    elif middle_old or middle_new:
        matcher = difflib.SequenceMatcher(
            None, old[head:old_end], new[head:new_end], autojunk=False
        )
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            opcodes.append((tag, i1 + head, i2 + head, j1 + head, j2 + head))
    if tail:
        opcodes.append(("equal", old_end, len(old), new_end, len(new)))
    return opcodes, capped


def _diff_html(old_tokens: Sequence[str], new_tokens: Sequence[str]) -> str:
    out: list[str] = []
    for tag, i1, i2, j1, j2 in diff_opcodes(old_tokens, new_tokens)[0]:
        old = escape("".join(old_tokens[i1:i2]))
        new = escape("".join(new_tokens[j1:j2]))
        if tag == "equal":
            out.append(old)
            continue
        if tag in ("delete", "replace"):
            out.append(f"<del>{old}</del>")
        if tag in ("insert", "replace"):
            out.append(f"<ins>{new}</ins>")
    return "".join(out)


def word_diff(old: str, new: str) -> SafeString:
    """Escaped HTML of `old` → `new` with removed words in <del> and added ones in <ins>."""
    return mark_safe(_diff_html(tokenize(old), tokenize(new)))


_SENTENCE_END = re.compile(r"[.!?](?=\s)|\n")


def fix_context(body: str, offset: int, find: str, radius: int = 40) -> tuple[str, str]:
    """The text around a FIND in its sentence: (before, after), cut at sentence ends or
    `radius` characters, with an ellipsis where cut. ("", "") if FIND is not found."""
    if body[offset : offset + len(find)] != find:
        offset = body.find(find)
        if offset < 0:
            return "", ""
    end = offset + len(find)

    window_start = max(0, offset - radius)
    before = body[window_start:offset]
    cut = None
    for boundary in _SENTENCE_END.finditer(before):
        cut = boundary.end()
    if cut is not None:
        before = before[cut:].lstrip()
    elif window_start > 0:
        before = "…" + before.split(None, 1)[-1] if " " in before else "…" + before
    else:
        before = before.lstrip()

    after = body[end : end + radius]
    sentence_end = _SENTENCE_END.search(after)
    if sentence_end is not None:
        after = after[: sentence_end.end()].rstrip()
    elif end + radius < len(body):
        after = (after.rsplit(None, 1)[0] if " " in after else after) + "…"
    return before, after


def fix_diff(body: str, offset: int, find: str, replace: str) -> SafeString:
    """FIND → REPLACE as a word diff inside its surrounding sentence."""
    before, after = fix_context(body, offset, find)
    return mark_safe(
        f'<span class="ctx">{escape(before)}</span>{word_diff(find, replace)}'
        f'<span class="ctx">{escape(after)}</span>'
    )


@dataclass(frozen=True)
class DiffLine:
    """One row of a revision diff: kind is equal, delete, insert, change or skip."""

    kind: str
    old_number: int | None
    new_number: int | None
    html: SafeString


def _split_lines(text: str) -> list[str]:
    return text.splitlines()


def line_diff(old: str, new: str, context: int = 2) -> list[DiffLine]:
    """Line diff of two revision bodies; changed line pairs get a word diff. Runs of more
    than 2*`context` unchanged lines collapse into one "skip" row."""
    old_lines, new_lines = _split_lines(old), _split_lines(new)
    opcodes, capped = diff_opcodes(old_lines, new_lines)
    rows: list[DiffLine] = []
    for tag, i1, i2, j1, j2 in opcodes:
        if tag == "equal":
            rows.extend(
                _equal_rows(
                    old_lines, i1, i2, j1, context, first=not rows, last=i2 == len(old_lines)
                )
            )
            continue
        if tag == "replace" and i2 - i1 == j2 - j1 and not capped:
            pairs = min(i2 - i1, DIFF_MAX_ROWS)
            for k in range(pairs):
                rows.append(
                    DiffLine(
                        "change",
                        i1 + k + 1,
                        j1 + k + 1,
                        word_diff(old_lines[i1 + k], new_lines[j1 + k]),
                    )
                )
            rows.extend(_hidden(i2 - i1 - pairs, "changed"))
            continue
        shown = min(i2 - i1, DIFF_MAX_ROWS)
        for k in range(i1, i1 + shown):
            rows.append(DiffLine("delete", k + 1, None, escape(old_lines[k])))
        rows.extend(_hidden(i2 - i1 - shown, "removed"))
        shown = min(j2 - j1, DIFF_MAX_ROWS)
        for k in range(j1, j1 + shown):
            rows.append(DiffLine("insert", None, k + 1, escape(new_lines[k])))
        rows.extend(_hidden(j2 - j1 - shown, "added"))
    if capped:
        notice = (
            f"The changed part is too large to compare line by line (more than "
            f"{DIFF_MAX_CELLS:,} line pairs); it is shown as removed, then added."
        )
        rows.insert(0, DiffLine("skip", None, None, mark_safe(notice)))  # safe: our text
    return rows


def _hidden(count: int, what: str) -> list[DiffLine]:
    if count <= 0:
        return []
    text = f"{count:,} more {what} line{'s' if count != 1 else ''} not shown"
    return [DiffLine("skip", None, None, mark_safe(text))]  # safe: our text


def _equal_rows(
    lines: Sequence[str], i1: int, i2: int, j1: int, context: int, *, first: bool, last: bool
) -> Iterable[DiffLine]:
    count = i2 - i1
    keep_head = 0 if first else context
    keep_tail = 0 if last else context
    if count <= keep_head + keep_tail + 1:
        for k in range(count):
            yield DiffLine("equal", i1 + k + 1, j1 + k + 1, escape(lines[i1 + k]))
        return
    for k in range(keep_head):
        yield DiffLine("equal", i1 + k + 1, j1 + k + 1, escape(lines[i1 + k]))
    skipped = count - keep_head - keep_tail
    yield DiffLine(
        "skip", None, None, mark_safe(f"{skipped} unchanged line{'s' if skipped != 1 else ''}")
    )
    for k in range(count - keep_tail, count):
        yield DiffLine("equal", i1 + k + 1, j1 + k + 1, escape(lines[i1 + k]))
