"""Markdown → sanitized HTML with finding highlights, and word/line diffs for the review screen.

Everything returned as ``SafeString`` here was either escaped by us or passed through nh3
after Markdown rendering; report bodies are untrusted text written by an LLM.

Cost is bounded by the input's size, whatever the input (a 200 KB wall of ``[`` included):

* Markdown goes through markdown-it-py, a CommonMark parser that runs in linear time
  (python-markdown is quadratic on runs of ``[``). Its constant is still high on text
  made mostly of markup, so a body with more than :data:`MARKDOWN_MAX_MARKUP` markup
  characters (markdown-it's inline terminators, ``! # $ % & * + - : < = > @ [ \\ ] ^ _ `
  { | } ~``) is shown as escaped plain text, with its highlights and a notice saying why.
  Real reports have a few thousand.
* Link and tag regions that highlights must not split are found by one left-to-right scan.
* Diffs trim the common head and tail first; what is left is diffed by difflib only while
  the two sides are smaller than :data:`DIFF_MAX_CELLS` (lines x lines, or words x words),
  else it is shown as removed + added as a whole, with a notice row.
"""

from __future__ import annotations

import bisect
import difflib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import nh3
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

# ---------------------------------------------------------------- sanitizing

# nh3's defaults minus images and image maps: a report has no business loading remote
# images (they leak the reviewer's address to whoever wrote the URL).
_ALLOWED_TAGS = set(nh3.ALLOWED_TAGS) - {"img", "area", "map"}
_ALLOWED_ATTRIBUTES = {
    tag: set(attrs) for tag, attrs in nh3.ALLOWED_ATTRIBUTES.items() if tag in _ALLOWED_TAGS
}
_URL_SCHEMES = {"http", "https", "mailto"}
# CommonMark + GitHub tables; raw HTML is passed on to nh3, which keeps only what is safe.
_MARKDOWN = MarkdownIt("commonmark", {"html": True}).enable("table")
# Every link becomes a link and nh3 alone decides which URLs survive: a refused
# ``[x](javascript:…)`` loses its href instead of staying behind as literal text.
_MARKDOWN.validateLink = lambda url: True  # type: ignore[method-assign]

# Above this many markup characters a body is shown as plain text (see the module doc).
MARKDOWN_MAX_MARKUP = 10_000
# markdown-it's inline terminators (and "|" for tables): each one sends the parser through
# every inline rule, some 35 µs a character, where ordinary text is skipped in runs.
_MARKUP_CHARS = "!#$%&*+-:<=>@[\\]^_`{|}~"


def sanitize_html(html: str) -> str:
    """Strip everything that could run script: unknown tags, event handler attributes,
    ``javascript:``/``data:`` URLs. Links get ``rel="noopener noreferrer"``."""
    return nh3.clean(
        html,
        tags=_ALLOWED_TAGS,
        clean_content_tags={"script", "style"},
        attributes=_ALLOWED_ATTRIBUTES,
        url_schemes=_URL_SCHEMES,
        link_rel="noopener noreferrer",
        strip_comments=True,
    )


def markup_count(source: str) -> int:
    """How many characters of `source` Markdown may treat as markup (a cost estimate)."""
    return sum(source.count(char) for char in _MARKUP_CHARS)


def renders_as_markdown(source: str) -> bool:
    return markup_count(source) <= MARKDOWN_MAX_MARKUP


def _plain_notice(source: str) -> str:
    return (
        '<p class="render-notice">This text has '
        f"{markup_count(source):,} Markdown markup characters, more than the "
        f"{MARKDOWN_MAX_MARKUP:,} the review screen renders; it is shown as plain text.</p>"
    )


def render_markdown(source: str) -> SafeString:
    """Render untrusted Markdown to sanitized HTML (plain escaped text above the markup cap)."""
    if not renders_as_markdown(source):
        # safe: escaped
        return mark_safe(f'{_plain_notice(source)}<pre class="report-plain">{escape(source)}</pre>')
    html = _MARKDOWN.render(source).rstrip("\n")
    return mark_safe(sanitize_html(html))  # safe: nh3 has just sanitized it


def safe_url(url: str | None) -> str:
    """`url` if it is an http(s) URL, else "" (templates only link what this returns)."""
    if not url:
        return ""
    scheme = url.split(":", 1)[0].strip().lower() if ":" in url else ""
    return url if scheme in ("http", "https") else ""


# ---------------------------------------------------------------- finding highlights

# One private-use character per span boundary: finding k opens with _PUA + 2k and closes
# with _PUA + 2k + 1. They survive Markdown and nh3 untouched, so after sanitizing we know
# exactly where each span went; ones that landed inside a tag (a link URL) are dropped.
_PUA = 0xE000
_PUA_END = 0xF8FF
_MAX_HIGHLIGHTS = (_PUA_END - _PUA + 1) // 2
_PUA_RE = re.compile("[\ue000-\uf8ff]")
# A tag as nh3 serializes it: attribute values are double-quoted with `"`, `<`, `>` escaped.
_TAG_OR_TEXT = re.compile(r"(<[^>]*>)")
# Block markers a span may not start in front of, or the block would stop being one.
_LINE_MARKERS = re.compile(
    r"[ \t]*(?:(?:#{1,6}|[-*+]|\d{1,9}[.)]|>)[ \t]+|`{3,}|~{3,}|\|[ \t]*)*", re.ASCII
)

_MARKER_REACH = 120

# Places a sentinel must not land in: a link destination would lose its href, a raw tag
# its attributes. A boundary inside one moves out to the edge of the whole construct
# (see _protected_regions).

# When spans overlap, the mark takes the colour of the most telling kind.
_KIND_PRIORITY = ("arithmetic", "close_but_wrong", "orphan")


@dataclass(frozen=True)
class Highlight:
    """A span of the Markdown source to mark: `[start, end)` in characters."""

    id: int
    start: int
    end: int
    kind: str
    message: str = ""


def _css_kind(kind: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", kind.lower()).strip("-")
    return slug or "other"


def _adjust_span(source: str, start: int, end: int) -> tuple[int, int]:
    """Move span boundaries off whitespace and off line-start block markers."""
    while start < end and source[start].isspace():
        start += 1
    while end > start and source[end - 1].isspace():
        end -= 1
    # Block markers sit in the first few characters of a line; looking further back for the
    # line start would make every highlight cost a scan of its whole line.
    reach = max(0, start - _MARKER_REACH)
    line_start = source.rfind("\n", reach, start) + 1
    if line_start == 0 and reach > 0:
        return start, end
    if source[line_start:start].strip() == "":
        match = _LINE_MARKERS.match(source, line_start)
        if match and match.end() > start:
            start = min(match.end(), end)
    return start, end


class _NextOf:
    """The first position at or after `i` of a character `pattern` matches, for `i` that
    never decreases: a found position is reused while it is still ahead, so the text is
    scanned once in all, however many times this is asked."""

    def __init__(self, source: str, pattern: re.Pattern[str]) -> None:
        self.source = source
        self.pattern = pattern
        self.found = -1

    def at(self, i: int) -> int:
        if self.found < i:
            match = self.pattern.search(self.source, i)
            self.found = match.start() if match else len(self.source)
        return self.found


_OPENERS = re.compile(r"[\[<]")


def _protected_regions(source: str) -> list[tuple[int, int, int]]:
    """(construct start, inner start, construct end) of links and raw tags; "inner start" is
    where a boundary starts to hurt: the link destination, or anywhere in a tag.

    Finds what ``\\[[^\\]\\n]*\\]\\([^)\\n]*\\)|<[^>\\n]*>`` finds, leftmost first, in one
    pass (the regex itself rescans the rest of the line from every ``[`` of a run)."""
    n = len(source)
    label_end = _NextOf(source, re.compile(r"[\]\n]"))
    destination_end = _NextOf(source, re.compile(r"[)\n]"))
    tag_end = _NextOf(source, re.compile(r"[>\n]"))
    regions: list[tuple[int, int, int]] = []
    position = 0
    while (opener := _OPENERS.search(source, position)) is not None:
        start = opener.start()
        position = start + 1
        if source[start] == "<":
            end = tag_end.at(start + 1)
            if end < n and source[end] == ">":
                regions.append((start, start, end + 1))
                position = end + 1
            continue
        close = label_end.at(start + 1)
        if close + 1 < n and source[close] == "]" and source[close + 1] == "(":
            end = destination_end.at(close + 2)
            if end < n and source[end] == ")":
                regions.append((start, close + 1, end + 1))
                position = end + 1
    return regions


def _move_out(
    position: int,
    regions: Sequence[tuple[int, int, int]],
    starts: Sequence[int],
    *,
    opening: bool,
) -> int:
    # Regions do not overlap: only the last one starting before `position` can hold it.
    index = bisect.bisect_left(starts, position) - 1
    if index >= 0:
        start, inner, end = regions[index]
        if inner < position < end:
            return start if opening else end
    return position


def render_report(source: str, highlights: Sequence[Highlight] = ()) -> SafeString:
    """Render a revision body with `highlights` wrapped in ``<mark class="finding …">``.

    Spans index the Markdown source; a span that does not fit the source, or whose
    boundaries end up inside a tag after rendering, is simply not highlighted.
    """
    # The body may itself contain private-use characters; U+FFFD keeps every offset.
    source = _PUA_RE.sub("\ufffd", source)
    boundaries: list[tuple[int, int, str]] = []  # (position, order, sentinel)
    usable: list[Highlight] = []
    regions = _protected_regions(source)
    starts = [region[0] for region in regions]
    for highlight in highlights:
        if len(usable) >= _MAX_HIGHLIGHTS:
            break
        if not 0 <= highlight.start < highlight.end <= len(source):
            continue
        start, end = _adjust_span(source, highlight.start, highlight.end)
        start = _move_out(start, regions, starts, opening=True)
        end = _move_out(end, regions, starts, opening=False)
        if start >= end:
            continue
        index = len(usable)
        usable.append(highlight)
        # At one position, closes come before opens so adjacent spans do not nest.
        boundaries.append((start, 1, chr(_PUA + 2 * index)))
        boundaries.append((end, 0, chr(_PUA + 2 * index + 1)))
    if not usable:
        return render_markdown(source)

    boundaries.sort()
    pieces: list[str] = []
    cursor = 0
    for position, _order, sentinel in boundaries:
        pieces.append(source[cursor:position])
        pieces.append(sentinel)
        cursor = position
    pieces.append(source[cursor:])
    marked_source = "".join(pieces)
    if renders_as_markdown(source):
        html = str(render_markdown(marked_source))
    else:
        html = f'<pre class="report-plain">{escape(marked_source)}</pre>'
        html = _plain_notice(source) + html
    # Safe: sanitized or escaped above; the marks added now are ours, with escaped attributes.
    return mark_safe(_sentinels_to_marks(html, usable))


def _sentinels_to_marks(html: str, highlights: Sequence[Highlight]) -> str:
    # Only spans whose opening and closing sentinels both reached the text are marked.
    in_text: set[str] = set()
    for part in _TAG_OR_TEXT.split(html):
        if not part.startswith("<"):
            in_text.update(_PUA_RE.findall(part))
    marked = {
        index
        for index in range(len(highlights))
        if chr(_PUA + 2 * index) in in_text and chr(_PUA + 2 * index + 1) in in_text
    }

    active: list[int] = []
    first_segment_done: set[int] = set()
    out: list[str] = []
    for part in _TAG_OR_TEXT.split(html):
        if part.startswith("<"):
            # A sentinel inside a tag (e.g. in an href) is removed; its span is not marked.
            out.append(_PUA_RE.sub("", part))
            continue
        # Marks never cross a tag: each text run is wrapped on its own, so the HTML stays
        # well formed whatever the spans cover.
        segment_start = 0
        for match in _PUA_RE.finditer(part):
            out.append(
                _wrap(part[segment_start : match.start()], active, highlights, first_segment_done)
            )
            segment_start = match.end()
            code = ord(match.group()) - _PUA
            index, closing = divmod(code, 2)
            if index not in marked:
                continue
            if closing:
                if index in active:
                    active.remove(index)
            elif index not in active:
                active.append(index)
        out.append(_wrap(part[segment_start:], active, highlights, first_segment_done))
    return "".join(out)


def _wrap(
    text: str, active: list[int], highlights: Sequence[Highlight], first_done: set[int]
) -> str:
    if not text or not active:
        return text
    # Whitespace-only runs between block tags (newlines) are left alone.
    if not text.strip():
        return text
    chosen = [highlights[i] for i in active]
    kinds = [h.kind for h in chosen]
    primary = next((k for k in _KIND_PRIORITY if k in kinds), kinds[0])
    ids = " ".join(str(h.id) for h in chosen)
    titles = " · ".join(dict.fromkeys(h.message for h in chosen if h.message))
    anchor = ""
    newcomers = [i for i in active if i not in first_done]
    if newcomers:
        anchor = f' id="finding-{highlights[newcomers[0]].id}"'
        first_done.update(newcomers)
    return (
        f'<mark class="finding finding--{_css_kind(primary)}" data-finding="{ids}"{anchor}'
        f' title="{escape(titles)}">{text}</mark>'
    )


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
