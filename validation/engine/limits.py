"""Input limits and the rules a bundle's values obey: sizes, nesting, goals, URLs and
the structured fields (numeric field names and their values).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Annotated, Any
from urllib.parse import urlsplit

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
)

MAX_BODY_CHARS = 1_000_000
MAX_TEXT = 100_000
# Real tool outputs nest a few levels; a deeper document is refused at the door rather than
# walked (a recursion bomb is a bad input, not an engine failure).
MAX_NESTING = 64

# ---- the input rules every bundle meets, whoever sends it (REST API, import_bundles,
# `redline check`). The byte limits are REDLINE_MAX_BODY_BYTES / REDLINE_MAX_EVIDENCE_BYTES:
# Django settings for ingest, the environment for the command line (InputLimits.from_env).
DEFAULT_MAX_BODY_BYTES = 200_000
DEFAULT_MAX_EVIDENCE_BYTES = 5_000_000
# Room for everything in a bundle that is neither body nor evidence (query, goals, fields...).
OTHER_INPUT_BYTES = 1_000_000
MAX_FIELDS = 100
MAX_FIELD_NAME = 100
MAX_FIELDS_BYTES = 100_000
MAX_GOAL_CHARS = 2_000
# Structured fields that must hold a number when a bundle sends them: the numeric fields the
# engine re-reads from a report (validation.engine.fields).
NUMERIC_FIELD_NAMES = frozenset(
    {"intrinsic_value", "fair_value", "target_price", "margin_of_safety", "current_price"}
)
# BUY / WATCH / AVOID, HIGH / MODERATE / LOW, and the like: one short upper-case word or phrase.
FIELD_LABEL_RE = re.compile(r"^[A-Z][A-Z0-9 _-]{0,19}$")
_LABEL_EXAMPLES = {"decision": "BUY, WATCH or AVOID", "conviction": "HIGH, MODERATE or LOW"}


class InputLimits(BaseModel):
    """The byte limits of a bundle, checked when they are passed as validation context:
    ``Bundle.model_validate(data, context={"limits": limits})``. Every input path does
    (``intake.read_bundle``); a Bundle the server rebuilds from stored rows is not measured
    again, so lowering a limit never breaks the validation of what was already accepted."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    body_bytes: int = Field(default=DEFAULT_MAX_BODY_BYTES, ge=1)
    evidence_bytes: int = Field(default=DEFAULT_MAX_EVIDENCE_BYTES, ge=1)

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> InputLimits:
        values: dict[str, int] = {}
        for name, key in (
            ("body_bytes", "REDLINE_MAX_BODY_BYTES"),
            ("evidence_bytes", "REDLINE_MAX_EVIDENCE_BYTES"),
        ):
            raw = environ.get(key, "").strip()
            if raw:
                try:
                    values[name] = int(raw)
                except ValueError:
                    message = f"{key} must be a whole number of bytes, got {raw!r}"
                    raise ValueError(message) from None
        return cls(**values)

    @property
    def input_bytes(self) -> int:
        """The most bytes a serialized bundle may have before its parts are measured."""
        return self.body_bytes + self.evidence_bytes + OTHER_INPUT_BYTES


def _limits(info: ValidationInfo) -> InputLimits | None:
    context = info.context if isinstance(info.context, Mapping) else {}
    limits = context.get("limits")
    return limits if isinstance(limits, InputLimits) else None


def _nesting_depth(value: Any) -> int:
    """Depth of nested lists/dicts, computed without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict | list):
            depth += 1
            if depth > MAX_NESTING:
                return depth
            deepest = max(deepest, depth)
            children = node.values() if isinstance(node, dict) else node
            stack.extend((child, depth) for child in children)
    return deepest


def _check_nesting(value: Any) -> Any:
    if _nesting_depth(value) > MAX_NESTING:
        raise ValueError(f"is nested deeper than {MAX_NESTING} levels")
    return value


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be blank")
    return value


def _goal(value: str) -> str:
    _not_blank(value)
    if len(value) > MAX_GOAL_CHARS:
        raise ValueError(f"at most {MAX_GOAL_CHARS} characters")
    return value


NonBlank = Annotated[str, AfterValidator(_not_blank)]
Goal = Annotated[str, AfterValidator(_goal)]


def _is_http_url(url: str) -> bool:
    """An absolute http(s) URL with a host and no whitespace or control characters."""
    if any(char.isspace() or ord(char) < 32 for char in url):
        return False
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises on a malformed port
    except ValueError:
        return False
    return parts.scheme.lower() in ("http", "https") and bool(parts.hostname)


def json_size(value: Any) -> int:
    """Bytes of `value` as compact JSON text (text as its UTF-8 bytes)."""
    if isinstance(value, str):
        return len(value.encode("utf-8", "surrogatepass"))
    return len(json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass"))


def field_number(value: Any) -> Decimal | None:
    """A finite Decimal from a JSON number or a numeric string ("1,104.20"), else None."""
    if isinstance(value, bool):
        return None
    try:
        if isinstance(value, float):
            number = Decimal(repr(value))
        elif isinstance(value, int | Decimal):
            number = Decimal(value)
        elif isinstance(value, str) and len(value) <= 1_000:
            number = Decimal(value.strip().replace(",", ""))
        else:
            return None
    except (InvalidOperation, ValueError):
        return None
    return number if number.is_finite() else None


def _numeric_field(name: str, value: Any) -> bool:
    return name in NUMERIC_FIELD_NAMES or (
        isinstance(value, int | float) and not isinstance(value, bool)
    )


def field_problems(fields: Mapping[str, Any]) -> list[str]:
    """``decision`` and ``conviction`` are short labels; the numeric fields, and any field
    sent as a JSON number, are finite numbers."""
    problems: list[str] = []
    for name, value in fields.items():
        if name in _LABEL_EXAMPLES:
            label = value.strip().upper() if isinstance(value, str) else ""
            if not FIELD_LABEL_RE.match(label):
                problems.append(
                    f"fields.{name}: must be a short label such as {_LABEL_EXAMPLES[name]}"
                )
        elif _numeric_field(name, value) and field_number(value) is None:
            problems.append(f"fields.{name}: must be a number")
    return problems
