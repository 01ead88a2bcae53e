"""Small display helpers for the queue and review templates (no queries, no logic)."""

from __future__ import annotations

import json
import re
from datetime import datetime
from decimal import Decimal
from typing import Any

from django import template
from django.contrib.auth.models import AnonymousUser, User
from django.http import QueryDict
from django.utils import timezone
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.timesince import timesince

from analyses.models import Analysis
from validation.engine.report import format_confidence
from validation.models import Attempt
from validation.permissions import is_reviewer
from validation.presenters import claim_of, pretty_json
from validation.rendering import safe_url

register = template.Library()

EMPTY = "\u2013"  # an en dash: "no value"

_DECISION_CLASSES = {
    "APPROVE": "badge--approve",
    "REVISE": "badge--revise",
    "RETRY": "badge--retry",
    "FAIL": "badge--fail",
}
_STATUS_CLASSES = {
    "validating": "status--validating",
    "in_review": "status--review",
    "approved": "status--approved",
    "failed": "status--failed",
    "rejected": "status--rejected",
}


@register.filter
def confidence(value: float | None) -> str:
    """0.6499 → "0.64"; nothing → an en dash."""
    if value is None:
        return EMPTY
    return format_confidence(value)  # as the attempt's record says it (rounded down)


@register.filter
def failed_checks(checks: Any) -> str:
    """The failed checks of a verdict's ``checks``, as labels: "Claims supported, …"."""
    return ", ".join(Attempt.failed_checks(checks))


@register.filter
def confidence_class(value: float | None) -> str:
    if value is None:
        return "conf--none"
    if value >= 0.9:
        return "conf--high"
    if value >= 0.75:
        return "conf--mid"
    return "conf--low"


@register.filter
def decision_class(value: str | None) -> str:
    return _DECISION_CLASSES.get(value or "", "badge--none")


@register.filter
def status_class(value: str | None) -> str:
    return _STATUS_CLASSES.get(value or "", "")


@register.filter
def finding_class(kind: str | None) -> str:
    slug = "".join(c if c.isalnum() else "-" for c in (kind or "").lower()).strip("-")
    return f"finding--{slug or 'other'}"


@register.filter
def as_json(value: Any) -> str:
    """Pretty JSON (or the text itself) for a <pre>; the template escapes it."""
    return pretty_json(value)


@register.filter
def compact_json(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


@register.filter
def milliseconds(value: float | None) -> str:
    if value is None:
        return EMPTY
    if value >= 10_000:
        return f"{value / 1000:.1f} s"
    return f"{value:.0f} ms"


@register.filter
def humanize_key(value: str) -> str:
    return str(value).replace("_ms", "").replace("_", " ")


_TIMING_LABELS = {"total": "engine total", "total_ms": "whole run"}


@register.filter
def timing_label(key: str) -> str:
    """An attempt's timing key for a person: the engine's own total and the run's total
    (engine plus storing the result) are told apart."""
    return _TIMING_LABELS.get(str(key)) or humanize_key(key)


@register.simple_tag(takes_context=True)
def query(context: template.Context, **overrides: Any) -> str:
    """The current query string with `overrides` applied (None or "" removes a key)."""
    request = context.get("request")
    params = request.GET.copy() if request is not None else QueryDict(mutable=True)
    for key, value in overrides.items():
        if value is None or value == "":
            params.pop(key, None)
        else:
            params[key] = str(value)
    encoded = params.urlencode()
    return f"?{encoded}" if encoded else "?"


@register.simple_tag
def role_label(user: User | AnonymousUser | None) -> str:
    """ "reviewer", "admin" or "user" for the top bar (uses the cached role check)."""
    if user is None:
        return "user"
    if user.is_superuser:
        return "admin"
    if is_reviewer(user):
        return "reviewer"
    return "user"


@register.filter
def safe_link(url: str | None) -> str:
    """The URL if it is http(s), else "" (so a javascript: URL never becomes a link)."""
    return safe_url(url)


@register.simple_tag(takes_context=True)
def claim_label(context: template.Context, analysis: Analysis) -> str:
    claim = claim_of(analysis, context.get("user"), context.get("now"))
    return claim.label if claim else ""


@register.filter
def ago(value: datetime | None, now: datetime | None = None) -> str:
    """ "just now", "4 s ago", "12 min ago", "3 h ago", else "5 days ago"."""
    if value is None:
        return ""
    seconds = ((now or timezone.now()) - value).total_seconds()
    if seconds < 2:
        return "just now"
    if seconds < 60:
        return f"{int(seconds)} s ago"
    if seconds < 3600:
        return f"{int(seconds // 60)} min ago"
    if seconds < 86400:
        return f"{int(seconds // 3600)} h ago"
    return f"{timesince(value, now)} ago"


# A number with more decimals than a reader can use (a calculator's 28 digits).
_LONG_DECIMAL = re.compile(r"-?\d+\.\d{7,}")
PROOF_DECIMALS = 4


@register.filter
def short_numbers(text: str | None) -> SafeString:
    """Proof text with long decimals shown to 4 places; the exact value is one click away
    (a button that reveals it; its title holds it for a hover too)."""
    raw = conditional_escape(text or "")
    pieces: list[str] = []
    last = 0
    for match in _LONG_DECIMAL.finditer(raw):
        exact = match.group(0)
        short = f"{Decimal(exact):.{PROOF_DECIMALS}f}\u2026"
        pieces.append(raw[last : match.start()])
        pieces.append(
            format_html(
                '<button type="button" class="num-exact" data-exact="{}" title="exact: {}"'
                ' aria-label="{} (show the exact value)">{}</button>',
                exact,
                exact,
                short,
                short,
            )
        )
        last = match.end()
    pieces.append(raw[last:])
    return mark_safe("".join(pieces))
