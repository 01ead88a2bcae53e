"""The fixer's last answer as JSON, for endpoints that follow a JSON schema (``response_format``
json_schema / json_object): a small model rarely writes ``<FIX>`` blocks in free text, but a
grammar-constrained decoder keeps it to this shape. The answer is turned into the same
``<FIX>`` blocks the text protocol uses, so one parser and one checker see every fix."""

from __future__ import annotations

import json
import re
from typing import Any

from validation.engine.llm.settings import LLMSettings

FIXES_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "fixes": {
            "type": "array",
            # A small model repeats one fix until the answer is cut; five fit any answer.
            "maxItems": 5,
            "items": {
                "type": "object",
                "properties": {
                    "find": {"type": "string"},
                    "replace": {"type": "string"},
                    "verified_with": {"type": "string"},
                    "confidence": {"type": "number", "enum": [0.2, 0.4, 0.6, 0.8, 0.9, 1]},
                },
                "required": ["find", "replace", "verified_with", "confidence"],
            },
        },
        "final_decision": {"type": "string", "enum": ["BUY", "WATCH", "AVOID", "NONE"]},
        "final_conviction": {"type": "string", "enum": ["HIGH", "MODERATE", "LOW"]},
    },
    "required": ["fixes", "final_decision", "final_conviction"],
}

ASK = (
    "No more tool calls. Answer now with one JSON object: "
    '{"fixes": [{"find": exact text from the report, "replace": the corrected text, '
    '"verified_with": the tool call and what it returned, "confidence": 0.2-1}], '
    '"final_decision": ..., "final_conviction": ...}. An empty "fixes" list if nothing '
    "can be fixed with what the tools returned."
)


def fixes_format(settings: LLMSettings) -> dict[str, Any] | None:
    """The response_format of the fixer's last turn, or None (free text, ``<FIX>`` blocks)."""
    if settings.response_format == "json_schema":
        return {
            "type": "json_schema",
            "json_schema": {"name": "redline_fixes", "schema": FIXES_SCHEMA, "strict": False},
        }
    if settings.response_format == "json_object":
        return {"type": "json_object", "schema": FIXES_SCHEMA}
    return None


def as_fix_blocks(text: str) -> str:
    """``<FIX>`` blocks and FINAL lines from a JSON answer; ``text`` itself when it is not
    one (then the text parser reports what it finds, malformed blocks included)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return text
    if not isinstance(data, dict) or not isinstance(data.get("fixes"), list):
        return text
    blocks = []
    for item in data["fixes"][:50]:
        if not isinstance(item, dict):
            continue
        confidence = item.get("confidence")
        attrs = f' confidence="{confidence}"' if isinstance(confidence, int | float) else ""
        blocks.append(
            f"<FIX{attrs}>\n<FIND>{_text(item.get('find'))}</FIND>\n"
            f"<REPLACE>{_text(item.get('replace'))}</REPLACE>\n"
            f"<VERIFIED_WITH>{_text(item.get('verified_with'))}</VERIFIED_WITH>\n</FIX>"
        )
    decision = data.get("final_decision")
    if isinstance(decision, str) and decision.strip() and decision.strip().upper() != "NONE":
        blocks.append(f"FINAL DECISION: {decision.strip()}")
    conviction = data.get("final_conviction")
    if isinstance(conviction, str) and conviction.strip():
        blocks.append(f"FINAL CONVICTION: {conviction.strip()}")
    return "\n".join(blocks)


_TAG = re.compile(r"</?\s*(?:FIX|FIND|REPLACE|VERIFIED_WITH)\b", re.IGNORECASE)


def _text(value: Any) -> str:
    # A value that holds a block's tag would open or close a block: it is dropped (the
    # parser then reports the block as malformed).
    if not isinstance(value, str) or _TAG.search(value):
        return ""
    return value
