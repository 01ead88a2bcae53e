"""Small display helpers for the queue and review templates (no queries, no logic)."""

from __future__ import annotations

from typing import Any

from django import template
from django.contrib.auth.models import AnonymousUser, User
from django.http import QueryDict

from analyses.models import Analysis
from validation.models import Attempt
from validation.permissions import is_reviewer
from validation.web import display
from validation.web.presenters import pretty_json
from validation.web.rendering import safe_url
from validation.web.review_state import claim_of

register = template.Library()

# Display rules live in validation.web.display (the Python-rendered fix cards use them too).
for _filter in (
    display.confidence,
    display.confidence_class,
    display.compact_json,
    display.milliseconds,
    display.humanize_key,
    display.ago,
    display.short_numbers,
    display.finding_class,
    display.readable,
):
    register.filter(_filter.__name__, _filter)

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
def failed_checks(checks: Any) -> str:
    """The failed checks of a verdict's ``checks``, as labels: "Claims supported, …"."""
    return ", ".join(Attempt.failed_checks(checks))


@register.filter
def decision_class(value: str | None) -> str:
    return _DECISION_CLASSES.get(value or "", "badge--none")


@register.filter
def status_class(value: str | None) -> str:
    return _STATUS_CLASSES.get(value or "", "")


@register.filter
def as_json(value: Any) -> str:
    """Pretty JSON (or the text itself) for a <pre>; the template escapes it."""
    return pretty_json(value)


_TIMING_LABELS = {"total": "engine total", "total_ms": "whole run"}


@register.filter
def timing_label(key: str) -> str:
    """An attempt's timing key for a person: the engine's own total and the run's total
    (engine plus storing the result) are told apart."""
    return _TIMING_LABELS.get(str(key)) or display.humanize_key(key)


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
