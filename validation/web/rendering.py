"""Markdown → sanitized HTML with finding highlights for the review screen (the word and
line diffs are in :mod:`validation.web.diffs`).

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
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass

import nh3
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

from validation.engine.visible import INVISIBLE, mark_name, mark_text
from validation.web.display import finding_class

# ---------------------------------------------------------------- sanitizing

# nh3's defaults minus images and image maps: a report has no business loading remote
# images (they leak the reviewer's address to whoever wrote the URL).
_ALLOWED_TAGS = set(nh3.ALLOWED_TAGS) - {"img", "area", "map"}
_ALLOWED_ATTRIBUTES = {
    tag: set(attrs) for tag, attrs in nh3.ALLOWED_ATTRIBUTES.items() if tag in _ALLOWED_TAGS
}
_URL_SCHEMES = {"http", "https", "mailto"}
# CommonMark + GitHub tables. Raw HTML is never rendered: it is shown as the text it is,
# so a comment, a style element or a self-closed <circle/> hides nothing from the reviewer; a
# link reference definition (which renders as nothing) stays a line of text too
# (engine.visible holds the rule; docs/security.md says why). nh3 still sanitizes the result.
_MARKDOWN = MarkdownIt("commonmark", {"html": False}).enable("table").disable("reference")
# Every link becomes a link and nh3 alone decides which URLs survive: a refused
# ``[x](javascript:…)`` loses its href instead of staying behind as literal text.
_MARKDOWN.validateLink = lambda url: True  # type: ignore[method-assign]

# Above this many markup characters a body is shown as plain text (see the module doc).
MARKDOWN_MAX_MARKUP = 10_000
# markdown-it's inline terminators (and "|" for tables): each one sends the parser through
# every inline rule, some 35 µs a character, where ordinary text is skipped in runs.
_MARKUP_CHARS = "!#$%&*+-:<=>@[\\]^_`{|}~"


# The source offsets of a rendered block (render_report): a selection maps back through them.
SOURCE_ATTRIBUTES = ("data-src-start", "data-src-end")
_MAPPED_ATTRIBUTES = {
    tag: set(attrs) | set(SOURCE_ATTRIBUTES) for tag, attrs in _ALLOWED_ATTRIBUTES.items()
}
_MAPPED_ATTRIBUTES["*"] = set(SOURCE_ATTRIBUTES)


def sanitize_html(html: str, *, source_offsets: bool = False) -> str:
    """Strip everything that could run script: unknown tags, event handler attributes,
    ``javascript:``/``data:`` URLs. Links get ``rel="noopener noreferrer"``. With
    `source_offsets`, blocks keep their ``data-src-*`` offsets (plain numbers: a report that
    writes its own only misleads its own selection, which the server checks again)."""
    return nh3.clean(
        html,
        tags=_ALLOWED_TAGS,
        clean_content_tags={"script", "style"},
        attributes=_MAPPED_ATTRIBUTES if source_offsets else _ALLOWED_ATTRIBUTES,
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
        plain = show_invisible(f'<pre class="report-plain">{escape(source)}</pre>')
        return mark_safe(f"{_plain_notice(source)}{plain}")
    html = _MARKDOWN.render(source).rstrip("\n")
    return mark_safe(show_invisible(sanitize_html(html)))  # safe: nh3 has just sanitized it


def show_invisible(html: str) -> str:
    """Bidi controls and zero-width characters as visible marks: in text a marked
    ``[U+202E]`` named in its title, inside a tag (an attribute) the plain ``[U+202E]``."""
    if not INVISIBLE.search(html):
        return html
    out: list[str] = []
    for part in _TAG_OR_TEXT.split(html):
        if part.startswith("<"):
            out.append(INVISIBLE.sub(lambda m: mark_text(m.group()), part))
        else:
            out.append(INVISIBLE.sub(_invisible_mark, part))
    return "".join(out)


def _invisible_mark(match: re.Match[str]) -> str:
    char = match.group()
    return (
        f'<span class="invisible-char" title="{escape(mark_name(char))}">{mark_text(char)}</span>'
    )


def _render_with_offsets(source: str, inserted: Sequence[int] = ()) -> SafeString:
    """`source` rendered with each block's offsets in the original body: `inserted` are the
    positions (in `source`, sorted) of characters added to the body (the highlight
    sentinels), which the offsets skip."""
    tokens = _MARKDOWN.parse(source)
    line_starts = [0, *(match.end() for match in re.finditer("\n", source))]

    def original(position: int) -> int:
        return position - bisect.bisect_left(inserted, position)

    for token in tokens:
        if token.nesting != 1 or not token.map:
            continue
        first, last = token.map
        start = line_starts[first] if first < len(line_starts) else len(source)
        end = line_starts[last] if last < len(line_starts) else len(source)
        if end > start and source[end - 1] == "\n":
            end -= 1
        token.attrSet(SOURCE_ATTRIBUTES[0], str(original(start)))
        token.attrSet(SOURCE_ATTRIBUTES[1], str(original(end)))
    html = _MARKDOWN.renderer.render(tokens, _MARKDOWN.options, {}).rstrip("\n")
    return mark_safe(sanitize_html(html, source_offsets=True))  # safe: nh3 sanitized it


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
        if renders_as_markdown(source):
            return _render_with_offsets(source)
        return render_markdown(source)

    boundaries.sort()
    pieces: list[str] = []
    inserted: list[int] = []  # where each sentinel sits in the marked source
    cursor = 0
    for position, _order, sentinel in boundaries:
        pieces.append(source[cursor:position])
        inserted.append(position + len(inserted))
        pieces.append(sentinel)
        cursor = position
    pieces.append(source[cursor:])
    marked_source = "".join(pieces)
    if renders_as_markdown(source):
        html = str(_render_with_offsets(marked_source, inserted))
    else:
        html = show_invisible(f'<pre class="report-plain">{escape(marked_source)}</pre>')
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
        f'<mark class="finding {finding_class(primary)}" data-finding="{ids}"{anchor}'
        f' title="{escape(titles)}">{text}</mark>'
    )
