"""Schemathesis hooks for test_schemathesis_run: the API's rules that JSON Schema cannot say.

The schema says them in words (validation/api/schema.py): each evidence source_ref is used
once, and a report body is at most REDLINE_MAX_BODY_BYTES bytes of UTF-8 (its maxLength
counts characters). Generated bodies that break them are left out rather than sent as
"valid" data the API must refuse."""

from __future__ import annotations

from typing import Any

import schemathesis

BODY_BYTES = 200_000  # REDLINE_MAX_BODY_BYTES's default, as the test server runs


@schemathesis.hook
def filter_body(ctx: Any, body: Any) -> bool:
    if not isinstance(body, dict):
        return True
    evidence = body.get("evidence")
    if isinstance(evidence, list):
        refs = [item.get("source_ref") for item in evidence if isinstance(item, dict)]
        refs = [ref.strip() for ref in refs if isinstance(ref, str)]
        if len(refs) != len(set(refs)):
            return False
    text = body.get("body")
    return not (isinstance(text, str) and len(text.encode("utf-8", "surrogatepass")) > BODY_BYTES)
