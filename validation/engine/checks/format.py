"""Coherent format (docs/validation-phase-spec.md §4.4): is the report well-formed, readable
Markdown?

Findings (check ``coherent_format``), each with the span it is about:

=====================  ========  ====================================================
kind                   severity  when
=====================  ========  ====================================================
``empty``              critical  the body is blank
``truncated``          major     the body stops mid-sentence: it ends on a comma, a
                                 dash, an open bracket, a connective ("and", "of",
                                 "the"…), a prose line without terminal punctuation
                                 (one that ends on a figure, "= $5,818", is a
                                 complete answer), or with a bracket still open in
                                 the last paragraph
``unclosed_code_fence`` major    a ````` / ``~~~`` fence that is never closed
``unbalanced_emphasis`` minor    an odd ``**`` / ``__`` / ``*`` / ``_`` in a paragraph
                                 (intra-word ``_`` as in ``intrinsic_value``, list
                                 bullets, ``2 * 3`` and escaped markers do not count)
``table``              minor     a table without a separator row, or a separator / row
                                 whose cell count differs from the header's
``heading``            minor     ``##Title`` (no space) or an empty heading
``raw_url``            minor     a URL that is not a markdown link (``[text](url)``,
                                 ``<url>`` and ``[ref]: url`` are links)
``wall_of_text``       minor     more than 1,500 characters with no heading, list or
                                 table and fewer than three paragraphs
=====================  ========  ====================================================

Fixes: a raw URL becomes ``[host/path](url)`` (confidence 0.97) and ``##Title`` becomes
``## Title`` (confidence 0.95); their FIND is widened until it is unique in the body
(no fix when that needs more than 300 characters of context either side; at most 50
fixes per attempt).
Code blocks and inline code are never judged.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from validation.engine.checks._markdown import (
    MAX_FIXES,
    THEMATIC_BREAK,
    Block,
    UrlMention,
    closes_fence,
    in_span_order,
    lines_with_offsets,
    link_label,
    raw_urls,
    unique_find,
)
from validation.engine.checks.reading import ReportReading
from validation.engine.types import Finding, FixProposal, Severity

CHECK = "coherent_format"
RAW_URL_VERIFIED_WITH = "format: raw URL wrapped as a markdown link"
RAW_URL_CONFIDENCE = 0.97
HEADING_CONFIDENCE = 0.95
WALL_OF_TEXT_CHARS = 1500
# A report with 50,000 broken headings gets the first few hundred listed and one finding
# that counts the rest: the cost of a check, and of storing and showing its findings, stays
# bounded by this, not by how often one mistake repeats.
MAX_FINDINGS_PER_KIND = 200

_FENCE_LINE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_NO_SPACE_HEADING = re.compile(r"^( {0,3})(#{2,6})([^\s#].*)$")
_EMPTY_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t#]*+$")  # possessive: one pass over a line
_SEPARATOR_CELL = re.compile(r"^\s*:?-{1,}:?\s*$")
_CONNECTIVES = frozenset(
    """
    a an the of to and or but with for in on by at from as is are was were that
    which than into its their our your this these those be been being has have had
    will would can could should may might per via versus vs
    """.split()  # noqa: SIM905 - a word list reads better as text
)
_TERMINAL = tuple(".!?…:;\"')]}*_`>|")


def check_format(
    body: str, *, reading: ReportReading | None = None
) -> tuple[list[Finding], list[FixProposal]]:
    """Findings about the report's Markdown, and the fixes that can be proven.
    ``reading`` is the report as ``validate()`` read it (made from ``body`` without it)."""
    findings: list[Finding] = []
    fixes: list[FixProposal] = []
    if not body.strip():
        findings.append(_finding("empty", "critical", "the report is empty", 0, len(body), body))
        return findings, fixes

    reading = reading or ReportReading(body)
    masked = reading.masked
    found_blocks = list(reading.blocks)
    findings.extend(_fences(body, reading.lines))
    findings.extend(_emphasis(body, reading, found_blocks))
    findings.extend(_tables(body, masked, found_blocks))
    _headings(body, reading.masked_lines, findings, fixes)
    _raw_urls(body, reading.urls, findings, fixes)
    findings.extend(_truncation(body, masked, found_blocks))
    findings.extend(_structure(body, found_blocks))
    return in_span_order(findings, fixes)


def _finding(
    kind: str, severity: Severity, message: str, start: int, end: int, body: str
) -> Finding:
    return Finding(
        check=CHECK,
        kind=kind,
        severity=severity,
        message=message,
        start=start,
        end=end,
        text=body[start:end][:2000],
    )


# ---------------------------------------------------------------- fences


def _fences(body: str, lines: Sequence[tuple[int, str]]) -> list[Finding]:
    fence: tuple[str, int, int] | None = None  # marker, start, end of the opening line
    for offset, line in lines:
        match = _FENCE_LINE.match(line)
        if not match:
            continue
        marker = match.group(1)
        if fence is None:
            if not (marker[0] == "`" and "`" in match.group(2)):
                fence = (marker, offset, offset + len(line))
        elif closes_fence(match, fence[0]):
            fence = None
    if fence is None:
        return []
    line_number = body.count("\n", 0, fence[1]) + 1
    return [
        _finding(
            "unclosed_code_fence",
            "major",
            f"the code fence opened on line {line_number} is never closed",
            fence[1],
            fence[2],
            body,
        )
    ]


# ---------------------------------------------------------------- emphasis

_MARKER_RUN = re.compile(r"(?<!\\)(\*+|_+)")


def _emphasis(body: str, reading: ReportReading, found_blocks: list[Block]) -> list[Finding]:
    # Link destinations and URLs may hold "_" or "*": they are not emphasis.
    masked = reading.masked
    chars = list(masked)
    for link in reading.links:
        url_at = masked.find(link.url, link.start, link.end)
        for i in range(url_at, url_at + len(link.url)):
            chars[i] = " "
    for url in raw_urls(masked, []):
        for i in range(url.start, url.end):
            chars[i] = " "
    text = "".join(chars)

    findings: list[Finding] = []
    for block in found_blocks:
        if block.kind == "code":
            continue
        if block.kind == "table":  # emphasis never spans table cells, let alone rows
            units = [
                (block.start + offset, block.start + offset + len(line))
                for offset, line in lines_with_offsets(text[block.start : block.end])
            ]
        else:
            units = [(block.start, block.end)]
        for unit_start, unit_end in units:
            unclosed = _unclosed_marker(text, unit_start, unit_end)
            if unclosed is None:
                continue
            start, marker = unclosed
            line_end = body.find("\n", start, unit_end)
            end = unit_end if line_end == -1 else line_end
            findings.append(
                _finding(
                    "unbalanced_emphasis",
                    "minor",
                    f'"{marker}" emphasis is opened but never closed',
                    start,
                    end,
                    body,
                )
            )
    return findings


def _unclosed_marker(text: str, start: int, end: int) -> tuple[int, str] | None:
    """The first emphasis marker of ``text[start:end]`` left open, if any."""
    open_at: dict[str, int] = {}
    for match in _MARKER_RUN.finditer(text, start, end):
        run = match.group(0)
        before = text[match.start() - 1] if match.start() > start else " "
        after = text[match.end()] if match.end() < end else " "
        if before.isspace() and after.isspace():
            continue  # a bullet, a thematic break, "2 * 3": not emphasis
        if run[0] == "_" and before.isalnum() and after.isalnum():
            continue  # intra-word, as in intrinsic_value
        # A run of n markers is n // 2 strong markers and n % 2 single ones.
        pieces = ["**" if run[0] == "*" else "__"] * (len(run) // 2)
        if len(run) % 2:
            pieces.append(run[0])
        for piece in pieces:
            if piece in open_at:
                del open_at[piece]
            else:
                open_at[piece] = match.start()
    if not open_at:
        return None
    marker, position = min(open_at.items(), key=lambda item: item[1])
    return position, marker


# ---------------------------------------------------------------- tables


def _cells(row: str) -> list[str]:
    row = row.strip()
    row = row.removeprefix("|")
    if row.endswith("|") and not row.endswith("\\|"):
        row = row[:-1]
    return re.split(r"(?<!\\)\|", row)


def _tables(body: str, masked: str, found_blocks: list[Block]) -> list[Finding]:
    findings: list[Finding] = []
    for block in found_blocks:
        if block.kind != "table":
            continue
        rows = lines_with_offsets(masked[block.start : block.end])
        if len(rows) < 2:
            continue  # a lone "| ..." line is not a table
        header = _cells(rows[0][1])
        separator = _cells(rows[1][1])
        if not all(_SEPARATOR_CELL.match(cell) for cell in separator):
            findings.append(
                _finding(
                    "table",
                    "minor",
                    "the table has no separator row (|---|---|) under its header",
                    block.start,
                    block.end,
                    body,
                )
            )
            continue
        for index, (offset, row) in enumerate(rows[1:], start=2):
            count = len(_cells(row))
            if count != len(header):
                what = "separator row" if index == 2 else f"row {index}"
                start = block.start + offset
                findings.append(
                    _finding(
                        "table",
                        "minor",
                        f"table {what} has {count} cells, the header has {len(header)}",
                        start,
                        start + len(row),
                        body,
                    )
                )
    return findings


# ---------------------------------------------------------------- headings


def _headings(
    body: str,
    masked_lines: Sequence[tuple[int, str]],
    findings: list[Finding],
    fixes: list[FixProposal],
) -> None:
    cap = _Cap("heading", "headings")
    for offset, line in masked_lines:
        if _EMPTY_HEADING.match(line) and line.strip().startswith("#"):
            if cap.take(offset, offset + len(line)):
                findings.append(
                    _finding("heading", "minor", "empty heading", offset, offset + len(line), body)
                )
            continue
        match = _NO_SPACE_HEADING.match(line)
        if not match:
            continue
        start, end = offset, offset + len(line)
        if not cap.take(start, end):
            continue
        findings.append(
            _finding(
                "heading",
                "minor",
                f'heading "{line.strip()}" needs a space after "{match.group(2)}"',
                start,
                end,
                body,
            )
        )
        anchor = unique_find(body, start, end) if len(fixes) < MAX_FIXES else None
        if anchor is None:
            continue
        find, at = anchor
        fixed_line = f"{match.group(1)}{match.group(2)} {match.group(3)}"
        replace = find[: start - at] + fixed_line + find[end - at :]
        fixes.append(
            FixProposal(
                find=find,
                replace=replace,
                verified_with="format: a space after the heading marker makes it a heading",
                confidence=HEADING_CONFIDENCE,
                kind="heading",
                offset=at,
                finding_index=len(findings) - 1,
            )
        )

    findings.extend(cap.summary(body))


class _Cap:
    """Counts the findings of one kind; past MAX_FINDINGS_PER_KIND only counts them."""

    def __init__(self, kind: str, plural: str) -> None:
        self.kind = kind
        self.plural = plural
        self.count = 0
        self.first_skipped: tuple[int, int] | None = None

    def take(self, start: int, end: int) -> bool:
        self.count += 1
        if self.count <= MAX_FINDINGS_PER_KIND:
            return True
        if self.first_skipped is None:
            self.first_skipped = (start, end)
        return False

    def summary(self, body: str) -> list[Finding]:
        if self.first_skipped is None:
            return []
        more = self.count - MAX_FINDINGS_PER_KIND
        message = (
            f"{more:,} more {self.plural} like the ones above from here on (only the first "
            f"{MAX_FINDINGS_PER_KIND} are listed)"
        )
        return [_finding(self.kind, "minor", message, *self.first_skipped, body)]


# ---------------------------------------------------------------- raw URLs


def _raw_urls(
    body: str, urls: Sequence[UrlMention], findings: list[Finding], fixes: list[FixProposal]
) -> None:
    cap = _Cap("raw_url", "raw URLs")
    for url in urls:
        if not cap.take(url.start, url.end):
            continue
        findings.append(
            _finding(
                "raw_url",
                "minor",
                f"raw URL {url.url} should be a markdown link ([text](url))",
                url.start,
                url.end,
                body,
            )
        )
        anchor = unique_find(body, url.start, url.end) if len(fixes) < MAX_FIXES else None
        if anchor is None:
            continue
        find, at = anchor
        link = f"[{link_label(url.url)}]({url.url})"
        fixes.append(
            FixProposal(
                find=find,
                replace=find[: url.start - at] + link + find[url.end - at :],
                verified_with=RAW_URL_VERIFIED_WITH,
                confidence=RAW_URL_CONFIDENCE,
                kind="raw_url",
                offset=at,
                finding_index=len(findings) - 1,
            )
        )
    findings.extend(cap.summary(body))


# ---------------------------------------------------------------- truncation


def _truncation(body: str, masked: str, found_blocks: list[Block]) -> list[Finding]:
    last = next((block for block in reversed(found_blocks) if block.kind != "code"), None)
    if last is None or found_blocks[-1].kind == "code":
        return []  # ends in code: an unclosed fence is reported on its own
    text = masked[last.start : last.end].rstrip()
    line_start = text.rfind("\n") + 1
    last_line = text[line_start:].strip()
    start = last.start + line_start + (len(text[line_start:]) - len(text[line_start:].lstrip()))
    end = last.start + len(text)
    reason = _truncation_reason(text, last_line, last.kind)
    if reason is None:
        return []
    tail = body[max(start, end - 40) : end]
    return [
        _finding(
            "truncated",
            "major",
            f'the report ends mid-sentence ({reason}): "…{tail}"',
            start,
            end,
            body,
        )
    ]


def _truncation_reason(text: str, last_line: str, kind: str) -> str | None:
    if kind in ("heading", "table") or THEMATIC_BREAK.match(last_line):
        return None
    for opener, closer in (("(", ")"), ("[", "]")):
        if text.count(opener) > text.count(closer):
            return f'an unclosed "{opener}"'
    stripped = last_line.rstrip("*_`")
    if not stripped:
        return None
    if stripped[-1] in ",-–—(/[&+=":  # noqa: RUF001
        return f'it ends with "{stripped[-1]}"'
    last_word = stripped.rsplit(None, 1)[-1].strip("\"'")
    if last_word.lower() in _CONNECTIVES and not stripped.endswith(_TERMINAL):
        return f'it ends with "{last_word}"'
    if kind == "list_item" or last_line.endswith(_TERMINAL):
        return None
    if re.match(r"^[\W_]*[\w /()&.-]{1,40}:", last_line) or re.match(r"^\[[^\]]+\]:", last_line):
        return None  # "Decision: BUY", "[1]: https://…": complete without a full stop
    if re.search(r"\d[%)]?$", stripped):
        return None  # "… = $5,818", "… is 10.3%": an answer that ends on its figure
    if stripped[-1].isalnum() or stripped[-1] in "%$":
        return "no closing punctuation"
    return None


# ---------------------------------------------------------------- structure


def _structure(body: str, found_blocks: list[Block]) -> list[Finding]:
    if len(body.strip()) <= WALL_OF_TEXT_CHARS:
        return []
    if any(block.kind in ("heading", "table", "list_item") for block in found_blocks):
        return []
    if sum(block.kind == "paragraph" for block in found_blocks) >= 3:
        return []
    return [
        _finding(
            "wall_of_text",
            "minor",
            f"{len(body.strip()):,} characters with no headings, lists or tables",
            0,
            min(len(body), 200),
            body,
        )
    ]


__all__ = ["CHECK", "RAW_URL_VERIFIED_WITH", "check_format"]
