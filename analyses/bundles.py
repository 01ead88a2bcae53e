"""Bundles: the one input format shared by the REST API, the ``import_bundles`` command and
the ``redline check`` command line (``validation.engine.types.Bundle``).

``bundle_parse`` checks a bundle completely, writing nothing: every problem becomes an
``IngestError`` message that names its field (a ``MalformedBundle``, 400, when the input is
not JSON or holds what no column can store: a NUL character, bad Unicode, ``1e999``). The
rules themselves are the engine's (``validation.engine.intake``), so ingest and ``redline
check`` refuse the same inputs with the same messages; the limits come from settings here
(``input_limits``). Evidence is measured one way wherever it arrives: ``content_bytes`` (the
engine's ``json_size``).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from django.conf import settings
from pydantic import BaseModel, ValidationError

from redline_errors import IngestError, MalformedBundle
from validation.engine.fields import extract_fields
from validation.engine.intake import (
    BundleError,
    UnstorableValue,
    check_bundle,
    load_json,
    payload_problems,
    validation_messages,
)
from validation.engine.limits import (
    FIELD_LABEL_RE,
    NUMERIC_FIELD_NAMES,
    InputLimits,
    field_number,
    field_problems,
    json_size,
)
from validation.engine.types import Bundle

# An ATX heading line; its closing #s and spaces are stripped in Python (a pattern that does
# it would backtrack over every space of a long line).
_HEADING_RE = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+([^\n]*)", re.MULTILINE)
_M = TypeVar("_M", bound=BaseModel)


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
    """Parse and check a bundle without writing anything: MalformedBundle when it is not a
    JSON document at all, else an IngestError naming each field at fault.

    The rules are the engine's (validation.engine.intake), shared with `redline check`."""
    limits = input_limits()
    raw, from_invalid_utf8 = _load(data, limits)
    try:
        return check_bundle(raw, from_invalid_utf8, limits)
    except UnstorableValue as error:  # NUL, bad Unicode, 1e999: malformed, as bad JSON is
        raise MalformedBundle(error.errors) from None
    except BundleError as error:
        raise IngestError(error.errors) from None


def input_limits() -> InputLimits:
    return InputLimits(
        body_bytes=settings.REDLINE_MAX_BODY_BYTES,
        evidence_bytes=settings.REDLINE_MAX_EVIDENCE_BYTES,
    )


def content_bytes(content: Any) -> int:
    """The size of one evidence item's content: UTF-8 bytes of its text, or of its JSON.

    The one size rule of evidence, checked against ``settings.REDLINE_MAX_EVIDENCE_BYTES``
    in total, wherever evidence arrives (a bundle, new evidence for an analysis)."""
    return json_size(content)


def payload_parse(data: bytes | str, model: type[_M]) -> _M:
    """A JSON request payload other than a bundle (new evidence, a new draft), checked as a
    bundle is: MalformedBundle when it is not JSON or holds what no column can (NUL, bad
    Unicode, non-finite numbers, nesting), naming the field; IngestError for what `model`
    refuses."""
    limits = input_limits()
    raw, from_invalid_utf8 = _load(data, limits)
    if not isinstance(raw, Mapping):
        kind = "an array" if isinstance(raw, list) else type(raw).__name__
        raise IngestError(f"request body must be a JSON object, got {kind}")
    problems = payload_problems(raw, from_invalid_utf8)
    if problems:
        raise MalformedBundle(problems)
    try:
        return model.model_validate(dict(raw), context={"limits": limits})
    except ValidationError as exc:
        raise IngestError(validation_messages(exc)) from None


def _load(data: Mapping[str, Any] | bytes | str, limits: InputLimits) -> tuple[Any, bool]:
    try:
        return load_json(data, limits)
    except BundleError as error:
        raise MalformedBundle(error.errors) from None


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
        for heading in _HEADING_RE.finditer(bundle.body):
            title = heading.group(1).rstrip().rstrip("#").rstrip().strip(" *_`")
            if title:
                break
    if not title:
        title = bundle.query.strip().splitlines()[0]
    return title[:300]


def max_input_bytes() -> int:
    """The most bytes a serialized bundle may have (before its fields are checked one by one)."""
    return input_limits().input_bytes


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
    if not out.decision and extracted.decision and FIELD_LABEL_RE.match(extracted.decision.upper()):
        out.decision = extracted.decision.upper()
    if (
        not out.conviction
        and extracted.conviction
        and FIELD_LABEL_RE.match(extracted.conviction.upper())
    ):
        out.conviction = extracted.conviction.upper()
    for name, number in extracted.numeric.items():
        if name not in out.numeric and name not in out.extra and number.is_finite():
            out.numeric[name] = str(number)
    return out


def _sort_fields(fields: Mapping[str, Any]) -> tuple[StructuredFields, list[str]]:
    out = StructuredFields()
    for name, value in fields.items():
        if name in ("decision", "conviction"):
            setattr(out, name, value.strip().upper())
        elif name in NUMERIC_FIELD_NAMES or _is_number(value):
            out.numeric[name] = str(field_number(value))
        else:
            out.extra[name] = value
    # The bundle model has checked the labels and numbers (field_problems); this repeats it
    # for a Bundle built some other way.
    return out, field_problems(fields)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
