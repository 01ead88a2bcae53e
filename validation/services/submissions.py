"""Submissions from the pipeline: a new analysis (ingest), a new draft, new evidence."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from analyses.bundles import input_limits
from analyses.models import Analysis, Evidence, Pipeline, Revision
from analyses.services import IngestResult, analysis_ingest
from redline_errors import DomainError, LoopLimitReached
from validation.engine.fields import extract_fields
from validation.engine.intake import body_problems, evidence_problems
from validation.engine.types import EvidenceItem
from validation.loops import RETRY, LoopState
from validation.models import Attempt, AuditEvent, Policy
from validation.services._shared import (
    IN_REVIEW,
    Status,
    audit,
    current_revision,
    lock_analysis,
    require_status,
    retire_open_fixes,
)
from validation.services.jobs import attempt_create, attempt_enqueue

TAKES_NEW_INPUT = frozenset({*IN_REVIEW, Status.FAILED})


def analysis_submit(
    *,
    data: Mapping[str, Any] | bytes | str,
    submitter: User | None,
    pipeline: Pipeline | None = None,
) -> IngestResult:
    """Ingest a bundle (``analyses.services.analysis_ingest``), record who sent it and queue
    its first validation, all in one transaction (the wake-up goes to the broker after commit).

    `pipeline` sent it (None: the default pipeline). Raises IngestError, having written
    nothing, when the bundle is invalid. A re-sent bundle (same pipeline and external_id,
    same content) returns the existing analysis and queues nothing.
    """
    return analysis_ingest(
        data=data, submitter=submitter, pipeline=pipeline, then=_first_validation
    )


def _first_validation(result: IngestResult) -> None:
    """What a new analysis gets in the ingest's transaction: its audit event, attempt 1."""
    assert result.revision is not None  # a created analysis has its revision 1
    audit(
        result.analysis,
        AuditEvent.Action.INGESTED,
        actor=result.analysis.submitter,
        revision_id=result.revision.pk,
        data={
            "external_id": result.external_id,
            "bundle_sha256": result.bundle_sha256,
            "evidence_items": result.evidence_items,
        },
    )
    # A new analysis has no attempt yet: its first is number 1.
    attempt_create(revision=result.revision, number=1)


@transaction.atomic
def analysis_submit_draft(*, analysis: Analysis, user: User | None, body: str) -> Revision:
    """A new draft (RETRY / REVISE path): revision n+1 with `body`, re-validated as RETRY loop.
    An analysis in review, or one the validator failed, takes it while a RETRY loop remains.

    The pipeline is not a reviewer: reviewers' claims do not block it.
    """
    _check_body(body)
    analysis = lock_analysis(analysis)
    # A failed analysis (the Policy's fail_ends_analysis) is rescued by a new draft while
    # a RETRY loop remains (_revision_next checks the limit).
    require_status(analysis, TAKES_NEW_INPUT, "take a new draft")
    current = current_revision(analysis)
    if body == current.body:
        raise DomainError(f"The new draft is the same as revision {current.number}.")
    revision = _revision_next(analysis, current, body, user, Revision.Reason.NEW_DRAFT)
    analysis.take_extracted_fields(extract_fields(body, previous=analysis.extracted_fields()))
    _revalidate_new_revision(analysis, revision)
    audit(
        analysis,
        AuditEvent.Action.NEW_DRAFT,
        actor=user,
        revision_id=revision.pk,
        data={"previous_revision": current.number},
    )
    return revision


@transaction.atomic
def analysis_submit_evidence(
    *, analysis: Analysis, user: User | None, evidence: Sequence[EvidenceItem]
) -> Revision:
    """Add evidence items (an existing `source_ref` is replaced), then re-validate the same
    body as revision n+1 (reason new_evidence, RETRY loop)."""
    _check_evidence(evidence)
    analysis = lock_analysis(analysis)
    require_status(analysis, TAKES_NEW_INPUT, "take new evidence")
    current = current_revision(analysis)
    existing = {item.source_ref: item for item in Evidence.objects.filter(analysis=analysis)}
    added: list[str] = []
    replaced: list[str] = []
    for item in evidence:
        new = Evidence.from_item(analysis, item)
        row = existing.get(item.source_ref)
        if row is None:
            new.save()
            added.append(item.source_ref)
        else:
            for name in Evidence.ITEM_FIELDS:
                setattr(row, name, getattr(new, name))
            row.save(update_fields=Evidence.ITEM_FIELDS)
            replaced.append(item.source_ref)
    revision = _revision_next(analysis, current, current.body, user, Revision.Reason.NEW_EVIDENCE)
    _revalidate_new_revision(analysis, revision)
    audit(
        analysis,
        AuditEvent.Action.NEW_EVIDENCE,
        actor=user,
        revision_id=revision.pk,
        data={"added": added, "replaced": replaced},
    )
    return revision


def _revision_next(
    analysis: Analysis, current: Revision, body: str, user: User | None, reason: str
) -> Revision:
    limit = LoopState.of(analysis, Policy.for_pipeline(analysis.pipeline_id)).limit_reason(RETRY)
    if limit:
        raise LoopLimitReached(f"{limit}: no new revision can be made.")
    revision = Revision.objects.create(
        analysis=analysis, number=current.number + 1, body=body, author=user, reason=reason
    )
    retire_open_fixes(analysis, revision)
    return revision


def _revalidate_new_revision(analysis: Analysis, revision: Revision) -> None:
    analysis.needs_new_input = False
    analysis.status = Status.VALIDATING
    analysis.retry_loops += 1  # a new draft or new evidence uses a RETRY loop
    analysis.save()
    attempt_enqueue(revision=revision, loop_kind=Attempt.LoopKind.RETRY)


def _check_body(body: str) -> None:
    # The engine's input rules, the same ingest and `redline check` apply.
    problems = body_problems(body, input_limits())
    if problems:
        raise DomainError(f"The new draft is refused: {'; '.join(problems)}.")


def _check_evidence(evidence: Sequence[EvidenceItem]) -> None:
    problems = evidence_problems(evidence, input_limits())
    if problems:
        raise DomainError(f"The evidence is refused: {'; '.join(problems)}.")
