"""Fix cards: what one card of the review screen shows (diff, proof, actions).

Built from rows the selectors read; the review page builds a hundred of these per request,
so nothing here queries the database or reverses a URL per card.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.urls import reverse
from django.utils.safestring import SafeString

from analyses.models import Analysis
from validation import selectors
from validation.diffs import fix_diff
from validation.models import Fix, ToolCall
from validation.rendering import safe_url
from validation.selectors import FixCounts


def fix_counts_of(fixes: Sequence[Fix], threshold: float) -> FixCounts:
    counts = FixCounts()
    for fix in fixes:
        setattr(counts, fix.status, getattr(counts, fix.status) + 1)
        if fix.status == Fix.Status.PROPOSED and fix.confidence >= threshold and not fix.unverified:
            counts.bulk_candidates += 1
        if fix.status == Fix.Status.REJECTED and fix.carried_from_id is not None:
            counts.carried += 1
    return counts


@dataclass
class FixCard:
    """Everything one fix card shows."""

    fix: Fix
    number: int
    diff: SafeString
    excerpts: list[dict[str, Any]]
    tool_calls: list[ToolCall]
    applied_in_number: int | None = None
    error: str = ""
    urls: dict[str, str] = field(default_factory=dict)

    @property
    def tool_summary(self) -> str:
        counts: dict[str, int] = {}
        for call in self.tool_calls:
            counts[call.tool] = counts.get(call.tool, 0) + 1
        return ", ".join(f"{tool} \u00d7{n}" for tool, n in counts.items())


# Excerpts under this source_ref are the fix's own calculation, not a stored evidence item.
CALCULATOR_SOURCE = "calculator"


def _excerpts(raw: Any, proof: str) -> list[dict[str, Any]]:
    items = raw if isinstance(raw, list) else []
    excerpts = []
    for item in items:
        if not isinstance(item, dict):
            continue
        source_ref = str(item.get("source_ref") or "")
        excerpt = str(item.get("excerpt") or "")
        excerpts.append(
            {
                "source_ref": source_ref,
                "label": str(item.get("label") or ""),
                "excerpt": excerpt,
                "url": safe_url(item.get("url")),
                # Shown once: an excerpt VERIFIED_WITH already quotes is not repeated.
                "in_proof": bool(excerpt) and excerpt in proof,
                "stored": bool(source_ref) and source_ref != CALCULATOR_SOURCE,
            }
        )
    return excerpts


FIX_ACTIONS = ("accept", "reject", "edit", "undo")
_PLACEHOLDER = 2_147_483_647


def fix_action_urls(analysis_id: int) -> dict[str, str]:
    """URL patterns of the fix actions with a placeholder id: reversing four URLs per card
    for a hundred cards costs more than rendering them."""
    urls = {
        action: reverse(f"fix_{action}", args=[analysis_id, _PLACEHOLDER]) for action in FIX_ACTIONS
    }
    urls["review"] = reverse("analysis_review", args=[analysis_id])
    return urls


def _urls_for(fix_id: int, patterns: dict[str, str]) -> dict[str, str]:
    marker = f"/{_PLACEHOLDER}/"
    return {action: url.replace(marker, f"/{fix_id}/") for action, url in patterns.items()}


def fix_card(
    fix: Fix,
    *,
    number: int,
    body: str,
    revision_numbers: dict[int, int],
    url_patterns: dict[str, str],
    error: str = "",
) -> FixCard:
    return FixCard(
        urls=_urls_for(fix.pk, url_patterns),
        fix=fix,
        number=number,
        diff=fix_diff(body, fix.offset, fix.find, fix.replace),
        excerpts=_excerpts(fix.evidence, fix.verified_with),
        tool_calls=list(fix.tool_calls.all()),
        applied_in_number=revision_numbers.get(fix.applied_in_id) if fix.applied_in_id else None,
        error=error,
    )


def fix_card_for(*, fix_id: int, analysis: Analysis, error: str = "") -> FixCard:
    """One card, for an htmx response after an action on it (4 queries)."""
    fix, number = selectors.fix_with_number(fix_id=fix_id, analysis=analysis)
    applied_in_number: int | None = getattr(fix, "applied_in_number", None)
    numbers = (
        {fix.applied_in_id: applied_in_number}
        if fix.applied_in_id and applied_in_number is not None
        else {}
    )
    return fix_card(
        fix,
        number=number,
        body=fix.revision.body,
        revision_numbers=numbers,
        url_patterns=fix_action_urls(analysis.pk),
        error=error,
    )
