"""Bounded output: a report that repeats one mistake 60,000 times gets the first ones listed
and one finding that counts the rest, so what is stored and shown stays bounded whatever
the input.

* Per kind: at most :data:`MAX_FINDINGS_PER_KIND` findings of one check and kind. A kind
  with one finding more keeps it (a summary would save nothing).
* Per check: at most :data:`MAX_FINDINGS_PER_CHECK` findings of one check; past that each of
  its kinds keeps an equal share (a kind with fewer keeps all of its own).
* The findings left out of a kind become one finding at the first of them, as severe as the
  most severe left out: "and 59,800 more like this (the first 200 are listed)".
* A finding a fix points at is always kept; fixes are capped in number by the checks that
  make them, and a fix whose FIND is longer than :data:`MAX_FIND_CHARS` is not proposed: a
  number repeated on many identical lines is unique only with most of the report around it
  (``spans.widen_to_unique``), and a FIND of pages is neither surgical nor reviewable (its
  finding stays).
* A finding's message is at most :data:`MAX_MESSAGE_CHARS` characters and its text at most
  :data:`MAX_TEXT_CHARS` (a 200,000-digit number is quoted by its first digits and an
  ellipsis; a text cut short is listed, not highlighted).
* The numbers report lists at most :data:`MAX_NUMBERS_LISTED` numbers in each list
  (``exact_matches`` still counts them all).
* The numbers check judges the first :data:`MAX_NUMBERS_JUDGED` numbers of a report (a
  200 KB wall of numbers states 66,000, a real report hundreds); past that, one major
  finding at the first number left says how many are unchecked (``numbers_limit``).

The pipeline computes confidence, checks and the decision from every finding first; the
cap only bounds what is listed. It runs in time linear in the number of findings.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from validation.engine.types import Finding, FixProposal, NumbersReport, Severity

# The format check lists 200 of a kind and counts the rest in one finding of its own
# (checks/format.py); 201 of a kind are left as they are.
MAX_FINDINGS_PER_KIND = 200
MAX_FINDINGS_PER_CHECK = 600
MAX_NUMBERS_LISTED = 500
MAX_NUMBERS_JUDGED = 10_000
MAX_FIND_CHARS = 1_000
MAX_MESSAGE_CHARS = 1_000
MAX_TEXT_CHARS = 2_000  # as the format check keeps them

_SEVERITY_RANK: dict[Severity, int] = {"critical": 0, "major": 1, "minor": 2, "info": 3}


@dataclass(frozen=True)
class Capped:
    findings: list[Finding]
    fixes: list[FixProposal]
    left_out: int  # findings counted in a summary instead of listed


def cap_findings(
    findings: Sequence[Finding],
    fixes: Sequence[FixProposal],
    *,
    per_kind: int = MAX_FINDINGS_PER_KIND,
    per_check: int = MAX_FINDINGS_PER_CHECK,
) -> Capped:
    """`findings` (in report order) within the caps, and `fixes` re-based onto them."""
    fixes = [fix for fix in fixes if len(fix.find) <= MAX_FIND_CHARS]
    pinned = {fix.finding_index for fix in fixes if fix.finding_index is not None}
    totals: Counter[tuple[str, str]] = Counter(
        (str(finding.check), finding.kind)
        for index, finding in enumerate(findings)
        if index not in pinned
    )
    quota = _quotas(
        totals,
        pinned_per_check=_pinned_per_check(findings, pinned),
        per_kind=per_kind,
        per_check=per_check,
    )
    if all(totals[key] <= quota[key] for key in totals):
        return Capped([_short(finding) for finding in findings], list(fixes), 0)

    taken: Counter[tuple[str, str]] = Counter()
    left: dict[tuple[str, str], list[int]] = {}  # kind -> [count, most severe rank]
    keep: list[bool] = []
    for index, finding in enumerate(findings):
        key = (finding.check, finding.kind)
        if index in pinned or taken[key] < quota[key]:
            keep.append(True)
            taken[key] += index not in pinned
            continue
        keep.append(False)
        stats = left.setdefault(key, [0, _SEVERITY_RANK[finding.severity]])
        stats[0] += 1
        stats[1] = min(stats[1], _SEVERITY_RANK[finding.severity])

    out: list[Finding] = []
    renumbered: dict[int, int] = {}
    summarized: set[tuple[str, str]] = set()
    for index, finding in enumerate(findings):
        key = (finding.check, finding.kind)
        if keep[index]:
            renumbered[index] = len(out)
            out.append(_short(finding))
        elif key not in summarized:
            summarized.add(key)
            out.append(_short(_summary(finding, *left[key], listed=taken[key])))
    rebased = []
    for fix in fixes:
        if fix.finding_index is None:
            rebased.append(fix)
        else:
            rebased.append(fix.model_copy(update={"finding_index": renumbered[fix.finding_index]}))
    return Capped(out, rebased, sum(count for count, _ in left.values()))


def _pinned_per_check(findings: Sequence[Finding], pinned: set[int]) -> Counter[str]:
    return Counter(findings[index].check for index in pinned if 0 <= index < len(findings))


def _quotas(
    totals: Counter[tuple[str, str]],
    *,
    pinned_per_check: Counter[str],
    per_kind: int,
    per_check: int,
) -> dict[tuple[str, str], int]:
    """How many findings of each (check, kind) are listed, fixes' findings aside."""
    quota = {key: count if count <= per_kind + 1 else per_kind for key, count in totals.items()}
    by_check: dict[str, list[tuple[str, str]]] = {}
    for key in quota:
        by_check.setdefault(key[0], []).append(key)
    for check, keys in by_check.items():
        room = max(0, per_check - pinned_per_check[check])
        if sum(quota[key] for key in keys) <= room:
            continue
        # An equal share for each kind; what a small kind does not use goes to the others.
        wanted = sorted(keys, key=quota.__getitem__)
        for position, key in enumerate(wanted):
            share = room // (len(wanted) - position)
            quota[key] = min(quota[key], share)
            room -= quota[key]
    return quota


def _summary(first: Finding, count: int, rank: int, *, listed: int) -> Finding:
    severity = next(name for name, value in _SEVERITY_RANK.items() if value == rank)
    shown = f"the first {listed:,} are listed" if listed else "none is listed"
    return first.model_copy(
        update={
            "severity": severity,
            "message": f"and {count:,} more like this ({shown}): {first.message}",
            "evidence": [],
        }
    )


def shortened(findings: Sequence[Finding]) -> list[Finding]:
    """`findings` with each message and text within bounds (the caps above apply it too)."""
    return [_short(finding) for finding in findings]


def _short(finding: Finding) -> Finding:
    """`finding` with its message and text within bounds."""
    if len(finding.message) <= MAX_MESSAGE_CHARS and len(finding.text) <= MAX_TEXT_CHARS:
        return finding
    return finding.model_copy(
        update={
            "message": _cut(finding.message, MAX_MESSAGE_CHARS),
            "text": finding.text[:MAX_TEXT_CHARS],
        }
    )


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def cap_numbers(report: NumbersReport, *, limit: int = MAX_NUMBERS_LISTED) -> NumbersReport:
    """The numbers report with each of its lists cut to `limit` numbers."""
    lists = ("close_matches", "orphan_numbers", "suspicious", "matches")
    if all(len(getattr(report, name)) <= limit for name in lists):
        return report
    return report.model_copy(update={name: getattr(report, name)[:limit] for name in lists})


def numbers_limit_finding(total: int, start: int, end: int, text: str) -> Finding:
    """The numbers past MAX_NUMBERS_JUDGED, unchecked: said so where they start."""
    left = total - MAX_NUMBERS_JUDGED
    return Finding(
        check="claims_supported",
        kind="numbers_limit",
        severity="major",
        message=(
            f"The report states {total:,} numbers; the numbers check judges the first "
            f"{MAX_NUMBERS_JUDGED:,} and leaves the {left:,} from here on unchecked "
            "(a stated limit)"
        ),
        start=start,
        end=end,
        text=text,
    )
