"""The citations of a report: footnote references and definitions, bracketed and
labelled source references, URLs, resolved to the evidence they name.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, replace

from validation.engine.checks._markdown import (
    URL,
    Link,
    Mask,
    UrlMention,
    lines_with_offsets,
    normalize_url,
    trim_url,
)
from validation.engine.types import (
    CheckName,
    EvidenceExcerpt,
    EvidenceItem,
    Finding,
    Severity,
)

_FOOTNOTE_REF = re.compile(r"\[\^([^\]\s]+)\](?!:)")
_FOOTNOTE_DEF = re.compile(r"^ {0,3}\[\^([^\]\s]+)\]:", re.M)
_BRACKET = re.compile(r"(?<![!\]\\])\[([^\[\]\n]{1,200})\](?![(\[:])")
_LABEL_PREFIX = re.compile(r"^\s*(?:sources?|refs?|see)\s*:\s*", re.IGNORECASE)
_LABEL_LINE = re.compile(r"(?<![\w])(Sources?|SOURCES?)\s*(?:[*_]+\s*)?:[*_]*[ \t]*([^\n]*)")
_LABEL_PAREN = re.compile(r"\((?:sources?|refs?)\s*:\s*([^()\n]+)\)", re.IGNORECASE)
_LINE_LABEL = re.compile(r"^[\W_]*(?:sources?|data|refs?)\s*(?:[*_]+\s*)?:", re.IGNORECASE)
_SECTION_MARK = re.compile(r"§\s*\d+(?:\.\d+)*")
_IDENTIFIER = re.compile(r"^(?:§\s*\d+(?:\.\d+)*|\d{1,3}|[A-Za-z][\w.]*(?:[-_:#/][\w.]+)+)$")
_REFERENCE_LIST = re.compile(r"^ {0,3}\[(\d{1,3})\]", re.M)
_CLOSERS = ".!?…:;\"')]*_ "


@dataclass(frozen=True)
class Citation:
    start: int
    end: int
    text: str
    resolved: bool
    paragraph_wide: bool = False  # a "Source:" line citing its whole paragraph
    label: bool = False  # "Source: X" also cites the sentence right before it
    # The part that only names a source -- a ref, a URL -- and holds no claim (a link's
    # text and a "Source:" label's prose may hold claims, so they have none).
    reference: tuple[int, int] | None = None


class Resolver:
    """Decides which evidence item, if any, a cited name or URL refers to."""

    def __init__(self, evidence: Sequence[EvidenceItem]) -> None:
        self.evidence = list(evidence)
        self.refs = {_norm(item.source_ref): item for item in evidence}
        self.urls: dict[str, EvidenceItem] = {}
        self.haystacks: list[tuple[str, EvidenceItem]] = []
        for item in evidence:
            if item.url:
                self.urls.setdefault(normalize_url(item.url), item)
            text = (
                item.content
                if isinstance(item.content, str)
                else json.dumps(item.content, ensure_ascii=False)
            )
            for match in URL.finditer(text):
                self.urls.setdefault(normalize_url(match.group(0)), item)
            self.haystacks.append((text.lower(), item))
        self.has_section_refs = any(item.source_ref.startswith("§") for item in evidence)

    def url(self, url: str) -> EvidenceItem | None:
        found = self.urls.get(normalize_url(url))
        if found is not None:
            return found
        raw = trim_url(url).lower()
        return next((item for text, item in self.haystacks if raw in text), None)

    def name(self, cited: str) -> EvidenceItem | None:
        token = _norm(cited)
        if not token:
            return None
        if token in self.refs:
            return self.refs[token]
        for ref, item in self.refs.items():
            if ref.startswith(token) and ref[len(token)] in " :(":
                return item
        for ref, item in self.refs.items():
            if len(ref) >= 3 and _contains_word(token, ref):
                return item
        if len(token) >= 3:
            for ref, item in self.refs.items():
                if _contains_word(ref, token):
                    return item
        for match in URL.finditer(cited):
            found = self.url(match.group(0))
            if found is not None:
                return found
        if re.fullmatch(r"§\s*\d+(?:\.\d+)*", token):
            section = token.replace(" ", "")
            for ref, item in self.refs.items():
                if ref.replace(" ", "").startswith(section + "."):
                    return item
        return None


def _contains_word(text: str, word: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text) is not None


def _norm(text: str) -> str:
    text = re.sub(r"[*_`\"'\[\]]", "", text).strip().strip(".,;").strip()
    return re.sub(r"\s+", " ", text).lower()


def _finding(
    check: CheckName,
    kind: str,
    severity: Severity,
    message: str,
    start: int,
    end: int,
    body: str,
    evidence: list[EvidenceExcerpt] | None = None,
) -> Finding:
    return Finding(
        check=check,
        kind=kind,
        severity=severity,
        message=message,
        start=start,
        end=end,
        text=body[start:end][:2000],
        evidence=evidence or [],
    )


# ---------------------------------------------------------------- citations


def read_citations(
    body: str,
    masked: str,
    resolver: Resolver,
    findings: list[Finding],
    *,
    links: Sequence[Link],
    urls: Sequence[UrlMention],
) -> list[Citation]:
    """Every citation of ``body`` (``masked`` is its code-blanked text, ``links`` and
    ``urls`` the links and bare URLs read from it); a finding for each one that
    resolves to nothing is added to ``findings``."""
    citations: list[Citation] = []
    taken = Mask(len(body))  # what is read already, so nothing is read twice

    def unknown_ref(start: int, end: int, what: str) -> None:
        refs = [item.source_ref for item in resolver.evidence]
        known = ", ".join(refs[:5]) + (f" … {len(refs)} in all" if len(refs) > 5 else "")
        findings.append(
            _finding(
                "source_metadata_present",
                "unknown_ref",
                "major",
                f"{what} is not a source_ref of any evidence (known refs: {known or 'none'})",
                start,
                end,
                body,
            )
        )

    # 1. links and URLs
    for link in links:
        taken.mark(link.start, link.end)
        at = masked.find(link.url, link.start, link.end)
        citation = _url_citation(body, link.start, link.end, link.url, resolver, findings)
        citations.append(replace(citation, reference=(at, at + len(link.url))))
    for url in urls:
        taken.mark(url.start, url.end)
        citation = _url_citation(body, url.start, url.end, url.url, resolver, findings)
        citations.append(replace(citation, reference=(url.start, url.end)))

    # 2. footnotes
    defined = set(_FOOTNOTE_DEF.findall(masked))
    for match in _FOOTNOTE_REF.finditer(masked):
        taken.mark(match.start(), match.end())
        resolved = match.group(1) in defined
        citations.append(
            Citation(match.start(), match.end(), match.group(0), resolved, reference=match.span())
        )
        if not resolved:
            findings.append(
                _finding(
                    "source_metadata_present",
                    "unknown_ref",
                    "major",
                    f"footnote {match.group(0)} has no definition",
                    match.start(),
                    match.end(),
                    body,
                )
            )

    # 3. labels: "(source: X)", then "Source: X" to the end of the line
    paragraph_label_lines = {
        offset for offset, line in lines_with_offsets(masked) if _LINE_LABEL.match(line)
    }
    labels = Mask(len(body))
    citations.sort(key=lambda citation: citation.start)
    read_starts = [citation.start for citation in citations]
    read_before_labels = list(citations)
    for pattern in (_LABEL_PAREN, _LABEL_LINE):
        for match in pattern.finditer(masked):
            start, end = match.span()
            value = match.group(match.lastindex or 1).strip()
            if not value or not labels.free(start, start + 1):
                continue  # a bare "Sources:" heading, or "(Source: X)" read already
            labels.mark(start, end)
            wide = masked.rfind("\n", 0, start) + 1 in paragraph_label_lines
            inner = [
                c
                for c in read_before_labels[
                    bisect_left(read_starts, start) : bisect_left(read_starts, end)
                ]
                if c.end <= end
            ]
            if inner and not _has_unread_text(value):  # "Source: [quote](url)"
                resolved = all(c.resolved for c in inner)  # a bad URL is reported already
                citations.append(Citation(start, end, body[start:end], resolved, wide, True))
                continue
            taken.mark(start, end)
            resolved = any(resolver.name(part) is not None for part in [value, *_parts(value)])
            citations.append(Citation(start, end, body[start:end], resolved, wide, True))
            if not resolved:
                unknown_ref(start, end, f'cited source "{value}"')

    # 4. bracketed refs
    numbered_refs = set(_REFERENCE_LIST.findall(masked))
    for match in _BRACKET.finditer(masked):
        start, end = match.span()
        content = match.group(1).strip()
        if not taken.free(start, end) or content.startswith("^"):
            continue
        labelled = bool(_LABEL_PREFIX.match(content))
        parts = _parts(_LABEL_PREFIX.sub("", content))
        if not parts:
            continue  # "[ ]" of a task list
        whole = resolver.name(content) if len(parts) == 1 else None
        if (
            not labelled
            and whole is None
            and not all(
                _IDENTIFIER.match(part) or resolver.name(part) is not None for part in parts
            )
        ):
            continue  # prose in brackets, e.g. "[sic]" (but "[dcf_model; quote]" cites two)
        taken.mark(start, end)
        unresolved = [
            part
            for part in parts
            if resolver.name(part) is None and not (part.isdigit() and part in numbered_refs)
        ]
        resolved = whole is not None or not unresolved
        citations.append(Citation(start, end, body[start:end], resolved, reference=(start, end)))
        if not resolved:
            unknown_ref(start, end, ", ".join(f'"{part}"' for part in unresolved))

    # 5. bare section marks, when the evidence is organised in sections
    if resolver.has_section_refs:
        for match in _SECTION_MARK.finditer(masked):
            start, end = match.start(), match.end()
            if not taken.free(start, end):
                continue
            taken.mark(start, end)
            resolved = resolver.name(match.group(0)) is not None
            citations.append(Citation(start, end, match.group(0), resolved, reference=(start, end)))
            if not resolved:
                unknown_ref(start, end, f'"{match.group(0)}"')
    return citations


def _has_unread_text(value: str) -> bool:
    """True when a label's value holds more than the links already read inside it."""
    stripped = re.sub(r"!?\[[^\]]*\]\([^)]*\)|<https?://[^>]*>|https?://\S+", "", value)
    return bool(re.sub(r"[\W_]", "", stripped))


def _parts(value: str) -> list[str]:
    return [part.strip() for part in re.split(r"[;,]|\s+and\s+", value) if part.strip()]


def _url_citation(
    body: str, start: int, end: int, url: str, resolver: Resolver, findings: list[Finding]
) -> Citation:
    if resolver.url(url) is not None:
        return Citation(start, end, body[start:end], True)
    findings.append(
        _finding(
            "no_hallucinations",
            "unknown_url",
            "major",
            f"URL {url} does not appear in any evidence",
            start,
            end,
            body,
        )
    )
    return Citation(start, end, body[start:end], False)
