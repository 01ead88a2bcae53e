"""What a reader of a report sees: the one rule for text a Markdown renderer would hide.

Redline's rule: nothing in a report is hidden from the reviewer. Raw HTML is never
rendered; it is shown as the literal text it is. Some constructs would render as nothing in
an ordinary Markdown reader, so they are also kept out of what Redline *reads* from a
report and escaped in what it *exports*:

* HTML comments, CDATA sections, processing instructions and declarations;
* ``<script>``, ``style`` elements, ``<template>``, ``<textarea>``, ``<title>``, ``<noscript>``,
  ``<iframe>``, ``<object>``, ``<svg>`` elements, content included;
* a self-closed unknown tag (``<circle/>``): an HTML parser leaves it open, and the rest
  of its paragraph vanishes with it;
* link reference definitions (``[x]: https://… "title"``): a renderer keeps them as link
  targets and shows nothing.

Those spans are :func:`hidden_spans`; :func:`mask_hidden` blanks them (offsets kept) for
the field reader, so ``<!-- FINAL DECISION: STRONG BUY -->`` decides nothing.

Bidi controls (U+202A-U+202E, U+2066-U+2069) and zero-width characters (U+200B-U+200D,
U+2060, U+FEFF) change what text appears to say without being seen: :func:`invisible_marks`
finds them; the review page and the Markdown export show each as a visible mark
(:func:`mark_text`), and the format check counts them as a finding.

:func:`markdown_for_readers` is the body as the Markdown export writes it: every raw HTML
``<`` outside code escaped as ``&lt;``, reference definitions escaped, invisible
characters marked, so any Markdown reader shows what the review page showed.

Every pattern here is linear: an unclosed construct runs to the end of the text in one
match, so a wall of ``<!--`` is one span, not a rescan per opener.
"""

from __future__ import annotations

import re
import unicodedata

from validation.engine.types import Finding

_FENCE_LINE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_INLINE_CODE = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.DOTALL)
_RAW_ELEMENTS = "script|style|template|textarea|title|noscript|iframe|object|svg|xmp"
_HIDDEN = re.compile(
    r"<!--(?:.*?-->|.*\Z)"
    r"|<!\[CDATA\[(?:.*?\]\]>|.*\Z)"
    r"|<\?(?:.*?\?>|.*\Z)"
    r"|<![A-Za-z](?:[^<>]*+>|[^<>]*+)"
    rf"|<({_RAW_ELEMENTS})\b[^<>]*+>(?:.*?</\1\s*>|.*\Z)"
    # A void element ("<br/>") closes itself in every parser and hides nothing.
    r"|<(?!(?:area|base|br|col|embed|hr|img|input|link|meta|param|source|track|wbr)\b)"
    r"[A-Za-z][A-Za-z0-9:-]*+(?:\s[^<>]*+)?/>(?:.*?(?=\n[ \t]*\n)|.*\Z)"
    r"|^ {0,3}\[(?!\^)[^\]\n]++\]:[ \t]*+\S[^\n]*+(?:\n[ \t]*+[\"'(][^\n]*+)?",
    re.DOTALL | re.MULTILINE | re.IGNORECASE,
)
INVISIBLE = re.compile("[\u202a-\u202e\u2066-\u2069\u200b-\u200d\u2060\ufeff]")
# A raw HTML "<" a Markdown reader would take as markup: a tag, a closing tag, a comment,
# a declaration or an instruction. Autolinks (<https://…>, <a@b.c>) stay links.
_TAG_OPEN = re.compile(
    r"<(?=[A-Za-z/!?])(?![A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*>)(?![^\s<>@]+@[^\s<>@]+>)"
)
_BARE_REFERENCE = re.compile(r" {0,3}\[[^\]\n]++\]:[ \t]*+<?[^\s>]++>?[ \t]*+\Z")
_REFERENCE_START = re.compile(r"^( {0,3})(\[)(?!\^)(?=[^\]\n]++\]:)", re.MULTILINE)


def hidden_spans(text: str) -> list[tuple[int, int]]:
    """``[start, end)`` of every construct a Markdown renderer would show as nothing."""
    return [(match.start(), match.end()) for match in _HIDDEN.finditer(text)]


def mask_hidden(text: str) -> str:
    """``text`` with its hidden constructs blanked (newlines kept, so offsets hold)."""
    spans = hidden_spans(text)
    if not spans:
        return text
    pieces: list[str] = []
    cursor = 0
    for start, end in spans:
        pieces.append(text[cursor:start])
        pieces.append(re.sub(r"[^\n]", " ", text[start:end]))
        cursor = end
    pieces.append(text[cursor:])
    return "".join(pieces)


def invisible_marks(text: str) -> list[tuple[int, str]]:
    """(offset, character) of every bidi control and zero-width character in ``text``."""
    return [(match.start(), match.group()) for match in INVISIBLE.finditer(text)]


def mark_name(char: str) -> str:
    """``U+202E RIGHT-TO-LEFT OVERRIDE``: how a mark names its character."""
    return f"U+{ord(char):04X} {unicodedata.name(char, 'FORMAT CHARACTER')}"


def mark_text(char: str) -> str:
    """The visible stand-in for an invisible character: ``[U+202E]``."""
    return f"[U+{ord(char):04X}]"


def markdown_for_readers(body: str) -> str:
    """``body`` as the Markdown export writes it: what the review page shows, for any
    Markdown reader (raw HTML shown as text, reference definitions shown, marks visible)."""
    code = mask_code(body)
    edits: list[tuple[int, int, str]] = [
        (match.start(), match.start() + 1, "&lt;") for match in _TAG_OPEN.finditer(body)
    ]
    edits += [(m.start(2), m.end(2), "\\[") for m in _REFERENCE_START.finditer(body)]
    edits += [(m.start(), m.end(), mark_text(m.group())) for m in INVISIBLE.finditer(body)]
    edits.sort()
    out: list[str] = []
    cursor = 0
    for start, end, replacement in edits:
        if start < cursor:
            continue
        if replacement != mark_text(body[start]) and code[start] != body[start]:
            continue  # inside code a reader shows the text as it is
        out.append(body[cursor:start])
        out.append(replacement)
        cursor = end
    out.append(body[cursor:])
    return "".join(out)


def visibility_findings(body: str, check: str, cap: int) -> list[Finding]:
    """The format check's findings about hidden text: each invisible character (major:
    it can make a sentence say something else than it shows) and each construct a reader
    would hide (minor: the review page shows it as text). At most ``cap`` of each kind."""
    findings: list[Finding] = []
    marks = invisible_marks(body)
    for offset, char in marks[:cap]:
        findings.append(
            Finding(
                check=check,
                kind="invisible_character",
                severity="major",
                message=f"an invisible character ({mark_name(char)}) changes how the text "
                "reads without being seen; the review page shows it as a mark",
                start=offset,
                end=offset + 1,
                text=body[max(0, offset - 30) : offset + 30],
            )
        )
    # A reference definition without a title hides only the URL its links use: not a finding.
    spans = [(a, b) for a, b in hidden_spans(body) if not _BARE_REFERENCE.match(body, a, b)]
    for start, end in spans[:cap]:
        findings.append(
            Finding(
                check=check,
                kind="hidden_markup",
                severity="minor",
                message="markup a Markdown reader shows as nothing (a comment, a raw element, "
                "a reference definition): shown here as text, never read as a field",
                start=start,
                end=end,
                text=body[start:end][:2000],
            )
        )
    return findings


# ---------------------------------------------------------------- code


def mask_code(body: str) -> str:
    """``body`` with fenced code blocks (fence lines included) and inline code spans
    replaced by spaces. An unclosed fence masks to the end, as Markdown renders it."""
    out = list(body)
    offset = 0
    fence: str | None = None
    for line in body.splitlines(keepends=True):
        match = _FENCE_LINE.match(line.rstrip("\r\n"))
        if fence is None and match and not (match.group(1)[0] == "`" and "`" in match.group(2)):
            fence = match.group(1)
            _blank(out, offset, offset + len(line))
        elif fence is not None:
            _blank(out, offset, offset + len(line))
            if closes_fence(match, fence):
                fence = None
        offset += len(line)
    masked = "".join(out)
    for span in _INLINE_CODE.finditer(masked):
        if "\n\n" not in span.group(0):  # a code span never crosses a paragraph
            _blank(out, span.start(), span.end())
    return "".join(out)


def closes_fence(match: re.Match[str] | None, fence: str) -> bool:
    """A closing fence: same character, at least as long, nothing after it."""
    return (
        match is not None
        and match.group(1)[0] == fence[0]
        and len(match.group(1)) >= len(fence)
        and not match.group(2).strip()
    )


def _blank(chars: list[str], start: int, end: int) -> None:
    for i in range(start, end):
        if chars[i] not in "\r\n":
            chars[i] = " "


# ---------------------------------------------------------------- values in Markdown

# The characters that can open a construct in the middle of a line (emphasis, code, links,
# images, autolinks and HTML, entities, table cells, headings). Others (".", ",", ":", "=")
# stay bare, so numbers read as numbers in the raw Markdown too.
_PUNCTUATION = re.compile(r"([\\`*_~\[\]<>!&|#])")
_LINE_BREAKS = re.compile(r"\r\n|[\n\r\u2028\u2029\u0085\x0b\x0c]")
_BACKTICKS = re.compile(r"`+")


def markdown_text(value: object) -> str:
    """``value`` as inert Markdown inline text: one line (breaks become spaces), every
    character that could open a construct mid-line backslash-escaped (CommonMark shows it as
    itself, so no emphasis, code span, link, HTML or entity can start), invisible characters
    marked. Callers place the value after a prefix, never at the start of a line."""
    text = _LINE_BREAKS.sub(" ", str(value))
    return INVISIBLE.sub(lambda m: mark_text(m.group()), _PUNCTUATION.sub(r"\\\1", text))


def markdown_code(value: object) -> str:
    """``value`` as one code span that no backtick inside it can close: the fence is one
    backtick longer than its longest run; line breaks show as ``↵``, nothing as
    "(nothing)"."""
    text = _LINE_BREAKS.sub("↵", str(value))
    text = INVISIBLE.sub(lambda m: mark_text(m.group()), text)
    if not text:
        return "(nothing)"
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * (longest + 1)
    # A space either side when a backtick or a space ends the text: CommonMark drops one.
    pad = " " if longest or (text[0] == " " and text[-1] == " ") else ""
    return f"{fence}{pad}{text}{pad}{fence}"
