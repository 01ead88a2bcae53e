"""What the Attempts tab shows of the LLM path: is an endpoint configured, and each call."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

from django import template

register = template.Library()


@register.simple_tag
def llm_endpoint() -> dict[str, str]:
    """``{"model": ..., "host": ...}`` of the endpoint attempts use now; {} when there is none
    (validation is deterministic) or its settings cannot be read."""
    from validation.models import Policy
    from validation.services.llm import llm_settings

    try:
        settings = llm_settings(Policy.load())
    except ValueError:
        return {}
    if settings is None:
        return {}
    return {"model": settings.model, "host": urlsplit(settings.base_url).netloc}


@register.filter
def pretty_json(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, indent=1)
