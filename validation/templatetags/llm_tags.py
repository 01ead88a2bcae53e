"""What the Attempts tab shows of each LLM call. A pure filter: whether an endpoint is
configured is the page's to say (``validation.web.presenters.llm_endpoint_shown``)."""

from __future__ import annotations

import json
from typing import Any

from django import template

register = template.Library()


@register.filter
def pretty_json(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, indent=1)
