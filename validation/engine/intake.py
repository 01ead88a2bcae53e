"""Reading a bundle: the one set of input rules for every way a bundle comes in.

The REST API and ``import_bundles`` (through ``analyses.services.bundle_parse``) and the
``redline check`` command line all call :func:`read_bundle`, so they refuse the same inputs
with the same messages. In order, each step only on what passed the one before:

1. size: bytes or text longer than ``InputLimits.input_bytes`` are refused unread;
2. JSON: UTF-8 (a bad byte inside a string is reported with the field that holds it),
   no ``NaN``/``Infinity``, integers within Python's integer-string limit (a longer one is
   a field error, not a ``ValueError`` traceback), nesting a parser can handle;
3. values no database column can hold: NUL characters, unpaired surrogates, numbers that
   are not finite (``1e999``), non-JSON values, nesting deeper than ``MAX_NESTING``;
4. the :class:`~validation.engine.types.Bundle` model with the byte limits as context:
   types, blanks, sizes, URLs, field labels and numbers, unique ``source_ref``.

Every problem becomes one line of :class:`BundleError`, named by its path
(``evidence[0].content.roic: must be a finite number``).
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ValidationError

from validation.engine.errors import EngineError
from validation.engine.limits import MAX_NESTING, InputLimits, json_size
from validation.engine.types import Bundle, EvidenceItem

MAX_MESSAGES = 20
# bundle -> evidence -> [i] -> content adds three levels on top of the content's own nesting.
_MAX_DEPTH = MAX_NESTING + 3
_SURROGATE_RE = re.compile("[\ud800-\udfff]")
_TOP_FIELD_RE = re.compile(r"[^.\[]+(?:\[\d+\])?(?:\.[^.\[]+)?")
_BOM = b"\xef\xbb\xbf"


class BundleError(EngineError, ValueError):
    """A bundle that breaks the input rules; ``errors`` has one line per problem."""

    def __init__(self, errors: str | Sequence[str]) -> None:
        self.errors = [errors] if isinstance(errors, str) else list(errors)[:MAX_MESSAGES]
        super().__init__("; ".join(self.errors))


class UnstorableValue(BundleError):
    """JSON that parsed but holds what no column can store (step 3: NUL, bad Unicode,
    non-finite numbers, too-long integers, nesting): malformed input, as bad JSON is."""


class TooLongInteger:
    """A JSON integer with more digits than Python converts (``sys.get_int_max_str_digits``);
    kept as a marker so that step 3 can name the field that holds it."""

    def __init__(self, digits: int) -> None:
        self.digits = digits


def read_bundle(data: Mapping[str, Any] | bytes | str, limits: InputLimits) -> Bundle:
    """Parse and check a bundle; every problem is a :class:`BundleError`."""
    raw, from_invalid_utf8 = load_json(data, limits)
    return check_bundle(raw, from_invalid_utf8, limits)


def check_bundle(raw: Any, from_invalid_utf8: bool, limits: InputLimits) -> Bundle:
    """Check parsed JSON (from :func:`load_json`) as a bundle; problems are a BundleError."""
    if not isinstance(raw, Mapping):
        raise BundleError(f"bundle must be a JSON object, got {_json_type(raw)}")
    problems: list[str] = []
    _scan(raw, "", 0, from_invalid_utf8, problems)
    if problems:
        raise UnstorableValue(problems)
    try:
        return Bundle.model_validate(dict(raw), context={"limits": limits})
    except ValidationError as error:
        raise BundleError(validation_messages(error)) from None


def payload_problems(raw: Mapping[str, Any], from_invalid_utf8: bool) -> list[str]:
    """What no stored column can hold in a JSON payload other than a bundle (NUL, bad
    Unicode, too-long integers, nesting), each naming its field."""
    problems: list[str] = []
    _scan(raw, "", 0, from_invalid_utf8, problems)
    return problems


def body_problems(body: Any, limits: InputLimits) -> list[str]:
    """The rules for a report body sent on its own (a new draft)."""
    if not isinstance(body, str):
        return ["body: must be text"]
    problems: list[str] = []
    _scan_text(body, "body", False, problems)
    if problems:
        return problems
    return _field_messages(Bundle, {"query": "-", "body": body}, limits, keep=("body",))


def evidence_problems(evidence: Iterable[EvidenceItem], limits: InputLimits) -> list[str]:
    """The rules for evidence items sent on their own (new evidence)."""
    items = [item.model_dump() for item in evidence]
    if not items:
        return ["evidence: send at least one evidence item"]
    problems: list[str] = []
    _scan(items, "evidence", 1, False, problems)
    if problems:
        return problems
    data = {"query": "-", "body": "-", "evidence": items}
    return _field_messages(Bundle, data, limits, keep=("evidence",))


def _field_messages(
    model: type[BaseModel], data: dict[str, Any], limits: InputLimits, *, keep: Sequence[str]
) -> list[str]:
    try:
        model.model_validate(data, context={"limits": limits})
    except ValidationError as error:
        return [m for m in validation_messages(error) if m.startswith(tuple(keep))]
    return []


# ---------------------------------------------------------------- JSON


class _DuplicateKeyError(EngineError, ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # JSON leaves a repeated key undefined (most parsers keep the last): a pipeline and a
    # reviewer could read two different bundles from one body. Refused, naming the key.
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise _DuplicateKeyError(key)
        found[key] = value
    return found


def load_json(data: Mapping[str, Any] | bytes | str, limits: InputLimits) -> tuple[Any, bool]:
    """The bundle as Python data, and whether it came from bytes that were not valid UTF-8.

    Invalid UTF-8 is decoded with surrogateescape so that the error can name the field that
    holds the bad bytes instead of only an offset.
    """
    if isinstance(data, Mapping):
        return data, False
    limit = limits.input_bytes
    invalid: UnicodeDecodeError | None = None
    if isinstance(data, bytes | bytearray | memoryview):
        raw = bytes(data)
        if len(raw) > limit:
            raise BundleError(_input_too_large(len(raw), limit))
        raw = raw.removeprefix(_BOM)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            invalid = exc
            text = raw.decode("utf-8", "surrogateescape")
    elif isinstance(data, str):
        # A character is at least one byte, so more characters than the limit is too large.
        if len(data) > limit:
            raise BundleError(_input_too_large(len(data), limit))
        text = data
    else:
        raise BundleError(f"bundle must be a JSON object, got {type(data).__name__}")
    try:
        return (
            json.loads(
                text,
                parse_constant=_reject_constant,
                parse_int=_parse_int,
                object_pairs_hook=_unique_keys,
            ),
            invalid is not None,
        )
    except _DuplicateKeyError as exc:
        raise BundleError(
            f"duplicate key {json.dumps(exc.key[:100], ensure_ascii=False)} in a JSON object: "
            "send each key once"
        ) from None
    except json.JSONDecodeError as exc:
        if invalid is not None:
            bad = invalid.object[invalid.start]
            raise BundleError(
                f"bundle is not valid UTF-8 (byte 0x{bad:02x} at offset {invalid.start})"
            ) from None
        raise BundleError(
            f"malformed JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from None
    except _NonFiniteNumberError as exc:
        raise BundleError(f"malformed JSON: {exc} is not a valid JSON number") from None
    except RecursionError:
        raise BundleError("malformed JSON: nested too deeply") from None


class _NonFiniteNumberError(EngineError, ValueError):
    pass


def _reject_constant(name: str) -> Any:
    raise _NonFiniteNumberError(name)


def _parse_int(text: str) -> int | TooLongInteger:
    limit = sys.get_int_max_str_digits()
    digits = len(text) - (text[:1] == "-")
    if limit and digits > limit:
        return TooLongInteger(digits)
    return int(text)


def _input_too_large(size: int, limit: int) -> str:
    return (
        f"bundle: exceeds the {limit}-byte input limit (REDLINE_MAX_BODY_BYTES + "
        f"REDLINE_MAX_EVIDENCE_BYTES + 1000000); it is {size} bytes"
    )


# ---------------------------------------------------------------- values


def _scan(value: Any, path: str, depth: int, from_invalid_utf8: bool, problems: list[str]) -> None:
    """Reject what no database column can hold: bad Unicode, NUL, NaN, non-JSON values.

    Recursion is bounded: the scan stops below _MAX_DEPTH levels."""
    if len(problems) >= MAX_MESSAGES:
        return
    where = path or "bundle"
    if depth > _MAX_DEPTH:
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
    elif isinstance(value, TooLongInteger):
        problems.append(
            f"{where}: an integer of {value.digits} digits is longer than the "
            f"{sys.get_int_max_str_digits()} digits allowed"
        )
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


# ---------------------------------------------------------------- messages


def validation_messages(error: ValidationError) -> list[str]:
    """One line per problem, named by its path: ``evidence[0].source_ref: field required``."""
    messages: list[str] = []
    for item in error.errors():
        loc = tuple(item["loc"])
        if len(loc) > 3 and loc[0] == "evidence" and loc[2] == "content":
            # One message for the union, not one per member type it failed.
            lines = [f"{_path(loc[:3])}: must be text or JSON (an object or an array)"]
        elif item["type"] == "missing":
            lines = [f"{_path(loc)}: field required"]
        elif item["type"] == "string_too_short" and item.get("ctx", {}).get("min_length") == 1:
            lines = [f"{_path(loc)}: must not be blank"]
        elif item["type"] == "extra_forbidden":
            model: type[BaseModel] = EvidenceItem if loc[0] == "evidence" else Bundle
            allowed = ", ".join(model.model_fields)
            lines = [f"{_path(loc)}: unknown field (allowed: {allowed})"]
        else:
            text = str(item["msg"]).removeprefix("Value error, ")
            # A whole-bundle check reports several problems, one per line, each with its path.
            lines = [
                f"{_path(loc)}: {part[:1].lower() + part[1:]}" if loc else part
                for part in text.split("\n")
            ]
        messages.extend(line for line in lines if line not in messages)
    return messages[:MAX_MESSAGES]


def _path(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


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


__all__ = [
    "BundleError",
    "UnstorableValue",
    "body_problems",
    "evidence_problems",
    "json_size",
    "load_json",
    "read_bundle",
    "validation_messages",
]
