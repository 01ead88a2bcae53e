"""The OpenAPI schema of the request bodies, with every rule the API applies to them.

The bodies are parsed by ``analyses.bundles`` (the engine's bundle model and input rules,
``validation.engine.intake``), not by django-ninja, so their schema is the bundle model's
JSON schema with the rules its validators hold written in: no NUL character in any string
or key, at any depth; no blank text where text is required; http(s) URLs; trimmed
external ids; the field labels and numbers; the byte limit of a body. A rule JSON Schema
cannot say (each evidence ``source_ref`` used once, nesting at most 64 levels, byte totals
of the evidence and the fields) is in the description. ``tests/validation/api`` runs
schemathesis with all its checks against this schema and the running API.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings

from validation.engine.limits import (
    MAX_FIELD_NAME,
    MAX_FIELDS,
    MAX_FIELDS_BYTES,
    MAX_GOAL_CHARS,
    MAX_NESTING,
    NUMERIC_FIELD_NAMES,
)

# ECMA-262 patterns, as OpenAPI asks. Whitespace and digits are spelled out, not `\s` and
# `\d` (which ECMA-262 and Python read differently): _WS is what str.strip() strips and _DIGIT
# what Decimal reads as a digit (str.isdecimal, in the Basic Multilingual Plane), the sets
# the rules use; tests/validation/api/test_schema_rules checks each pattern against its rule.
_WS = "\u0009-\u000d\u001c-\u0020\u0085\u00a0\u1680\u2000-\u200a\u2028-\u2029\u202f\u205f\u3000"
_DIGIT = (
    "\u0030-\u0039\u0660-\u0669\u06f0-\u06f9\u07c0-\u07c9\u0966-\u096f\u09e6-\u09ef"
    "\u0a66-\u0a6f\u0ae6-\u0aef\u0b66-\u0b6f\u0be6-\u0bef\u0c66-\u0c6f\u0ce6-\u0cef"
    "\u0d66-\u0d6f\u0de6-\u0def\u0e50-\u0e59\u0ed0-\u0ed9\u0f20-\u0f29\u1040-\u1049"
    "\u1090-\u1099\u17e0-\u17e9\u1810-\u1819\u1946-\u194f\u19d0-\u19d9\u1a80-\u1a89"
    "\u1a90-\u1a99\u1b50-\u1b59\u1bb0-\u1bb9\u1c40-\u1c49\u1c50-\u1c59\ua620-\ua629"
    "\ua8d0-\ua8d9\ua900-\ua909\ua9d0-\ua9d9\ua9f0-\ua9f9\uaa50-\uaa59\uabf0-\uabf9"
    "\uff10-\uff19"
)
NO_NUL = r"^[^\x00]*$"
NOT_BLANK = r"^[^\x00]*[^" + _WS + r"\x00][^\x00]*$"  # some character not whitespace, no NUL
# No whitespace at either end, no NUL. `(?!\n)`: Python's `$` also matches before a last "\n".
TRIMMED = r"^(?:[^" + _WS + r"\x00](?:[^\x00]*[^" + _WS + r"\x00])?)?(?!\n)$"
# types._is_http_url after strip(), or nothing (blank: no URL): http(s), a host, a port of
# 0-65535, no whitespace or control character.
_PORT = (
    r"(?::0*(?:[0-9]{1,4}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?"
)
HTTP_URL = (
    r"^["
    + _WS
    + r"]*(?:[Hh][Tt][Tt][Pp][Ss]?://[^"
    + _WS
    + r"\x00-\x1f/?#@:\[\]]+"
    + _PORT
    + r"(?:[/?#][^"
    + _WS
    + r"\x00-\x1f]*)?)?["
    + _WS
    + r"]*$"
)
# types.FIELD_LABEL_RE after strip() and upper() (U+0131 and U+017F upper-case to I and S;
# the eight letters whose upper case is two or three letters, such as "ß", are left out).
FIELD_LABEL = (
    r"^[" + _WS + r"]*[A-Za-z\u0131\u017f][A-Za-z0-9 _\-\u0131\u017f]{0,19}[" + _WS + r"]*$"
)
# types.field_number on text: strip, drop commas, then a finite decimal (Decimal drops "_").
_DIGITS = r"(?:[" + _DIGIT + r"][,_]*)+"
NUMBER_TEXT = (
    r"^["
    + _WS
    + r",]*[,_]*[+-]?[,_]*(?:"
    + _DIGITS
    + r"(?:\.[,_]*(?:"
    + _DIGITS
    + r")?)?|\.[,_]*"
    + _DIGITS
    # An exponent of up to 15 digits: with up to 1,000 characters before it, Decimal's limit
    # (adjusted exponents below 10**18) always holds.
    + r")(?:[eE][,_]*[+-]?(?:[,_]*["
    + _DIGIT
    + r"]){1,15}[,_]*)?["
    + _WS
    + r",]*$"
)

JSON_VALUE_REF = {"$ref": "#/components/schemas/JsonValue"}
# Any JSON value whose strings and keys hold no NUL character.
JSON_VALUE: dict[str, Any] = {
    "description": "Any JSON value; no string or key holds a NUL character.",
    "anyOf": [
        {"type": "string", "pattern": NO_NUL},
        {"type": "number"},
        {"type": "boolean"},
        {"type": "null"},
        {"type": "array", "items": JSON_VALUE_REF},
        {
            "type": "object",
            "propertyNames": {"pattern": NO_NUL},
            "additionalProperties": JSON_VALUE_REF,
        },
    ],
}
COMPONENTS = {"JsonValue": JSON_VALUE}


def _text(**rules: Any) -> dict[str, Any]:
    return {"type": "string", **rules}


def _evidence_item() -> dict[str, Any]:
    return {
        "type": "object",
        "additionalProperties": False,
        "description": "One piece of evidence: a tool output, a workflow result, gathered "
        "context. Its content is text or JSON (an object or an array) nested at most "
        f"{MAX_NESTING} levels.",
        "required": ["source_ref", "content"],
        "properties": {
            "source_ref": _text(minLength=1, maxLength=200, pattern=NOT_BLANK),
            "kind": _text(minLength=1, maxLength=40, pattern=NOT_BLANK, default="text"),
            "url": {
                "anyOf": [_text(maxLength=2000, pattern=HTTP_URL), {"type": "null"}],
                "default": None,
                "description": "An absolute http(s) URL.",
            },
            "content": {
                "anyOf": [
                    _text(pattern=NOT_BLANK),
                    {
                        "type": "object",
                        "propertyNames": {"pattern": NO_NUL},
                        "additionalProperties": JSON_VALUE_REF,
                    },
                    {"type": "array", "items": JSON_VALUE_REF},
                ]
            },
        },
    }


def _evidence(min_items: int) -> dict[str, Any]:
    return {
        "type": "array",
        "items": _evidence_item(),
        "minItems": min_items,
        "maxItems": 500,
        "description": "Each source_ref is used once; all contents together are at most "
        f"REDLINE_MAX_EVIDENCE_BYTES ({settings.REDLINE_MAX_EVIDENCE_BYTES}) bytes of UTF-8 "
        "(text) or compact JSON.",
    }


def _body_text() -> dict[str, Any]:
    limit = settings.REDLINE_MAX_BODY_BYTES
    return _text(
        minLength=1,
        maxLength=limit,
        pattern=NOT_BLANK,
        description=f"The report (Markdown): at most REDLINE_MAX_BODY_BYTES ({limit}) bytes of "
        "UTF-8.",
    )


def _fields() -> dict[str, Any]:
    numbers = {
        name: {
            "anyOf": [{"type": "number"}, _text(maxLength=1000, pattern=NUMBER_TEXT)],
            "description": 'A number, or a number written as text ("1,104.20").',
        }
        for name in sorted(NUMERIC_FIELD_NAMES)
    }
    label = _text(pattern=FIELD_LABEL, description="A short label: BUY, WATCH, HIGH, ...")
    return {
        "type": "object",
        "maxProperties": MAX_FIELDS,
        "propertyNames": {"minLength": 1, "maxLength": MAX_FIELD_NAME, "pattern": NOT_BLANK},
        "properties": {"decision": label, "conviction": label, **numbers},
        "additionalProperties": JSON_VALUE_REF,
        "default": {},
        "description": f"Structured fields: at most {MAX_FIELDS}, {MAX_FIELDS_BYTES} bytes of "
        f"JSON, nested at most {MAX_NESTING} levels; a field sent as a JSON number is finite.",
    }


def bundle_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "title": "Bundle",
        "additionalProperties": False,
        "description": "An analysis bundle: a report with the query it answers and the "
        "evidence it was written from (the format `redline check` and import_bundles read).",
        "required": ["query", "body"],
        "properties": {
            "query": _text(minLength=1, maxLength=20_000, pattern=NOT_BLANK),
            "goals": {
                "type": "array",
                "maxItems": 20,
                "items": _text(minLength=1, maxLength=MAX_GOAL_CHARS, pattern=NOT_BLANK),
                "default": [],
            },
            "title": _text(maxLength=300, pattern=NO_NUL, default=""),
            "body": _body_text(),
            "fields": _fields(),
            "evidence": _evidence(0) | {"default": []},
            "external_id": {
                "anyOf": [_text(maxLength=200, pattern=TRIMMED), {"type": "null"}],
                "default": None,
                "description": "Your id for this report: the same bundle again under it is a "
                "200 with the same analysis, other content a 409.",
            },
        },
    }


def evidence_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "title": "EvidenceIn",
        "additionalProperties": False,
        "required": ["evidence"],
        "properties": {"evidence": _evidence(1)},
    }


def draft_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "title": "DraftIn",
        "additionalProperties": False,
        "required": ["body"],
        "properties": {"body": _body_text()},
    }


def operation_id(endpoint: str) -> str:
    """The OpenAPI operationId of an endpoint function: stable, whatever module holds it
    (clients and the links below name operations by it)."""
    return f"validation_api_{endpoint}"


# What a client does next with the analysis an ingest answers (OpenAPI links).
ANALYSIS_LINKS = {
    name: {
        "operationId": operation_id(endpoint),
        "parameters": {"analysis_id": "$response.body#/id"},
    }
    for name, endpoint in (
        ("GetAnalysis", "analysis_get"),
        ("AddEvidence", "analysis_evidence"),
        ("NewDraft", "analysis_draft"),
        ("ExportAnalysis", "analysis_export"),
    )
}

# The headers some answers carry, on every operation.
_RETRY_AFTER = {"Retry-After": {"schema": {"type": "string"}, "description": "Seconds to wait."}}
COMMON_RESPONSES: dict[int, Any] = {
    401: {"headers": {"WWW-Authenticate": {"schema": {"type": "string"}}}},
    429: {"headers": _RETRY_AFTER},
    503: {"headers": _RETRY_AFTER},
}
ERROR_STATUSES = (400, 401, 403, 404, 409, 411, 413, 414, 422, 429, 500, 503)
ERROR_DESCRIPTIONS = {
    400: "Not JSON, or a value no column can store (a NUL character anywhere, bad Unicode), "
    "or a query parameter given more than once",
    401: "No token, or one that is unknown, revoked, or whose user is inactive",
    403: "A read token on a write",
    404: "No such analysis, or someone else's",
    409: "A state that does not allow it (an export of an unapproved analysis, a RETRY "
    "submission the loop limits refuse), or an external_id re-sent with other content",
    411: "A chunked body the server in front did not terminate",
    413: "A body over the input limit (REDLINE_MAX_BODY_BYTES + REDLINE_MAX_EVIDENCE_BYTES + "
    "1 MB), refused before it is read",
    414: "A request line over the web server's limit (gunicorn: 4,094 bytes); not JSON",
    422: "A bundle the rules refuse, or a parameter out of its range: each problem names its field",
    429: "Over the token's per-minute rate (Policy.api_rate_per_minute)",
    500: "A fault of ours, logged",
    503: "The database (or the broker) is unavailable: retry after Retry-After seconds",
}


def operation(
    *, body: dict[str, Any] | None = None, responses: dict[int, Any] | None = None
) -> dict[str, Any]:
    """`openapi_extra` of an operation: its request body (read by the operation itself), the
    descriptions and headers of its error answers, and `responses` of its own."""
    merged: dict[int, Any] = {
        status: {"description": ERROR_DESCRIPTIONS[status], **COMMON_RESPONSES.get(status, {})}
        for status in ERROR_STATUSES
    }
    for status, own in (responses or {}).items():
        merged[status] = {**merged.get(status, {}), **own}
    result: dict[str, Any] = {"responses": merged}
    if body is not None:
        result["requestBody"] = {
            "required": True,
            "content": {"application/json": {"schema": body}},
        }
    return result
