"""Business logic of the analyses app: store what was submitted.

``analysis_ingest`` checks a bundle completely (``analyses.bundles``) before writing anything,
then creates the Analysis, its Evidence and Revision 1 in one transaction and returns what it
created. What happens next (the audit record, the first validation) is the validation app's
business: ``validation.services.analysis_submit`` wraps this function and passes those writes
as `then`, so that they share the transaction.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction

from analyses.bundles import (
    StructuredFields,
    bundle_digest,
    bundle_parse,
    bundle_title,
    structured_fields,
)
from analyses.models import Analysis, Evidence, Pipeline, Revision
from analyses.selectors import analysis_get_by_external_id
from redline_errors import ExternalIdConflict
from validation.engine.types import Bundle


@dataclass(frozen=True)
class IngestResult:
    """What ingest did: the analysis, whether it is new, and (when new) its revision 1."""

    analysis: Analysis
    created: bool
    revision: Revision | None = None
    evidence_items: int = 0
    bundle_sha256: str = ""
    external_id: str = ""


def analysis_ingest(
    *,
    data: Mapping[str, Any] | bytes | str,
    submitter: User | None,
    pipeline: Pipeline | None = None,
    then: Callable[[IngestResult], None] | None = None,
) -> IngestResult:
    """Create an analysis, its evidence and revision 1 from a bundle.

    `data` is a parsed bundle, or its JSON as bytes (must be UTF-8) or text. Raises
    IngestError, having written nothing, when the bundle is invalid. `pipeline` sent it (None:
    the default pipeline). A bundle whose `external_id` this pipeline already used returns the
    existing analysis (``created=False``) if the content is the same, and is an IngestError if
    it differs.
    `then` runs in the same transaction once the rows are written (the caller's own writes
    for a new analysis): if it fails, nothing is written.

    The unique constraint on (pipeline, external_id) is the check: the insert is tried first
    and, when the constraint refuses it, the whole transaction is rolled back and the
    existing analysis read. A new bundle (the common case) costs no lookup and no savepoint;
    a re-sent one costs a failed insert instead of a lookup.
    """
    bundle = bundle_parse(data)
    fields = structured_fields(bundle)
    digest = bundle_digest(bundle)
    external_id = (bundle.external_id or "").strip()
    if pipeline is None:
        pipeline = Pipeline.default()
    try:
        with transaction.atomic():
            revision = _analysis_create(
                bundle=bundle,
                fields=fields,
                digest=digest,
                external_id=external_id,
                submitter=submitter,
                pipeline=pipeline,
            )
            result = IngestResult(
                analysis=revision.analysis,
                created=True,
                revision=revision,
                evidence_items=len(bundle.evidence),
                bundle_sha256=digest,
                external_id=external_id,
            )
            if then is not None:
                then(result)
    except IntegrityError:
        # This pipeline already used external_id (a re-send, or a concurrent ingest that
        # committed first): everything above was rolled back; answer with that analysis.
        existing = analysis_get_by_external_id(pipeline=pipeline, external_id=external_id)
        if existing is None:
            raise
        return _already_ingested(existing, external_id=external_id, digest=digest)
    return result


def _analysis_create(
    *,
    bundle: Bundle,
    fields: StructuredFields,
    digest: str,
    external_id: str,
    submitter: User | None,
    pipeline: Pipeline,
) -> Revision:
    analysis = Analysis.objects.create(
        title=bundle_title(bundle),
        query=bundle.query,
        goals=list(bundle.goals),
        decision=fields.decision,
        conviction=fields.conviction,
        numeric_fields=fields.numeric,
        extra_fields=fields.extra,
        submitter=submitter,
        pipeline=pipeline,
        external_id=external_id,
        bundle_sha256=digest,
    )
    Evidence.objects.bulk_create(
        [Evidence.from_item(analysis, item) for item in bundle.evidence], batch_size=100
    )
    return Revision.objects.create(
        analysis=analysis, number=1, body=bundle.body, author=None, reason=Revision.Reason.DRAFT
    )


def _already_ingested(existing: Analysis, *, external_id: str, digest: str) -> IngestResult:
    if existing.bundle_sha256 != digest:
        raise ExternalIdConflict(
            f"external_id {external_id!r} was already used for a different bundle "
            f"(analysis {existing.pk}); send a new external_id for new content"
        )
    return IngestResult(
        analysis=existing, created=False, bundle_sha256=digest, external_id=external_id
    )
