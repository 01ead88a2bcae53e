"""Just enough Markdown structure for the checks, with offsets into the original body.

Nothing here renders Markdown. Code (fenced blocks and inline code spans) is *masked*:
replaced by spaces of the same length, newlines kept, so every offset found in the
masked text is an offset in the body and nothing inside code is ever judged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal
from urllib.parse import urlsplit

from validation.engine.spans import occurs_once, widen_to_unique
from validation.engine.types import Finding, FixProposal
from validation.engine.visible import closes_fence, mask_code

__all__ = ["closes_fence", "mask_code"]  # their home is engine.visible; the checks use them

URL = re.compile(r"https?://[^\s<>\[\]\"'`{}|\\^]+", re.IGNORECASE)
_INLINE_LINK = re.compile(
    r"(!?)\[((?:[^\[\]\n]|\[[^\[\]\n]*\])*)\]\(\s*<?((?:[^()\s<>]|\([^()\s]*\))+)>?"
    r"(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^)\n]*\)))?\s*\)"
)
_AUTOLINK = re.compile(r"<(https?://[^\s<>]+)>", re.IGNORECASE)
_REFERENCE_DEF = re.compile(r"^ {0,3}\[(?!\^)([^\]\n]+)\]:[ \t]*<?(\S+?)>?(?:[ \t]+.*)?$", re.M)
_TRAILING = ".,;:!?*_~'\""
LIST_ITEM = re.compile(r"^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+")
HEADING = re.compile(r"^ {0,3}#{1,6}(?:[ \t]|$)")
TABLE_ROW = re.compile(r"^[ \t]*\|")
THEMATIC_BREAK = re.compile(r"^ {0,3}(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$")


@dataclass(frozen=True)
class Link:
    """A clickable link: ``[text](url)``, ``![alt](url)``, ``<url>`` or ``[ref]: url``."""

    start: int
    end: int
    url: str
    kind: Literal["inline", "image", "autolink", "reference"]
    text: str = ""


@dataclass(frozen=True)
class UrlMention:
    start: int
    end: int
    url: str


def find_links(masked: str) -> list[Link]:
    links: list[Link] = []
    for match in _INLINE_LINK.finditer(masked):
        kind: Literal["inline", "image"] = "image" if match.group(1) else "inline"
        links.append(Link(match.start(), match.end(), match.group(3), kind, match.group(2)))
    for match in _AUTOLINK.finditer(masked):
        links.append(Link(match.start(), match.end(), match.group(1), "autolink"))
    for match in _REFERENCE_DEF.finditer(masked):
        if URL.match(match.group(2)):
            links.append(Link(match.start(), match.end(), match.group(2), "reference"))
    links.sort(key=lambda link: link.start)
    return links


def find_urls(masked: str) -> list[UrlMention]:
    """Every http(s) URL, with trailing punctuation and an unbalanced ``)`` left out."""
    urls: list[UrlMention] = []
    for match in URL.finditer(masked):
        url = trim_url(match.group(0))
        urls.append(UrlMention(match.start(), match.start() + len(url), url))
    return urls


def trim_url(url: str) -> str:
    while url:
        if url[-1] in _TRAILING or (url[-1] == ")" and url.count("(") < url.count(")")):
            url = url[:-1]
        else:
            break
    return url


class Mask:
    """Which characters of a text are covered; O(span) to mark or test, never O(spans)."""

    def __init__(self, size: int) -> None:
        self.bits = bytearray(size)

    def mark(self, start: int, end: int) -> None:
        self.bits[start:end] = b"\x01" * (end - start)

    def free(self, start: int, end: int) -> bool:
        return self.bits.find(1, start, end) == -1


def raw_urls(masked: str, links: list[Link]) -> list[UrlMention]:
    """URLs that are not part of any link."""
    covered = Mask(len(masked))
    for link in links:
        covered.mark(link.start, link.end)
    return [url for url in find_urls(masked) if covered.free(url.start, url.end)]


def normalize_url(url: str) -> str:
    """Comparable form: no scheme, no ``www.``, lower-case host, no fragment, no trailing
    slash. ``http://www.Example.com/a/#x`` and ``https://example.com/a`` compare equal."""
    url = trim_url(url.strip())
    try:
        parts = urlsplit(url)
    except ValueError:
        return url.lower()
    host = (parts.hostname or "").lower()
    host = host.removeprefix("www.")
    if parts.port:
        host = f"{host}:{parts.port}"
    path = parts.path.rstrip("/")
    query = f"?{parts.query}" if parts.query else ""
    return f"{host}{path}{query}"


def link_label(url: str, limit: int = 60) -> str:
    """Readable text for a link to ``url``: host and path, e.g. ``sec.gov/cgi-bin/browse``."""
    parts = urlsplit(url)
    host = (parts.hostname or url).removeprefix("www.")
    label = f"{host}{parts.path.rstrip('/')}"
    if len(label) > limit:
        label = label[: limit - 1].rsplit("/", 1)[0] + "/…"
    return label.replace("[", "(").replace("]", ")")


# ---------------------------------------------------------------- fix anchors

# A FIND that needs more context than this on either side is not surgical, and finding it
# in a long body full of repeated text would cost O(len(body)) per widening step.
FIND_CONTEXT = 300
# Deterministic fixes proposed per check and attempt; the findings are all reported.
MAX_FIXES = 50


def unique_find(body: str, start: int, end: int) -> tuple[str, int] | None:
    """``(find, offset)``: ``body[start:end]`` widened by :func:`widen_to_unique` until it
    occurs once -- or None when even ``FIND_CONTEXT`` characters either side repeat."""
    if occurs_once(body, body[start:end]):
        return body[start:end], start
    low, high = max(0, start - FIND_CONTEXT), min(len(body), end + FIND_CONTEXT)
    if not occurs_once(body, body[low:high]):
        return None
    return widen_to_unique(body, start, end, low=low, high=high)


# ---------------------------------------------------------------- blocks and sentences

BlockKind = Literal["heading", "table", "list_item", "paragraph", "code"]


@dataclass(frozen=True)
class Block:
    start: int
    end: int  # exclusive, without the trailing newline
    kind: BlockKind


def in_span_order(
    findings: list[Finding], fixes: list[FixProposal]
) -> tuple[list[Finding], list[FixProposal]]:
    """Findings in report order and fixes by offset, each fix still pointing at its finding."""
    order = sorted(range(len(findings)), key=lambda i: (findings[i].start, findings[i].end, i))
    position = {old: new for new, old in enumerate(order)}
    for fix in fixes:
        assert fix.finding_index is not None
        fix.finding_index = position[fix.finding_index]
    return [findings[i] for i in order], sorted(fixes, key=lambda fix: fix.offset)


def lines_with_offsets(text: str) -> tuple[tuple[int, str], ...]:
    """(offset, line without its line break) for each line; the checks ask for the same
    body's lines several times, so the last few answers are kept."""
    return _lines_with_offsets(text)


@lru_cache(maxsize=4)
def _lines_with_offsets(text: str) -> tuple[tuple[int, str], ...]:
    result: list[tuple[int, str]] = []
    offset = 0
    for line in text.splitlines(keepends=True):
        result.append((offset, line.rstrip("\r\n")))
        offset += len(line)
    return tuple(result)


def blocks(body: str, masked: str) -> list[Block]:
    """Headings, tables, list items and paragraphs of ``body`` (code is its own block)."""
    found: list[Block] = []
    current: tuple[int, int, BlockKind] | None = None

    def close() -> None:
        nonlocal current
        if current is not None:
            found.append(Block(*current))
            current = None

    for offset, line in lines_with_offsets(masked):
        end = offset + len(line)
        original = body[offset:end]
        if not line.strip():
            if original.strip():  # masked: a code line
                if current is None or current[2] != "code":
                    close()
                    current = (offset, end, "code")
                else:
                    current = (current[0], end, "code")
                continue
            close()
            continue
        if HEADING.match(line):
            close()
            found.append(Block(offset, end, "heading"))
        elif TABLE_ROW.match(line):
            if current is not None and current[2] == "table":
                current = (current[0], end, "table")
            else:
                close()
                current = (offset, end, "table")
        elif LIST_ITEM.match(line) and not THEMATIC_BREAK.match(line):
            close()
            current = (offset, end, "list_item")
        elif current is not None and current[2] in ("paragraph", "list_item"):
            current = (current[0], end, current[2])
        else:
            close()
            current = (offset, end, "paragraph")
    close()
    return found


_ABBREVIATIONS = frozenset(
    """
    e.g i.e etc vs inc co corp ltd plc mr ms mrs dr st no approx est fig al jr sr
    jan feb mar apr jun jul aug sep sept oct nov dec u.s u.k
    """.split()  # noqa: SIM905 - a word list reads better as text
)
# Only at the start of a run of end marks (the lookbehind), and possessive: a wall of "."
# is scanned once, not once from each of its characters.
_BOUNDARY = re.compile(r"(?<![.!?…])[.!?…]++[\"')\]*_]*+(?=\s)")
_WORD_BEFORE = re.compile(r"([\w.]+)[.!?…]*$")
# Abbreviations are short: the word before a "." is looked for this far back at most.
_WORD_REACH = 32


def sentences(body: str, block: Block) -> list[tuple[int, int]]:
    """Sentence spans of a paragraph or list item; a heading or table is one unit.

    A sentence ends at ``.``/``!``/``?`` followed by white space (not after a known
    abbreviation such as "e.g." or "Inc."). A single line break inside a block is a
    space (the author wrapped the line); a blank line, a list item, a heading or a table
    row ends the block, and so the sentence.
    """
    if block.kind in ("heading", "table", "code"):
        return [_trim(body, block.start, block.end)]
    text = body[block.start : block.end]
    cuts: set[int] = set()
    for match in _BOUNDARY.finditer(text):
        reach = max(0, match.start() + 1 - _WORD_REACH)
        word = _WORD_BEFORE.search(text, reach, match.start() + 1)
        if word is not None and word.start() == reach > 0:
            word = None  # longer than the reach: no abbreviation is that long
        if (
            word
            and match.group(0)[0] == "."
            and word.group(1).rstrip(".").lower() in _ABBREVIATIONS
        ):
            continue
        cuts.add(match.end())
    spans: list[tuple[int, int]] = []
    previous = 0
    for cut in [*sorted(cuts), len(text)]:
        if text[previous:cut].strip():
            spans.append(_trim(body, block.start + previous, block.start + cut))
        previous = cut
    return spans


def _trim(body: str, start: int, end: int) -> tuple[int, int]:
    while start < end and body[start].isspace():
        start += 1
    while end > start and body[end - 1].isspace():
        end -= 1
    return start, end
