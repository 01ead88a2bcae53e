"""The docs/spec.md §9 Markdown of an attempt (context.md section 7), and a
details listing.

Layout (docs/spec.md §9.1)::

    ## 7. Validation (Attempt 1)        <- "## 7. Validation" without an attempt number

    **Decision:** REVISE
    **Confidence:** 0.65                <- format_confidence: two decimals, rounded down

    ### Checks
    | Check | Result |
    |-------|--------|
    | Claims Supported | FAIL |
    ...

    ### Goals                           <- only with goals (docs/spec.md §8)
    ### Issues                          <- numbered, or "None"
    ### Notes                           <- APPROVE only
    ### Revision Hints                  <- when present
    ### Suggested Fixes                 <- when present
"""

from __future__ import annotations

from decimal import ROUND_FLOOR, Decimal

from validation.engine.types import CHECK_NAMES, Verdict

CHECK_TITLES = {
    "claims_supported": "Claims Supported",
    "no_hallucinations": "No Hallucinations",
    "query_addressed": "Query Addressed",
    "coherent_format": "Coherent Format",
    "source_metadata_present": "Source Metadata Present",
}


def format_confidence(confidence: float) -> str:
    """A confidence or a score as Redline shows it everywhere (the review page, the queue,
    the §7 record, the Markdown export, messages): two decimals, rounded down.

    Rounded down, a shown value is never above the real one, so it never reads as clearing
    a threshold it missed: 0.499 is "0.49" under the 0.50 REVISE threshold (it got RETRY),
    never "0.50"; a shown "0.80" is at least 0.80."""
    return str(Decimal(str(confidence)).quantize(Decimal("0.01"), rounding=ROUND_FLOOR))


def render_attempt_markdown(verdict: Verdict, attempt_number: int | None = None) -> str:
    title = "## 7. Validation" + (f" (Attempt {attempt_number})" if attempt_number else "")
    lines = [
        title,
        "",
        f"**Decision:** {verdict.decision}",
        f"**Confidence:** {format_confidence(verdict.confidence)}",
        "",
        "### Checks",
        "| Check | Result |",
        "|-------|--------|",
    ]
    for name in CHECK_NAMES:
        lines.append(
            f"| {CHECK_TITLES[name]} | {'PASS' if getattr(verdict.checks, name) else 'FAIL'} |"
        )

    if verdict.check_reasons:
        lines += ["", "Why checks failed:"]
        lines += [
            f"- {CHECK_TITLES[name]}: {_line(why)}"
            for name, why in verdict.check_reasons.items()
            if name in CHECK_TITLES
        ]

    if verdict.goals:
        lines += ["", "### Goals", "| Goal | Score | Status |", "|------|-------|--------|"]
        for goal in verdict.goals:
            lines.append(
                f"| {_cell(goal.goal)} | {format_confidence(goal.score)} | {goal.status} |"
            )
        if verdict.goal_decision:
            lines += ["", f"**Goal decision:** {verdict.goal_decision}"]

    lines += ["", "### Issues"]
    if verdict.issues:
        lines += [f"{n}. {_line(issue)}" for n, issue in enumerate(verdict.issues, start=1)]
    else:
        lines.append("None")

    if verdict.decision == "APPROVE":
        lines += ["", "### Notes", _notes(verdict)]
    if verdict.revision_hints.strip():
        lines += ["", "### Revision Hints", verdict.revision_hints.strip()]
    if verdict.suggested_fixes.strip():
        lines += ["", "### Suggested Fixes", verdict.suggested_fixes.strip()]
    return "\n".join(lines) + "\n"


def render_details_markdown(verdict: Verdict) -> str:
    """Findings and proposed fixes, for the command line's ``--format markdown``."""
    lines = ["### Findings"]
    if not verdict.findings:
        lines.append("None")
    for n, finding in enumerate(verdict.findings, start=1):
        where = f"chars {finding.start}-{finding.end}" if finding.end > finding.start else "report"
        lines.append(
            f"{n}. **{finding.severity}** `{finding.check}` / `{finding.kind}` ({where}): "
            f"{_line(finding.message)}"
        )
    lines += ["", "### Proposed Fixes"]
    if not verdict.fixes:
        lines.append("None")
    for n, fix in enumerate(verdict.fixes, start=1):
        about = f" (finding {fix.finding_index + 1})" if fix.finding_index is not None else ""
        lines += [
            f"{n}. `{fix.kind}`, confidence {format_confidence(fix.confidence)}{about}",
            f"   - FIND: {_code(fix.find)}",
            f"   - REPLACE: {_code(fix.replace)}",
            f"   - VERIFIED_WITH: {_line(fix.verified_with)}",
        ]
    return "\n".join(lines) + "\n"


def _notes(verdict: Verdict) -> str:
    numbers = verdict.numbers
    supported = sum(m.status in ("exact", "rounded", "derived") for m in numbers.matches)
    note = "All five checks pass."
    if numbers.matches:
        note = (
            f"All five checks pass; {supported} of {len(numbers.matches)} numbers "
            "are backed by the evidence."
        )
    partial = [goal.goal for goal in verdict.goals if goal.status == "PARTIAL"]
    # docs/spec.md §8.2: proceed with a caveat noting partial completion
    if partial:
        goals = "; ".join(f'"{_line(goal)}"' for goal in partial)
        note += (
            f" Partial completion: {goals} {'is' if len(partial) == 1 else 'are'} only partly met."
        )
    return note


def _line(text: str) -> str:
    return " ".join(text.split())


def _cell(text: str) -> str:
    return _line(text).replace("|", "\\|")


def _code(text: str) -> str:
    flat = text.replace("\n", "⏎")
    fence = "``" if "`" in flat else "`"
    return f"{fence} {flat} {fence}" if fence == "``" else f"`{flat}`"
