"""Confidence, checks and the decision (docs/spec.md §5, §6, §8.2).

Confidence
----------
Computed from the findings alone::

    confidence = Π over checks c, Π over k = 0, 1, 2 …:  FACTOR[s(c, k)] ** (1 / (k + 1))

where s(c, k) is the severity of check c's k-th finding, most severe first, and
``FACTOR = {critical: 0.40, major: 0.80, minor: 0.95, info: 1.0}``, rounded to 4 places.

* No findings: 1.0. One minor finding (a raw URL): 0.95. One major (an invented URL):
  0.80. One critical (an empty report): 0.40. A major in each of three checks: 0.512
  (REVISE); in four: 0.41 (RETRY). Three invented numbers in one check: 0.66; fifteen:
  0.48. So wording and citation problems land in REVISE, and RETRY needs problems in
  most checks or many in one: the approach or the data is wrong (docs/spec.md §5.3).
* Diminishing weights *within* a check (1, 1/2, 1/3 …): ten uncited sentences cost less
  than ten independent problems, but still more than one. Across checks penalties
  multiply in full: a report wrong in several ways is worse than one wrong in one way.
* Monotonic: adding a finding, or raising the severity of one, never raises the
  confidence. (Sorted most severe first, each position's penalty can only grow and a
  new position only adds a positive term; rounding is monotonic too.) Floor 0.

Checks
------
A check fails when it has a finding at least as severe as ``settings.failing_severity``
(the Policy's; default ``major``). Less severe findings -- a raw URL, an uncertain query
match -- are shown and lower the confidence, but pass the check: a correct report is
not held back by a nit. ``info`` never fails a check. Besides, a failing ``orphan``
number (found in no evidence) fails ``claims_supported`` as well as its own check,
because an unsupported claim is both (docs/spec.md §10.1: "single unsupported
claim = false").

Decision
--------
:func:`decide`, with the policy thresholds (defaults 0.80 / 0.50 / 0.30):

* ``confidence >= approve_threshold`` and all five checks pass -> APPROVE;
* else ``>= revise_threshold`` -> REVISE (also when confidence is high but a check fails);
* else ``>= retry_threshold`` -> RETRY; else FAIL.
* The multi-goal aggregate (docs/spec.md §8.2) can only make the
  decision stricter (APPROVE < REVISE < RETRY < FAIL; "APPROVE (partial)" counts as APPROVE).
* A RETRY *signal* -- the report shares no topic term with the query (instructions such
  as "summarize" or "round to" are not topics, so a good summary or answer never sends
  it: see :mod:`validation.engine.checks.query`), or it makes numeric claims while no
  evidence was supplied -- means the approach, not the wording, is
  wrong (docs/spec.md §5 "REVISE vs RETRY"): the decision is RETRY whatever
  the confidence, since more evidence or a new plan can still rescue it (FAIL is for the
  unrecoverable).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from validation.engine.types import CHECK_NAMES, Checks, Decision, EngineSettings, Finding, Severity

SEVERITY_FACTOR: dict[Severity, float] = {
    "critical": 0.40,
    "major": 0.80,
    "minor": 0.95,
    "info": 1.0,
}
SEVERITY_RANK: dict[Severity, int] = {"critical": 0, "major": 1, "minor": 2, "info": 3}
STRICTNESS: dict[Decision, int] = {"APPROVE": 0, "REVISE": 1, "RETRY": 2, "FAIL": 3}
ALSO_FAILS_CLAIMS = frozenset({"orphan"})


def confidence_from(findings: Sequence[Finding]) -> float:
    """The documented confidence formula (module docstring)."""
    confidence = 1.0
    for check in CHECK_NAMES:
        ranked = sorted(
            (finding.severity for finding in findings if finding.check == check),
            key=SEVERITY_RANK.__getitem__,
        )
        for position, severity in enumerate(ranked):
            confidence *= SEVERITY_FACTOR[severity] ** (1 / (position + 1))
    return max(0.0, round(confidence, 4))


def fails_check(finding: Finding, settings: EngineSettings) -> bool:
    """Whether ``finding`` is severe enough to fail its check under the policy."""
    threshold = settings.failing_severity
    return SEVERITY_RANK[finding.severity] <= SEVERITY_RANK[threshold]


def checks_from(findings: Sequence[Finding], settings: EngineSettings) -> Checks:
    failing_findings = [finding for finding in findings if fails_check(finding, settings)]
    failing = {finding.check for finding in failing_findings}
    if any(finding.kind in ALSO_FAILS_CLAIMS for finding in failing_findings):
        failing.add("claims_supported")
    return Checks(**{name: name not in failing for name in CHECK_NAMES})


def goal_decision_floor(goal_decision: str | None) -> Decision | None:
    """The docs/spec.md §8.2 aggregate as a decision: "APPROVE (partial)" is
    an APPROVE."""
    if goal_decision is None:
        return None
    head = goal_decision.split(" ", 1)[0].upper()
    if head not in STRICTNESS:
        raise ValueError(f"unknown goal decision {goal_decision!r}")
    return head


def stricter(a: Decision, b: Decision) -> Decision:
    return a if STRICTNESS[a] >= STRICTNESS[b] else b


def decide(
    confidence: float,
    checks: Checks,
    settings: EngineSettings,
    goal_decision: str | None = None,
    *,
    retry_signal: bool = False,
) -> Decision:
    """The docs/spec.md §5 decision table with the policy thresholds, then
    the goal matrix."""
    if retry_signal:
        return "RETRY"
    decision: Decision
    if confidence >= settings.approve_threshold and checks.all_pass():
        decision = "APPROVE"
    elif confidence >= settings.revise_threshold:
        decision = "REVISE"
    elif confidence >= settings.retry_threshold:
        decision = "RETRY"
    else:
        decision = "FAIL"
    floor = goal_decision_floor(goal_decision)
    return decision if floor is None else stricter(decision, floor)


def check_reasons(
    findings: Sequence[Finding], checks: Checks, settings: EngineSettings
) -> dict[str, str]:
    """Why each failed check failed, in words a reviewer reads beside it: the findings that
    fail it (counted, the first quoted), those of another check that fail it too (a number no
    evidence holds is also an unsupported claim), or, with none, that nothing recorded says."""
    failing = [finding for finding in findings if fails_check(finding, settings)]
    reasons: dict[str, str] = {}
    for name in CHECK_NAMES:
        if getattr(checks, name):
            continue
        own = [finding for finding in failing if finding.check == name]
        also = [
            finding
            for finding in failing
            if name == "claims_supported"
            and finding.check != name
            and finding.kind in ALSO_FAILS_CLAIMS
        ]
        if own:
            first = own[0]
            quoted = f' ("{_cut_words(first.text)}")' if first.text.strip() else ""
            reasons[name] = (
                f"{_count(own, 'finding')}, e.g. {_sentence(first.message).rstrip('.')}{quoted}"
            )
        elif also:
            kinds = ", ".join(dict.fromkeys(finding.kind.replace("_", " ") for finding in also))
            reasons[name] = (
                f"{_count(also, 'number')} found in no evidence ({kinds}, listed under "
                "no hallucinations): a number nothing supports is an unsupported claim too"
            )
        else:
            reasons[name] = "no finding recorded this failure"
    return reasons


def _cut_words(text: str, limit: int = 60) -> str:
    words = " ".join(text.split())
    return words if len(words) <= limit else words[: limit - 1] + "…"


def rank_findings(findings: Sequence[Finding]) -> list[Finding]:
    """Most severe first; ties keep their order (position in the report)."""
    return sorted(findings, key=lambda finding: SEVERITY_RANK[finding.severity])


def issues_from(findings: Sequence[Finding]) -> list[str]:
    """One human-readable line per finding, most severe first."""
    return [_sentence(finding.message) for finding in rank_findings(findings)]


def _sentence(message: str) -> str:
    message = " ".join(message.split())
    return message[:1].upper() + message[1:] if message else message


# ---------------------------------------------------------------- guidance


@dataclass(frozen=True)
class RetrySignals:
    """Signs that the approach, not the wording, is wrong (docs/spec.md §5
    "REVISE vs RETRY")."""

    # Numeric claims made while the bundle holds no evidence at all.
    claims_without_evidence: int = 0
    # The query's terms, when the report shares none of them.
    unrelated_query_terms: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.claims_without_evidence or self.unrelated_query_terms)


_FORMAT_KINDS = ("unbalanced_emphasis", "table", "heading", "unclosed_code_fence", "wall_of_text")


def revision_hints(findings: Sequence[Finding], fix_count: int = 0) -> str:
    """Concrete guidance for the writer (docs/spec.md §6 ``revision_hints``),
    built from findings."""
    by_kind = _by_kind(findings)
    hints: list[str] = []
    take = by_kind.pop
    if found := take("close_but_wrong", []):
        hints.append(
            f"Correct {_count(found, 'number')} that {_agree(found, 'differs', 'differ')} "
            "from the evidence: "
            f"{_examples(found, message=True)}."
        )
    if found := take("arithmetic", []):
        hints.append(
            f"Recompute {_count(found, 'calculation')} that "
            f"{_agree(found, 'does', 'do')} not add up: "
            f"{_examples(found, message=True)}."
        )
    if found := take("orphan", []):
        hints.append(
            f"Remove, or source from the evidence, {_count(found, 'number')} "
            f"found in no evidence: {_examples(found)}."
        )
    if found := take("unknown_url", []):
        hints.append(
            f"Remove or replace {_count(found, 'link')} that no evidence returned: "
            f"{_examples(found)}."
        )
    if found := take("unknown_ref", []):
        hints.append(
            f"Cite only evidence that exists: {_examples(found)} "
            f"{_agree(found, 'matches', 'match')} no source_ref."
        )
    policy = take("uncited_claims", [])
    if found := take("missing_source", []):
        hints.append(
            f"Add a source reference ([source_ref] or a link to the evidence URL) to "
            f"{_count(found, 'sentence')} with numeric claims, e.g. {_examples(found, 1)}."
        )
    elif policy:
        hints.append(
            "Cite the evidence the report relies on: a [source_ref] or a link to the evidence URL."
        )
    if found := take("raw_url", []):
        hints.append(f"Turn {_count(found, 'raw URL')} into markdown links ([text](url)).")
    if found := take("truncated", []):
        hints.append("Finish the report: it stops mid-sentence.")
    format_problems = [f for kind in _FORMAT_KINDS for f in take(kind, [])]
    if format_problems:
        hints.append("Fix the markdown: " + "; ".join(f.message for f in format_problems[:4]) + ".")
    if found := take("query_not_addressed", []):
        hints.append("Answer the query directly: " + found[0].message + ".")
    for finding in take("goal_not_met", []) + take("goal_partial", []):
        hints.append(_sentence(finding.message) + ": address it specifically.")
    for found in by_kind.values():  # kinds without a template of their own
        hints.extend(_sentence(finding.message) + "." for finding in found[:3])
    if hints and fix_count:
        hints.append(
            f"{_count(range(fix_count), 'proposed fix')} with proof "
            f"{'is' if fix_count == 1 else 'are'} ready to review."
        )
    return " ".join(hints)


def suggested_fixes(
    findings: Sequence[Finding], signals: RetrySignals, failed_goals: Sequence[str] = ()
) -> str:
    """Guidance for the planner (docs/spec.md §6 ``suggested_fixes``): what
    evidence or approach is missing."""
    suggestions: list[str] = []
    if signals.claims_without_evidence:
        suggestions.append(
            "Gather evidence before synthesis: the report makes "
            f"{_count(range(signals.claims_without_evidence), 'numeric claim')} "
            "but no evidence was supplied."
        )
    if signals.unrelated_query_terms:
        terms = ", ".join(f'"{t}"' for t in signals.unrelated_query_terms[:8])
        suggestions.append(
            f"Re-plan for the query in §0: the report shares none of its terms ({terms})."
        )
    if failed_goals:
        goals = "; ".join(f'"{goal}"' for goal in failed_goals)
        suggestions.append(f"Re-plan the research for the failed goals: {goals}.")
    by_kind = _by_kind(findings)
    if (orphans := by_kind.get("orphan", [])) and not signals.claims_without_evidence:
        suggestions.append(
            f"Find evidence for, or drop, {_count(orphans, 'number')} that no evidence "
            f"supports: {_examples(orphans)}."
        )
    if wrong := by_kind.get("close_but_wrong", []) + by_kind.get("arithmetic", []):
        suggestions.append(
            f"Recompute {_count(wrong, 'value')} with the calculator from the evidence: "
            f"{_examples(wrong, message=True)}."
        )
    if urls := by_kind.get("unknown_url", []):
        suggestions.append(f"Use only URLs the workflows returned: {_examples(urls)}.")
    if not suggestions:
        top = [_sentence(finding.message) for finding in rank_findings(findings)[:3]]
        suggestions.append("Re-plan the approach; the main problems: " + " ".join(top))
    return " ".join(suggestions)


def _by_kind(findings: Sequence[Finding]) -> dict[str, list[Finding]]:
    grouped: dict[str, list[Finding]] = {}
    for finding in rank_findings(findings):
        grouped.setdefault(finding.kind, []).append(finding)
    return grouped


def _agree(items: Sequence[object], singular: str, plural: str) -> str:
    return singular if len(items) == 1 else plural


def _count(items: Sequence[object] | range, noun: str) -> str:
    n = len(items)
    if n == 1:
        return f"{n} {noun}"
    return f"{n} {noun}es" if noun.endswith(("s", "x", "ch", "sh")) else f"{n} {noun}s"


def _examples(found: Sequence[Finding], limit: int = 3, *, message: bool = False) -> str:
    shown = [
        finding.message.rstrip(".") if message else f'"{" ".join(finding.text.split())[:80]}"'
        for finding in found[:limit]
    ]
    more = f" and {len(found) - limit} more" if len(found) > limit else ""
    return ("; " if message else ", ").join(shown) + more
