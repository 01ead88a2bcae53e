"""Business logic of the analyses app: ingest an analysis bundle.

A bundle (``validation.engine.types.Bundle``) is the one input format shared by the REST
API, the ``import_bundles`` command and the ``redline check`` command line. Ingest checks it
completely before writing anything, then creates the Analysis, its Evidence and Revision 1
in one transaction and queues the first validation attempt.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction

from analyses.errors import IngestError
from analyses.models import Analysis, Evidence, Revision
from analyses.selectors import analysis_get_by_external_id
from validation.engine.fields import extract_fields
from validation.engine.intake import BundleError, read_bundle
from validation.engine.types import (
    FIELD_LABEL_RE,
    NUMERIC_FIELD_NAMES,
    Bundle,
    EvidenceItem,
    InputLimits,
    field_number,
    field_problems,
)
from validation.models import AuditEvent
from validation.services import attempt_enqueue

# An ATX heading line; its closing #s and spaces are stripped in Python (a pattern that does
# it would backtrack over every space of a long line).
_HEADING_RE = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+([^\n]*)", re.MULTILINE)


@dataclass(frozen=True)
class IngestResult:
    analysis: Analysis
    created: bool


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


def analysis_ingest(
    *, data: Mapping[str, Any] | bytes | str, submitter: AbstractBaseUser | None
) -> IngestResult:
    """Create an analysis from a bundle and queue its validation.

    `data` is a parsed bundle, or its JSON as bytes (must be UTF-8) or text. Raises
    IngestError, having written nothing, when the bundle is invalid. A bundle whose
    `external_id` this submitter already used returns the existing analysis
    (``created=False``) if the content is the same, and is an IngestError if it differs.
    """
    bundle = bundle_parse(data)
    fields = structured_fields(bundle)
    digest = bundle_digest(bundle)
    external_id = (bundle.external_id or "").strip()

    existing = analysis_get_by_external_id(submitter=submitter, external_id=external_id)
    if existing is not None:
        return _already_ingested(existing, external_id=external_id, digest=digest)
    try:
        analysis = _analysis_create(
            bundle=bundle,
            fields=fields,
            digest=digest,
            external_id=external_id,
            submitter=submitter,
        )
    except IntegrityError:
        # Two ingests of one external_id raced past the lookup; the unique constraint let one win.
        existing = analysis_get_by_external_id(submitter=submitter, external_id=external_id)
        if existing is None:
            raise
        return _already_ingested(existing, external_id=external_id, digest=digest)
    return IngestResult(analysis=analysis, created=True)


@transaction.atomic
def _analysis_create(
    *,
    bundle: Bundle,
    fields: StructuredFields,
    digest: str,
    external_id: str,
    submitter: AbstractBaseUser | None,
) -> Analysis:
    analysis = Analysis.objects.create(
        title=bundle_title(bundle),
        query=bundle.query,
        goals=list(bundle.goals),
        decision=fields.decision,
        conviction=fields.conviction,
        numeric_fields=fields.numeric,
        extra_fields=fields.extra,
        submitter=submitter,
        external_id=external_id,
        bundle_sha256=digest,
    )
    Evidence.objects.bulk_create(
        [_evidence_row(analysis, item) for item in bundle.evidence], batch_size=100
    )
    revision = Revision.objects.create(
        analysis=analysis, number=1, body=bundle.body, author=None, reason=Revision.Reason.DRAFT
    )
    AuditEvent.objects.create(
        analysis=analysis,
        actor=submitter,
        action=AuditEvent.Action.INGESTED,
        revision=revision,
        data={
            "external_id": external_id,
            "bundle_sha256": digest,
            "evidence_items": len(bundle.evidence),
        },
    )
    attempt_enqueue(revision=revision)
    return analysis


def _evidence_row(analysis: Analysis, item: EvidenceItem) -> Evidence:
    text = item.content if isinstance(item.content, str) else ""
    data = None if isinstance(item.content, str) else item.content
    return Evidence(
        analysis=analysis,
        source_ref=item.source_ref,
        kind=item.kind,
        url=(item.url or "").strip(),
        content_text=text,
        content_json=data,
    )


def _already_ingested(existing: Analysis, *, external_id: str, digest: str) -> IngestResult:
    if existing.bundle_sha256 != digest:
        raise IngestError(
            f"external_id {external_id!r} was already used for a different bundle "
            f"(analysis {existing.pk}); send a new external_id for new content"
        )
    return IngestResult(analysis=existing, created=False)


# ---------------------------------------------------------------- parsing and checks


def bundle_parse(data: Mapping[str, Any] | bytes | str) -> Bundle:
    """Parse and check a bundle without writing anything; every problem becomes an IngestError.

    The rules are the engine's (validation.engine.intake), shared with `redline check`."""
    try:
        return read_bundle(data, input_limits())
    except BundleError as error:
        raise IngestError(error.errors) from None


def input_limits() -> InputLimits:
    return InputLimits(
        body_bytes=settings.REDLINE_MAX_BODY_BYTES,
        evidence_bytes=settings.REDLINE_MAX_EVIDENCE_BYTES,
    )


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
