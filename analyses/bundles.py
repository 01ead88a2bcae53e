"""Bundles: the one input format shared by the REST API, the ``import_bundles`` command and
the ``redline check`` command line (``validation.engine.types.Bundle``).

``bundle_parse`` checks a bundle completely, writing nothing: every problem becomes an
``IngestError`` message that names its field. The size limits live here, once:
``content_bytes`` is how evidence is measured wherever evidence arrives.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any, TypeVar

from django.conf import settings
from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.validators import URLValidator
from pydantic import BaseModel, ValidationError

from analyses.errors import IngestError, MalformedBundle
from validation.engine.fields import extract_fields
from validation.engine.types import MAX_NESTING, Bundle, EvidenceItem

# number is numeric too; a field with any other value goes to extra_fields.
NUMERIC_FIELD_NAMES = frozenset(
    {"intrinsic_value", "fair_value", "target_price", "margin_of_safety", "current_price"}
)
# BUY / WATCH / AVOID, HIGH / MODERATE / LOW, and the like: one short upper-case word or phrase.
_LABEL_RE = re.compile(r"^[A-Z][A-Z0-9 _-]{0,19}$")
_HEADING_RE = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
_SURROGATE_RE = re.compile("[\ud800-\udfff]")
_BOM = b"\xef\xbb\xbf"

_M = TypeVar("_M", bound=BaseModel)

MAX_FIELDS = 100
MAX_FIELD_NAME = 100
MAX_FIELDS_BYTES = 100_000
MAX_GOAL_CHARS = 2_000
# The engine bounds evidence content and fields at MAX_NESTING; bundle -> evidence -> [i] ->
# content adds three levels on top. The scan stops there, so it never recurses further.
MAX_DEPTH = MAX_NESTING + 3
MAX_MESSAGES = 20
# Room for everything in a bundle that is neither body nor evidence (query, goals, fields...).
_OTHER_INPUT_BYTES = 1_000_000


@dataclass
class StructuredFields:
    """A bundle's `fields`, sorted into the Analysis columns they belong to.

    Numeric values are stored as decimal strings (``"195.0"``) so that no precision is lost
    in JSON; read them back with ``Decimal(value)``.
    """

    decision: str = ""
    conviction: str = ""
    numeric: dict[str, str] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)


# ---------------------------------------------------------------- parsing and checks


def bundle_parse(data: Mapping[str, Any] | bytes | str) -> Bundle:
    """Parse and check a bundle without writing anything; every problem becomes an IngestError."""
    raw, from_invalid_utf8 = _load(data)
    if not isinstance(raw, Mapping):
        raise IngestError(f"bundle must be a JSON object, got {_json_type(raw)}")
    problems: list[str] = []
    _scan(raw, "", 0, from_invalid_utf8, problems)
    if problems:
        raise IngestError(problems[:MAX_MESSAGES])
    _check_limits(raw)
    try:
        bundle = Bundle.model_validate(dict(raw))
    except ValidationError as exc:
        raise IngestError(_pydantic_messages(exc)) from None
    problems = _bundle_problems(bundle)
    if problems:
        raise IngestError(problems[:MAX_MESSAGES])
    return bundle


def payload_parse(data: bytes | str, model: type[_M]) -> _M:
    """A JSON request payload other than a bundle (new evidence, a new draft), checked as a
    bundle is: MalformedBundle when it is not JSON; IngestError, naming the field, for what
    no column can hold (NUL, bad Unicode, non-finite numbers, nesting) or `model` refuses."""
    raw, from_invalid_utf8 = _load(data)
    if not isinstance(raw, Mapping):
        raise IngestError(f"request body must be a JSON object, got {_json_type(raw)}")
    problems: list[str] = []
    _scan(raw, "", 0, from_invalid_utf8, problems)
    if problems:
        raise IngestError(problems[:MAX_MESSAGES])
    try:
        return model.model_validate(dict(raw))
    except ValidationError as exc:
        raise IngestError(_pydantic_messages(exc, model)) from None


def bundle_digest(bundle: Bundle) -> str:
    """sha256 of the bundle's content in a canonical JSON form (external_id left out)."""
    canonical = json.dumps(
        bundle.model_dump(mode="json", exclude={"external_id"}),
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def bundle_title(bundle: Bundle) -> str:
    """The bundle's title, else the report's first heading, else the query's first line."""
    title = bundle.title.strip()
    if not title:
        heading = _HEADING_RE.search(bundle.body)
        title = heading.group(1).strip(" *_`") if heading else ""
    if not title:
        title = bundle.query.strip().splitlines()[0]
    return title[:300]


def max_input_bytes() -> int:
    """The most bytes a serialized bundle may have (before its fields are checked one by one)."""
    return (
        settings.REDLINE_MAX_BODY_BYTES + settings.REDLINE_MAX_EVIDENCE_BYTES + _OTHER_INPUT_BYTES
    )


def _load(data: Mapping[str, Any] | bytes | str) -> tuple[Any, bool]:
    """The bundle as Python data, and whether it came from bytes that were not valid UTF-8.

    Invalid UTF-8 is decoded with surrogateescape so that the error can name the field that
    holds the bad bytes instead of only an offset.
    """
    if isinstance(data, Mapping):
        return data, False
    limit = max_input_bytes()
    invalid: UnicodeDecodeError | None = None
    if isinstance(data, bytes | bytearray | memoryview):
        raw = bytes(data)
        if len(raw) > limit:
            raise IngestError(_input_too_large(len(raw), limit))
        raw = raw.removeprefix(_BOM)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            invalid = exc
            text = raw.decode("utf-8", "surrogateescape")
    elif isinstance(data, str):
        # A character is at least one byte, so more characters than the limit is too large.
        if len(data) > limit:
            raise IngestError(_input_too_large(len(data), limit))
        text = data
    else:
        raise IngestError(f"bundle must be a JSON object, got {type(data).__name__}")
    try:
        return json.loads(text, parse_constant=_reject_constant), invalid is not None
    except json.JSONDecodeError as exc:
        if invalid is not None:
            bad = invalid.object[invalid.start]
            raise MalformedBundle(
                f"bundle is not valid UTF-8 (byte 0x{bad:02x} at offset {invalid.start})"
            ) from None
        raise MalformedBundle(
            f"malformed JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from None
    except _NonFiniteNumberError as exc:
        raise MalformedBundle(f"malformed JSON: {exc} is not a valid JSON number") from None
    except RecursionError:
        raise MalformedBundle("malformed JSON: nested too deeply") from None
    except ValueError as exc:  # e.g. an integer with more digits than Python converts
        raise MalformedBundle(f"malformed JSON: {exc}") from None


class _NonFiniteNumberError(ValueError):
    pass


def _reject_constant(name: str) -> Any:
    raise _NonFiniteNumberError(name)


def _input_too_large(size: int, limit: int) -> str:
    return (
        f"bundle: exceeds the {limit}-byte input limit (REDLINE_MAX_BODY_BYTES + "
        f"REDLINE_MAX_EVIDENCE_BYTES + {_OTHER_INPUT_BYTES}); it is {size} bytes"
    )


_TOP_FIELD_RE = re.compile(r"[^.\[]+(?:\[\d+\])?(?:\.[^.\[]+)?")


def _scan(value: Any, path: str, depth: int, from_invalid_utf8: bool, problems: list[str]) -> None:
    """Reject what no database column can hold: bad Unicode, NUL, NaN, non-JSON values."""
    if len(problems) >= MAX_MESSAGES:
        return
    where = path or "bundle"
    if depth > MAX_DEPTH:
        top = _TOP_FIELD_RE.match(where)
        problems.append(
            f"{top.group(0) if top else where}: is nested deeper than {MAX_NESTING} levels"
        )
    elif isinstance(value, str):
        _scan_text(value, where, from_invalid_utf8, problems)
    elif isinstance(value, bool) or value is None or isinstance(value, int):
        return
    elif isinstance(value, float):
        if not math.isfinite(value):
            problems.append(f"{where}: must be a finite number, got {value}")
    elif isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                problems.append(f"{where}: keys must be strings, got {key!r}")
                continue
            _scan_text(key, f"{where} key {key[:40]!r}", from_invalid_utf8, problems)
            _scan(item, f"{path}.{key}" if path else key, depth + 1, from_invalid_utf8, problems)
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            _scan(item, f"{where}[{index}]", depth + 1, from_invalid_utf8, problems)
    else:
        problems.append(f"{where}: a {type(value).__name__} is not a JSON value")


def _scan_text(text: str, where: str, from_invalid_utf8: bool, problems: list[str]) -> None:
    if "\x00" in text:
        problems.append(f"{where}: contains a NUL character")
    bad = _SURROGATE_RE.search(text)
    if bad is None:
        return
    code = ord(bad.group())
    if from_invalid_utf8 and 0xDC80 <= code <= 0xDCFF:
        problems.append(f"{where} is not valid UTF-8 (byte 0x{code - 0xDC00:02x})")
    else:
        problems.append(
            f"{where}: contains an unpaired surrogate (U+{code:04X}), not valid Unicode"
        )


def _check_limits(raw: Mapping[str, Any]) -> None:
    body = raw.get("body")
    if isinstance(body, str):
        size = len(body.encode("utf-8"))
        limit = settings.REDLINE_MAX_BODY_BYTES
        if size > limit:
            raise IngestError(
                f"body: exceeds the {limit}-byte limit (settings.REDLINE_MAX_BODY_BYTES); "
                f"it is {size} bytes"
            )
    evidence = raw.get("evidence")
    if isinstance(evidence, list):
        size = sum(
            content_bytes(item.get("content")) for item in evidence if isinstance(item, Mapping)
        )
        limit = settings.REDLINE_MAX_EVIDENCE_BYTES
        if size > limit:
            raise IngestError(
                f"evidence: exceeds the {limit}-byte limit in total "
                f"(settings.REDLINE_MAX_EVIDENCE_BYTES); it is {size} bytes"
            )


def content_bytes(content: Any) -> int:
    """The size of one evidence item's content: UTF-8 bytes of its text, or of its JSON.

    The one size rule of evidence, checked against ``settings.REDLINE_MAX_EVIDENCE_BYTES``
    in total, wherever evidence arrives (a bundle, new evidence for an analysis).
    """
    if isinstance(content, str):
        return len(content.encode("utf-8", "surrogatepass"))
    if isinstance(content, dict | list):
        return len(json.dumps(content, ensure_ascii=False).encode("utf-8", "surrogatepass"))
    return 0


def _pydantic_messages(exc: ValidationError, top: type[BaseModel] = Bundle) -> list[str]:
    messages: list[str] = []
    for error in exc.errors():
        loc = tuple(error["loc"])
        if len(loc) > 3 and loc[0] == "evidence" and loc[2] == "content":
            # One message for the union, not one per member type it failed.
            message = f"{_path(loc[:3])}: must be text or JSON (an object or an array)"
        elif error["type"] == "missing":
            message = f"{_path(loc)}: field required"
        elif error["type"] == "string_too_short" and error.get("ctx", {}).get("min_length") == 1:
            message = f"{_path(loc)}: must not be blank"
        elif error["type"] == "extra_forbidden":
            model: type[BaseModel] = EvidenceItem if loc[0] == "evidence" else top
            allowed = ", ".join(model.model_fields)
            message = f"{_path(loc)}: unknown field (allowed: {allowed})"
        else:
            text = str(error["msg"]).removeprefix("Value error, ")
            text = text[:1].lower() + text[1:]
            message = f"{_path(loc)}: {text}" if loc else text
        if message not in messages:
            messages.append(message)
    return messages[:MAX_MESSAGES]


def _path(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _bundle_problems(bundle: Bundle) -> list[str]:
    problems: list[str] = []
    if not bundle.query.strip():
        problems.append("query: must not be blank")
    if not bundle.body.strip():
        problems.append("body: must not be blank")
    for index, goal in enumerate(bundle.goals):
        if not goal.strip():
            problems.append(f"goals[{index}]: must not be blank")
        elif len(goal) > MAX_GOAL_CHARS:
            problems.append(f"goals[{index}]: at most {MAX_GOAL_CHARS} characters")
    if bundle.external_id is not None and bundle.external_id != bundle.external_id.strip():
        problems.append("external_id: must not start or end with whitespace")
    url_valid = URLValidator(schemes=["http", "https"])
    for index, item in enumerate(bundle.evidence):
        if item.url:
            try:
                url_valid(item.url)
            except DjangoValidationError:
                problems.append(f"evidence[{index}].url: {item.url[:200]!r} is not a valid URL")
        if isinstance(item.content, str) and not item.content.strip():
            problems.append(f"evidence[{index}].content: must not be empty")
    if len(bundle.fields) > MAX_FIELDS:
        problems.append(f"fields: at most {MAX_FIELDS} fields, got {len(bundle.fields)}")
    fields_size = len(json.dumps(bundle.fields, ensure_ascii=False).encode("utf-8"))
    if fields_size > MAX_FIELDS_BYTES:
        problems.append(f"fields: at most {MAX_FIELDS_BYTES} bytes of JSON, got {fields_size}")
    for name in bundle.fields:
        if not name.strip() or len(name) > MAX_FIELD_NAME:
            problems.append(f"fields: {name[:40]!r} is not a field name (1-100 characters)")
    problems.extend(_sort_fields(bundle.fields)[1])
    return problems


# ---------------------------------------------------------------- structured fields


def structured_fields(bundle: Bundle) -> StructuredFields:
    """Sort the bundle's fields into decision, conviction, numeric and extra fields.

    Fields the bundle does not send are read from the report body (``FINAL DECISION:`` etc.);
    fields it sends win over what the body says.
    """
    out, problems = _sort_fields(bundle.fields)
    if problems:
        raise IngestError(problems)

    extracted = extract_fields(bundle.body)
    if not out.decision and extracted.decision and _LABEL_RE.match(extracted.decision.upper()):
        out.decision = extracted.decision.upper()
    if (
        not out.conviction
        and extracted.conviction
        and _LABEL_RE.match(extracted.conviction.upper())
    ):
        out.conviction = extracted.conviction.upper()
    for name, number in extracted.numeric.items():
        if name not in out.numeric and name not in out.extra and number.is_finite():
            out.numeric[name] = str(number)
    return out


def _sort_fields(fields: Mapping[str, Any]) -> tuple[StructuredFields, list[str]]:
    problems: list[str] = []
    out = StructuredFields()
    for name, value in fields.items():
        if name in ("decision", "conviction"):
            label = value.strip().upper() if isinstance(value, str) else None
            if label is None or not _LABEL_RE.match(label):
                example = "BUY, WATCH or AVOID" if name == "decision" else "HIGH, MODERATE or LOW"
                problems.append(f"fields.{name}: must be a short label such as {example}")
            else:
                setattr(out, name, label)
        elif name in NUMERIC_FIELD_NAMES or _is_number(value):
            number = _decimal(value)
            if number is None:
                problems.append(f"fields.{name}: must be a number")
            else:
                out.numeric[name] = str(number)
        else:
            out.extra[name] = value
    return out, problems


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _decimal(value: Any) -> Decimal | None:
    """A finite Decimal from a JSON number or a numeric string, else None."""
    if _is_number(value):
        number = Decimal(repr(value)) if isinstance(value, float) else Decimal(value)
    elif isinstance(value, str):
        try:
            number = Decimal(value.strip().replace(",", ""))
        except InvalidOperation:
            return None
    else:
        return None
    return number if number.is_finite() else None


def _json_type(value: Any) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    return "null" if value is None else type(value).__name__
