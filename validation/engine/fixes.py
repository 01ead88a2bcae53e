"""FIX blocks: parsing an LLM's ``<FIX>`` output, and applying fixes to a revision body.

Block format (docs/spec.md §11)::

    <FIX confidence="0.9">
    <FIND>exact text of the current revision</FIND>
    <REPLACE>corrected text</REPLACE>
    <VERIFIED_WITH>calculator: 15.5 - 0.7 = 14.8</VERIFIED_WITH>
    </FIX>

Parsing rules:

* ``<think>…</think>`` / ``<thinking>…</thinking>`` blocks are removed first, so a fix the
  model only *considered* is never applied. An unclosed ``<think>`` runs to the end of the
  text; a closing ``</think>`` with no opening tag (some models omit it) hides everything
  before it.
* Tag names are case-insensitive; the ``confidence`` attribute is optional and must be a
  number in [0, 1].
* ``FIND``, ``REPLACE`` and ``VERIFIED_WITH`` are all required (a fix carries its own
  proof); ``FIND`` must not be empty, ``REPLACE`` may be (a deletion).
* Exactly one newline directly after an opening tag and directly before a closing tag is
  layout, not content, and is dropped; every other character is kept verbatim, because
  ``FIND`` must match the report exactly.
* A malformed block becomes a :class:`FixBlockError` naming its 1-based block number and
  what is wrong; the well-formed blocks are still returned.

Applying (:func:`apply_fixes`) never chains ``str.replace``: every ``FIND`` is located in
the *same* body, must occur there exactly once, fixes whose spans overlap all conflict, and
the rest are spliced in one pass: the body is cut at the sorted, disjoint spans and joined
once -- the same result as splicing right to left by offset, without offset bookkeeping.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from validation.engine.errors import EngineError
from validation.engine.types import EngineSettings, EvidenceItem

# ---------------------------------------------------------------- parsing

_THINK_BLOCK = re.compile(r"<(think|thinking)\b[^>]*>.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
_THINK_OPEN = re.compile(r"<(?:think|thinking)\b[^>]*>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</(?:think|thinking)\s*>", re.IGNORECASE)
_FIX_OPEN = re.compile(r"<FIX\b([^>]*)>", re.IGNORECASE)
_FIX_CLOSE = re.compile(r"</FIX\s*>", re.IGNORECASE)
_ATTR = re.compile(r"""([A-Za-z_][\w-]*)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""")
_PARTS = ("FIND", "REPLACE", "VERIFIED_WITH")


@dataclass(frozen=True)
class ParsedFix:
    """One well-formed ``<FIX>`` block. ``number`` is its 1-based position in the text."""

    number: int
    find: str
    replace: str
    verified_with: str
    confidence: float | None = None


class FixBlockError(EngineError, ValueError):
    """A malformed ``<FIX>`` block: which one (1-based) and what is wrong with it."""

    def __init__(self, block: int, problem: str) -> None:
        self.block = block
        self.problem = problem
        super().__init__(f"FIX block {block}: {problem}")


class ParseResult(NamedTuple):
    fixes: list[ParsedFix]
    errors: list[FixBlockError]


def strip_thinking(text: str) -> str:
    """Remove reasoning blocks so that nothing inside them is mistaken for output."""
    text = _THINK_BLOCK.sub("", text)
    opening = _THINK_OPEN.search(text)
    if opening is not None:  # unclosed: the rest of the text is still thinking
        text = text[: opening.start()]
    closings = list(_THINK_CLOSE.finditer(text))
    if closings:  # orphan close tag: what precedes it was thinking
        text = text[closings[-1].end() :]
    return text


def parse_fix_blocks(text: str) -> ParseResult:
    """Parse every ``<FIX>`` block of ``text``; return ``(fixes, errors)`` in block order."""
    text = strip_thinking(text)
    fixes: list[ParsedFix] = []
    errors: list[FixBlockError] = []
    openings = list(_FIX_OPEN.finditer(text))
    for number, opening in enumerate(openings, start=1):
        limit = openings[number].start() if number < len(openings) else len(text)
        closing = _FIX_CLOSE.search(text, opening.end(), limit)
        if closing is None:
            errors.append(FixBlockError(number, "missing </FIX> closing tag"))
            continue
        try:
            inner = text[opening.end() : closing.start()]
            fixes.append(_parse_block(number, opening.group(1), inner))
        except FixBlockError as error:
            errors.append(error)
    return ParseResult(fixes, errors)


def _parse_block(number: int, attributes: str, inner: str) -> ParsedFix:
    parts: dict[str, str] = {}
    for tag in _PARTS:
        pattern = re.compile(rf"<{tag}\s*>(.*?)</{tag}\s*>", re.IGNORECASE | re.DOTALL)
        found = pattern.findall(inner)
        if not found:
            if re.search(rf"<{tag}\s*>", inner, re.IGNORECASE):
                raise FixBlockError(number, f"<{tag}> has no closing </{tag}>")
            raise FixBlockError(number, f"missing <{tag}>")
        if len(found) > 1:
            raise FixBlockError(number, f"more than one <{tag}>")
        parts[tag] = _trim_layout(found[0])
    if not parts["FIND"]:
        raise FixBlockError(number, "<FIND> is empty")
    verified_with = parts["VERIFIED_WITH"].strip()
    if not verified_with:
        raise FixBlockError(number, "<VERIFIED_WITH> is empty")
    return ParsedFix(
        number=number,
        find=parts["FIND"],
        replace=parts["REPLACE"],
        verified_with=verified_with,
        confidence=_confidence(number, attributes),
    )


def _trim_layout(content: str) -> str:
    if content.startswith("\r\n"):
        content = content[2:]
    elif content.startswith("\n"):
        content = content[1:]
    if content.endswith("\r\n"):
        content = content[:-2]
    elif content.endswith("\n"):
        content = content[:-1]
    return content


def _confidence(number: int, attributes: str) -> float | None:
    for name, double, single, bare in _ATTR.findall(attributes):
        if name.lower() != "confidence":
            continue
        raw = double or single or bare
        try:
            value = float(raw)
        except ValueError:
            value = math.nan
        if not 0.0 <= value <= 1.0:  # also rejects nan
            raise FixBlockError(number, f"confidence must be a number between 0 and 1, got {raw!r}")
        return value
    return None


# ---------------------------------------------------------------- applying

FixKey = int | str

NOT_FOUND = "FIND text not found in this revision"


@dataclass(frozen=True)
class FixToApply:
    key: FixKey
    find: str
    replace: str


@dataclass
class ApplyResult:
    """The new body; the keys applied (in input order); ``{key: reason}`` for the rest.

    ``spans`` gives, for each applied key, where its replacement sits in the new body.
    """

    body: str
    applied: list[FixKey] = field(default_factory=list)
    conflicts: dict[FixKey, str] = field(default_factory=dict)
    spans: dict[FixKey, tuple[int, int]] = field(default_factory=dict)


def count_occurrences(body: str, find: str) -> int:
    """Occurrences of ``find`` in ``body``, overlapping ones included ("aa" twice in "aaa")."""
    count = 0
    position = body.find(find)
    while position != -1:
        count += 1
        position = body.find(find, position + 1)
    return count


def apply_fixes(body: str, fixes: Sequence[FixToApply]) -> ApplyResult:
    """Apply ``fixes`` to ``body`` in one pass; never a chain of ``str.replace``.

    * each ``find`` must occur exactly once in ``body`` -- 0 times gives
      "FIND text not found in this revision", N > 1 "FIND text occurs N times";
    * fixes whose matched spans overlap one another all conflict ("overlaps fix K");
      spans that merely touch do not overlap;
    * the remaining fixes are spliced into ``body`` in one pass over their disjoint spans
      (equivalent to applying them right to left by offset).

    Keys must be unique (a ``ValueError`` otherwise: that is a caller bug, not a conflict).
    """
    keys = [fix.key for fix in fixes]
    if len(set(keys)) != len(keys):
        duplicated = sorted({str(key) for key in keys if keys.count(key) > 1})
        raise ValueError(f"fix keys must be unique; repeated: {', '.join(duplicated)}")

    conflicts: dict[FixKey, str] = {}
    located: list[tuple[int, int, FixToApply]] = []
    for fix in fixes:
        if not fix.find:
            conflicts[fix.key] = "FIND text is empty"
            continue
        occurrences = count_occurrences(body, fix.find)
        if occurrences == 0:
            conflicts[fix.key] = NOT_FOUND
        elif occurrences > 1:
            conflicts[fix.key] = f"FIND text occurs {occurrences} times"
        else:
            start = body.find(fix.find)
            located.append((start, start + len(fix.find), fix))

    overlapping: dict[FixKey, list[FixKey]] = {}
    for i, (start_a, end_a, fix_a) in enumerate(located):
        for start_b, end_b, fix_b in located[i + 1 :]:
            if start_a < end_b and start_b < end_a:
                overlapping.setdefault(fix_a.key, []).append(fix_b.key)
                overlapping.setdefault(fix_b.key, []).append(fix_a.key)
    for key, others in overlapping.items():
        conflicts[key] = "overlaps " + ", ".join(f"fix {other}" for other in others)

    to_apply = sorted(
        (item for item in located if item[2].key not in overlapping), key=lambda item: item[0]
    )
    pieces: list[str] = []
    cursor = 0
    shift = 0
    spans: dict[FixKey, tuple[int, int]] = {}
    for start, end, fix in to_apply:  # left to right over disjoint spans == one splice pass
        pieces.append(body[cursor:start])
        pieces.append(fix.replace)
        new_start = start + shift
        spans[fix.key] = (new_start, new_start + len(fix.replace))
        shift += len(fix.replace) - (end - start)
        cursor = end
    pieces.append(body[cursor:])

    applied_keys = {fix.key for _, _, fix in to_apply}
    return ApplyResult(
        body="".join(pieces),
        applied=[key for key in keys if key in applied_keys],
        conflicts={key: conflicts[key] for key in keys if key in conflicts},
        spans=spans,
    )


# ---------------------------------------------------------------- judging an edit


@dataclass(frozen=True)
class EditJudgment:
    """What the numeric check says of the numbers an edit writes, read in the edited
    report: ``supported`` (each is an evidence figure or a derivation the check
    accepts), ``flagged`` (one gets a finding) or ``unjudged`` (the edit writes no
    number the check reads, or its FIND is not in the body once)."""

    status: str
    note: str


def judge_edit(
    body: str,
    evidence: Sequence[EvidenceItem],
    find: str,
    replace: str,
    settings: EngineSettings,
) -> EditJudgment:
    """Judge a reviewer's replacement by the engine's own rule, not by the proof of the
    fix it edits: splice it into ``body`` and run the numeric check over the edited
    report. The numbers inside the replacement are judged as any report number is:
    supported only by an evidence figure or by a derivation whose chance of coincidence
    is small, never because some calculation lands near it."""
    from validation.engine.checks.numeric import analyze, build_index  # heavy: load at use

    if count_occurrences(body, find) != 1:
        return EditJudgment("unjudged", "the text the fix replaces is not in the body once")
    start = body.index(find)
    edited = body[:start] + replace + body[start + len(find) :]
    end = start + len(replace)
    result = analyze(edited, build_index(evidence), settings=settings)
    inside = [match for match in result.report.matches if start <= match.start < end]
    if not inside:
        return EditJudgment("unjudged", "the edit writes no number the engine reads")
    for finding in result.findings:
        if finding.start < end and start < finding.end and finding.end > finding.start:
            return EditJudgment("flagged", finding.message)
    said: list[str] = []
    for match in inside:
        if match.status not in ("exact", "rounded", "derived"):
            return EditJudgment("flagged", f'"{match.text}" is supported by no evidence')
        if match.status == "derived":
            said.append(f"{match.text} = {match.formula}")
        else:
            said.append(f"{match.text} in {match.source_ref}")
    return EditJudgment("supported", "; ".join(said))
