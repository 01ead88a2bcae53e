"""Fix cards: what one card of the review screen shows (diff, proof, actions), and its HTML.

Built from rows the selectors read; the review page builds a hundred of these per request,
so nothing here queries the database or reverses a URL per card. The card is written in
Python (:func:`card_html`), not a template: a hundred template renders cost more than the
rest of the page (0.45 ms a card, 45 ms at 100 fixes), these a few hundredths of that.

A card has two parts. Its body -- the diff, the proof, the tool calls -- never changes
while the card is on the page but on an edit. Its review part (:func:`review_html`,
``#fix-<id>-review``) -- the state, the error, the buttons -- is what accept, reject and
undo change, and all their htmx answers swap.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.urls import reverse
from django.utils import timezone
from django.utils.safestring import SafeString, mark_safe
from django.utils.text import slugify

from analyses.models import Analysis
from validation import selectors
from validation.models import Fix, ToolCall
from validation.selectors import FixCounts
from validation.web.diffs import fix_diff
from validation.web.display import (
    ago,
    compact_json,
    confidence,
    confidence_class,
    esc,
    humanize_key,
    milliseconds,
    short_numbers,
    tool_output,
    truncate,
)
from validation.web.rendering import safe_url


def fix_counts_of(fixes: Sequence[Fix], threshold: float) -> FixCounts:
    counts = FixCounts()
    for fix in fixes:
        setattr(counts, fix.status, getattr(counts, fix.status) + 1)
        bulk = fix.confidence >= threshold and fix.verified and not fix.unverified
        if fix.status == Fix.Status.PROPOSED and bulk:
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


def urls_for(fix_id: int, patterns: dict[str, str]) -> dict[str, str]:
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
    tool_calls: list[ToolCall] | None = None,
) -> FixCard:
    """`tool_calls`: the fix's, when the caller read them (else they are read here)."""
    return FixCard(
        urls=urls_for(fix.pk, url_patterns),
        fix=fix,
        number=number,
        diff=fix_diff(body, fix.offset, fix.find, fix.replace),
        excerpts=_excerpts(fix.evidence, fix.verified_with),
        tool_calls=list(fix.tool_calls.all()) if tool_calls is None else tool_calls,
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


# ---------------------------------------------------------------- HTML


@dataclass(frozen=True)
class CardFlags:
    """What a card's HTML depends on beyond its fix: the page's permissions and the form
    token (one masked token serves every form of a response)."""

    can_act: bool
    is_final: bool
    reason_required: bool
    csrf_token: str


def card_html(card: FixCard, flags: CardFlags) -> SafeString:
    """The whole card: head, diff, notes, proof, then its review part."""
    fix = card.fix
    pk = fix.pk
    # Never bulk-accepted: an edit its proof contradicts, or an LLM fix no tool call proves.
    unverified = ' data-unverified="1"' if fix.unverified or not fix.verified else ""
    out = [
        f'<article id="fix-{pk}" class="fix-card" tabindex="-1" data-fix-id="{pk}" '
        f'data-finding="{fix.finding_id or ""}" data-confidence="{fix.confidence:.4f}"'
        f'{unverified} aria-labelledby="fix-{pk}-title">',
        '<header class="fix-head">',
        f'<h3 id="fix-{pk}-title">Fix {card.number}</h3> ',
        f'<span class="fix-kind">{esc(humanize_key(fix.kind))} · '
        f"{esc(fix.get_origin_display().lower())}</span>",
    ]
    if fix.by_reviewer:
        out.extend(_authored_badges(fix))
    if not fix.verified:
        out.append(
            '<span class="badge badge--unverified" title="No tool call supports this fix: '
            'review it alone, it is never bulk-accepted">unverified</span>'
        )
    if fix.by_reviewer:
        pass  # its own badges above
    elif fix.unverified:
        out.append(' <span class="badge badge--unverified">edited — unverified</span>')
    elif fix.edit_check == "verified":
        out.append(' <span class="badge badge--reverified">edited — re-verified</span>')
    proposed = fix.proposed_confidence
    was = (
        f" (proposed {confidence(proposed)})"
        if proposed is not None and proposed != fix.confidence
        else ""
    )
    out.append(
        f' <span class="fix-conf {confidence_class(fix.confidence)}" title="confidence{was}">'
        f"{confidence(fix.confidence)}</span></header>"
    )
    out.append(
        '<div class="fix-diff" aria-label="Change: FIND struck through, REPLACE underlined">'
        f"{card.diff}</div>"
    )
    if fix.edited:
        out.append(
            '<p class="fix-note">Replacement edited by the reviewer; proposed: '
            f"<code>{esc(fix.proposed_replace or '(empty)')}</code></p>"
        )
    if fix.by_reviewer:
        if fix.unverified:  # its note is the proof below; say what that means here
            out.append(
                '<p class="fix-warning" role="alert">⚠ The check on save contradicts this fix; '
                "bulk accept skips it. Accept it only if you are sure.</p>"
            )
    elif fix.unverified:
        before = f" (was {confidence(proposed)})" if proposed is not None else ""
        out.append(
            '<p class="fix-warning" role="alert">⚠ Edited — unverified: '
            f"{short_numbers(fix.edit_note)} Confidence dropped to {confidence(fix.confidence)}"
            f"{before}; bulk accept skips this fix. Accept it only if you are sure, or edit it "
            f"back to <code>{esc(fix.proposed_replace)}</code>.</p>"
        )
    elif fix.edit_check == "verified":
        out.append(f'<p class="fix-note">{short_numbers(fix.edit_note)}</p>')
    out.append(_proof_html(card))
    out.append(review_html(card, flags))
    out.append("</article>")
    return mark_safe("".join(out))  # safe: every value above is escaped


_AUTHORED_CHECK = {
    "verified": ("badge--reverified", "checked"),
    "reviewers_word": ("badge--word", "reviewer's word"),
    "unverified": ("badge--unverified", "contradicted"),
}


def _authored_badges(fix: Fix) -> list[str]:
    """Who wrote a reviewer's own fix, when, and what the check on save found."""
    who = esc(fix.author.get_username()) if fix.author else "a reviewer"
    when = ""
    if fix.authored_at:
        stamp = timezone.localtime(fix.authored_at)
        when = f' <time datetime="{stamp.isoformat()}">{ago(fix.authored_at)}</time>'
    css, label = _AUTHORED_CHECK.get(fix.edit_check, ("badge--word", "reviewer's word"))
    return [
        f' <span class="badge badge--authored">written by {who}{when}</span>',
        f' <span class="badge {css}">{label}</span>',
    ]


def _proof_html(card: FixCard) -> str:
    fix = card.fix
    held = ' <span class="muted">(holds for the proposed replacement)</span>'
    out = [
        '<div class="fix-proof"><p class="verified"><span class="proof-label">VERIFIED_WITH'
        f"</span> <code>{short_numbers(fix.verified_with or '—')}</code>"
        f"{held if fix.unverified else ''}</p>"
    ]
    for ex in card.excerpts:
        if not ex["stored"] and ex["in_proof"]:
            continue
        label = ex["label"]
        source: str = esc(ex["source_ref"])
        if label and label != ex["source_ref"]:
            source += f" · {esc(label)}"
        out.append(f'<p class="excerpt"><span class="excerpt-src">{source}</span>')
        if ex["stored"]:
            out.append(
                f' · <a href="{card.urls["review"]}?tab=evidence#source-'
                f'{esc(slugify(ex["source_ref"]))}" title="the stored evidence item">'
                "open source</a>"
            )
        elif ex["url"]:
            out.append(
                f' · <a href="{esc(ex["url"])}" target="_blank" rel="noopener noreferrer">'
                "open source ↗</a>"
            )
        if ex["excerpt"] and not ex["in_proof"]:
            text = short_numbers(truncate(ex["excerpt"], 240))
            out.append(f' <q class="excerpt-text">{text}</q>')
        out.append("</p>")
    if card.tool_calls:
        out.append(
            '<details class="tool-calls">'
            f"<summary>tool calls: {esc(card.tool_summary)}</summary><ol>"
        )
        for call in card.tool_calls:
            if call.error:
                result = f'<span class="tool-error">error: {esc(call.error)}</span>'
            else:
                expression = call.input.get("expression") if isinstance(call.input, dict) else ""
                shown = tool_output(truncate(call.output, 400), str(expression or ""))
                result = f"<code>{shown}</code>"
            out.append(
                f"<li><code>{esc(call.tool)}({esc(compact_json(call.input))})</code> → "
                f'{result} <span class="muted">{milliseconds(call.duration_ms)}</span></li>'
            )
        out.append("</ol></details>")
    out.append("</div>")
    return "".join(out)


_ACCEPTABLE = ("proposed", "rejected")
_REJECTABLE = ("proposed", "accepted", "conflict")
_EDITABLE = ("proposed", "accepted", "rejected")
_UNDOABLE = ("accepted", "rejected", "conflict")


def review_html(card: FixCard, flags: CardFlags) -> SafeString:
    """The part of a card that accept, reject and undo change: its state, error, buttons."""
    fix = card.fix
    pk = fix.pk
    status = fix.status
    out = [
        f'<div id="fix-{pk}-review" class="fix-review" data-status="{status}">'
        f'<p class="fix-state">{_state_html(card, flags)}'
    ]
    if fix.reviewed_at and status != "proposed":
        when = timezone.localtime(fix.reviewed_at)
        out.append(
            f'<span class="muted"> · <time datetime="{when.isoformat()}">'
            f"{ago(fix.reviewed_at)}</time></span>"
        )
    if fix.finding_id:
        out.append(
            f' · <a class="jump" href="#finding-{fix.finding_id}" '
            f'data-finding-link="{fix.finding_id}">show in report</a>'
        )
    out.append("</p>")
    if card.error:
        out.append(f'<p class="fix-error" role="alert">{esc(card.error)}</p>')
    if flags.can_act:
        out.append(_actions_html(card, flags))
    out.append("</div>")
    return mark_safe("".join(out))  # safe: every value above is escaped


def _state_html(card: FixCard, flags: CardFlags) -> str:
    fix = card.fix
    who = esc(fix.reviewer.get_username()) if fix.reviewer else "someone"
    reason = esc(fix.reason)
    if fix.status == "accepted":
        return f'<span class="state state--accepted">✓ accepted by {who}</span>'
    if fix.status == "rejected":
        why = f' · <span class="reason">“{reason}”</span>' if reason else ""
        return f'<span class="state state--rejected">✗ rejected by {who}</span>{why}'
    if fix.status == "applied":
        where = f" in revision {card.applied_in_number}" if card.applied_in_number else ""
        by = f" · accepted by {who}" if fix.reviewer else ""
        return f'<span class="state state--applied">✓ applied{where}</span>{by}'
    if fix.status == "conflict":
        return '<span class="state state--conflict">⚠ conflict</span>' + (
            f": {reason}" if reason else ""
        )
    if fix.status == "stale":
        why = reason or "its revision is no longer current"
        return f'<span class="state state--stale">stale</span>: {why}'
    if flags.is_final:
        return '<span class="state state--stale">not reviewed</span>'
    return '<span class="state state--proposed">to review</span>'


def _form(url: str, target: str, flags: CardFlags, css: str) -> str:
    return (
        f'<form method="post" action="{url}" hx-post="{url}" hx-target="{target}" '
        f'hx-swap="outerHTML" class="{css}"><input type="hidden" '
        f'name="csrfmiddlewaretoken" value="{flags.csrf_token}">'
    )


def _actions_html(card: FixCard, flags: CardFlags) -> str:
    fix = card.fix
    pk, status, urls = fix.pk, fix.status, card.urls
    review = f"#fix-{pk}-review"
    out = ['<div class="fix-actions">']
    if status in _ACCEPTABLE:
        out.append(
            _form(urls["accept"], review, flags, "inline-form")
            + '<button type="submit" class="btn btn--accept" data-action="accept">'
            "Accept <kbd>a</kbd></button></form>"
        )
    if status in _REJECTABLE:
        required = " required" if flags.reason_required else ""
        note = ' <span class="muted">(required)</span>' if flags.reason_required else ""
        out.append(
            '<details class="fix-panel" data-action="reject">'
            '<summary class="btn btn--reject">Reject <kbd>r</kbd></summary>'
            + _form(urls["reject"], review, flags, "panel-form")
            + f'<label for="reason-{pk}">Why reject this fix?{note}</label>'
            f'<textarea id="reason-{pk}" name="reason" rows="2" maxlength="2000"{required} '
            "data-submit-on-enter></textarea>"
            '<button type="submit" class="btn btn--danger">Reject fix</button></form></details>'
        )
    if status in _EDITABLE:
        out.append(
            '<details class="fix-panel" data-action="edit">'
            '<summary class="btn">Edit <kbd>e</kbd></summary>'
            + _form(urls["edit"], f"#fix-{pk}", flags, "panel-form")
            + f'<label for="replace-{pk}">Replace <code>{esc(truncate(fix.find, 60))}</code>'
            f' with</label><textarea id="replace-{pk}" name="replace" rows="2" class="mono" '
            f'maxlength="20000">{esc(fix.replace)}</textarea>'
            '<button type="submit" class="btn btn--primary">Save edit</button>'
            '<span class="hint">re-verified on save: accepted when its proof agrees; one it '
            "contradicts stays to review, its contradiction shown, for you to accept alone</span>"
            "</form></details>"
        )
    if status in _UNDOABLE:
        out.append(
            _form(urls["undo"], review, flags, "inline-form")
            + '<button type="submit" class="btn btn--link" data-action="undo">'
            "Undo <kbd>u</kbd></button></form>"
        )
    out.append("</div>")
    return "".join(out)
