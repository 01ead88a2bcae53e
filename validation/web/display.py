"""How Redline writes values for people: confidences, durations, ages, proof numbers, keys.

Plain functions, shared by the template filters (``validation.templatetags.review_tags``)
and the fix cards rendered in Python (``validation.web.fix_cards``): one home per rule.
"""

from __future__ import annotations

import html
import json
import re
from datetime import datetime
from typing import Any

from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import SafeData, SafeString, mark_safe
from django.utils.timesince import timesince

from validation.engine.readable import (
    decimals_written,
    readable_number,
    readable_spans,
    readable_text,
)
from validation.engine.report import format_confidence

EMPTY = "\u2013"  # an en dash: "no value"


def esc(text: object) -> str:
    """HTML-escaped text (Django's ``escape`` without its lazy-string wrapper, which costs
    more than the escaping on a page of a hundred cards)."""
    return html.escape(str(text))


def truncate(text: str, length: int) -> str:
    """``text`` cut to ``length`` characters, the last one an ellipsis (``truncatechars``)."""
    return text if len(text) <= length else text[: length - 1] + "…"


def finding_class(kind: str | None) -> str:
    """The classes of a finding's mark and swatch: its kind's, then its family's when that
    is another (the legend colours families: a figure no evidence gives is an orphan; a
    real value in the wrong place, at the wrong scale or in another role, is close but
    wrong)."""
    slug = re.sub(r"[^a-z0-9]+", "-", (kind or "").lower()).strip("-") or "other"
    family = _FAMILIES.get(kind or "")
    return f"finding--{slug} finding--{family}" if family else f"finding--{slug}"


_FAMILIES = {
    "cannot_verify": "orphan",
    "unsupported_year": "orphan",
    "unsupported_date": "orphan",
    "unsupported_time": "orphan",
    "unsupported_rank": "orphan",
    "unsupported_number_word": "orphan",
    "wrong_scale": "close-but-wrong",
    "number_elsewhere": "close-but-wrong",
    "range_end_number": "close-but-wrong",
}


def confidence(value: float | None) -> str:
    """0.6499 → "0.64"; nothing → an en dash."""
    if value is None:
        return EMPTY
    return format_confidence(value)  # as the attempt's record says it (rounded down)


def confidence_class(value: float | None) -> str:
    if value is None:
        return "conf--none"
    if value >= 0.9:
        return "conf--high"
    if value >= 0.75:
        return "conf--mid"
    return "conf--low"


def compact_json(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def milliseconds(value: float | None) -> str:
    if value is None:
        return EMPTY
    if value >= 10_000:
        return f"{value / 1000:.1f} s"
    return f"{value:.0f} ms"


def humanize_key(value: str) -> str:
    return str(value).replace("_ms", "").replace("_", " ")


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


def readable(text: object) -> str:
    """Plain text with its numbers as people read them (a template filter; autoescaped)."""
    return readable_text(str(text if text is not None else ""))


def tool_output(output: str, expression: str) -> SafeString:
    """A calculator's answer at the precision of its expression's inputs, thousands
    separated, the exact value a click away; any other output as proof text."""
    value = output.strip()
    if not expression or not _NUMERIC.fullmatch(value):
        return short_numbers(output)
    decimals = decimals_written(expression)
    whole, _, fraction = value.lstrip("-").partition(".")
    if len(whole) < 5 and len(fraction) <= decimals:  # already as a person writes it
        return short_numbers(output)
    shown = readable_number(value, decimals)
    if shown.replace(",", "") == value:  # only separated: nothing hidden
        return mark_safe(esc(shown))  # safe: escaped
    return format_html(
        '<button type="button" class="num-exact" data-exact="{}" title="exact: {}"'
        ' aria-label="{} (show the exact value)">{}</button>',
        value,
        value,
        shown,
        shown,
    )


_NUMERIC = re.compile(r"-?\d+(?:\.\d+)?")


def short_numbers(text: str | None) -> SafeString:
    """Proof text with numbers as people read them (``validation.engine.readable``: a
    computed tail rounded away, thousands separated); a rounded number's exact value is one
    click away (a button that reveals it; its title holds it for a hover too)."""
    raw = text if isinstance(text, SafeData) else html.escape(text or "")
    pieces: list[str] = []
    last = 0
    for start, end, shown in readable_spans(raw):
        exact = raw[start:end]
        pieces.append(raw[last:start])
        if shown.replace(",", "") == exact:  # only separated: nothing hidden
            pieces.append(shown)
        else:
            pieces.append(
                format_html(
                    '<button type="button" class="num-exact" data-exact="{}" title="exact: {}"'
                    ' aria-label="{} (show the exact value)">{}</button>',
                    exact,
                    exact,
                    shown,
                    shown,
                )
            )
        last = end
    pieces.append(raw[last:])
    return mark_safe("".join(pieces))
