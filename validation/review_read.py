"""The read of a fix review action (accept, reject, undo, edit): the fix and everything the
action checks and its htmx answer shows, in one query compiled once per connection.

A reviewer presses "a" dozens of times an hour: the ORM takes some 8 ms to build and compile
this query's two dozen subqueries and the database 0.1 ms to run it, so the SQL is compiled
once per database connection and run with each fix's ids.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeVar
from weakref import WeakKeyDictionary

from django.contrib.auth.models import User
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import (
    Count,
    F,
    IntegerField,
    Model,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Value,
)
from django.db.models.functions import Coalesce

from analyses.models import Analysis, Revision
from validation.models import Attempt, AuditEvent, Fix, Policy
from validation.models.policy import DEFAULT_POLICY_ID
from validation.selectors import FixCounts


@dataclass
class FixUnderReview:
    """A fix as a review action reads it, in one query (under the analysis lock when the
    action writes): the fix with its revision and analysis, the current revision and the
    latest attempt, the Policy of the analysis' pipeline (its own, else the default), and
    the counts of the fix's revision. What the action checks, and all its htmx answer shows:
    the card's review part, the footer, the claim."""

    fix: Fix
    analysis: Analysis
    current_revision: Revision
    attempt: Attempt | None  # the analysis' latest attempt (of the current revision)
    policy: Policy
    counts: FixCounts
    applied_in_number: int | None
    audit: list[AuditEvent] = field(default_factory=list)  # the action's, to write at once

    def moved(self, before: str, was_bulk_candidate: bool, was_carried: bool) -> None:
        """Keep the counts true after the action moved the fix from status `before`."""
        fix, counts = self.fix, self.counts
        setattr(counts, before, getattr(counts, before) - 1)
        setattr(counts, fix.status, getattr(counts, fix.status) + 1)
        counts.bulk_candidates += int(is_bulk_candidate(fix, self.policy)) - int(was_bulk_candidate)
        if was_carried and fix.carried_from_id is None:
            counts.carried -= 1


def is_bulk_candidate(fix: Fix, policy: Policy) -> bool:
    """Would bulk accept take this fix? (proposed, at or above the threshold, proved, and
    not an edit its proof contradicts)."""
    return (
        fix.status == Fix.Status.PROPOSED
        and fix.confidence >= policy.fix_confidence_threshold
        and fix.verified
        and not fix.unverified
    )


# The Policy columns a review action and its answer use, read with the fix.
_POLICY_FIELDS = (
    "id",
    "pipeline_id",
    "max_revise_loops",
    "max_retry_loops",
    "max_total_loops",
    "fix_confidence_threshold",
    "claim_minutes",
    "require_reject_reason",
)
_ATTEMPT_FIELDS = ("id", "revision_id", "number", "status", "decision", "confidence", "checks")


def fix_under_review(*, fix_id: int, analysis_id: int, lock: bool) -> FixUnderReview | None:
    """Fix `fix_id` of analysis `analysis_id` with everything a review action needs, in one
    query (:class:`FixUnderReview`); None when the analysis has no such fix. With `lock`,
    the analysis row is locked until the transaction ends (PostgreSQL; SQLite's write
    transaction already holds the database)."""
    db = connections[DEFAULT_DB_ALIAS]
    compiled = _compiled_review_query(db, lock)
    params = [
        fix_id if value == _FIX_ID else analysis_id if value == _ANALYSIS_ID else value
        for value in compiled.params
    ]
    with db.cursor() as cursor:
        cursor.execute(compiled.sql, params)
        raw = cursor.fetchone()
    if raw is None:
        return None
    (row,) = compiled.compiler.apply_converters([raw], compiled.converters)
    values = dict(zip(compiled.names, row, strict=True))
    alias = db.alias
    analysis = _loaded(
        Analysis, alias, {name: values[f"revision__analysis__{name}"] for name in _ANALYSIS}
    )
    if analysis.claimed_by_id is not None:
        analysis.claimed_by = _loaded(
            User,
            alias,
            {
                "id": analysis.claimed_by_id,
                "username": values["revision__analysis__claimed_by__username"],
            },
        )
    fix = _loaded(Fix, alias, {name: values[name] for name in _FIX})
    fix.revision = _loaded(
        Revision,
        alias,
        {"id": fix.revision_id, "analysis_id": analysis_id, "number": values["revision__number"]},
    )
    fix.revision.analysis = analysis
    if fix.reviewer_id is not None:
        fix.reviewer = _loaded(
            User, alias, {"id": fix.reviewer_id, "username": values["reviewer__username"]}
        )
    attempt = None
    if values["latest_id"] is not None:
        fields = {name: values[f"latest_{name}"] for name in _ATTEMPT_FIELDS}
        attempt = _loaded(Attempt, alias, {"analysis_id": analysis_id, **fields})
    counts = FixCounts(**{status: values[f"n_{status}"] for status in Fix.Status.values})
    counts.bulk_candidates, counts.carried = values["n_bulk"], values["n_carried"]
    current = {
        "id": values["current_revision_id"],
        "analysis_id": analysis_id,
        "number": values["current_revision_number"],
    }
    policy = {name: values[f"policy_{name}"] for name in _POLICY_FIELDS}
    return FixUnderReview(
        fix=fix,
        analysis=analysis,
        current_revision=_loaded(Revision, alias, current),
        attempt=attempt,
        policy=_loaded(Policy, alias, policy),
        counts=counts,
        applied_in_number=values["applied_in__number"],
    )


M = TypeVar("M", bound=Model)


def _loaded(model: type[M], alias: str, values: dict[str, Any]) -> M:
    """An instance as the ORM builds one from a row of these columns: the others are
    deferred (read on use), never silently left at their defaults."""
    names = [f.attname for f in model._meta.concrete_fields if f.attname in values]
    return model.from_db(alias, names, [values[name] for name in names])


_FIX = [field.attname for field in Fix._meta.concrete_fields]
_ANALYSIS = [field.attname for field in Analysis._meta.concrete_fields]
# Stand-ins for the ids in the compiled query (no real id is negative).
_FIX_ID, _ANALYSIS_ID = -1_000_001, -1_000_002


@dataclass(frozen=True)
class _Compiled:
    sql: str
    params: tuple[Any, ...]
    names: list[str]
    compiler: Any
    converters: Any


# The query of fix_under_review, compiled once per database connection (module doc).
_COMPILED: WeakKeyDictionary[Any, dict[bool, _Compiled]] = WeakKeyDictionary()


def _compiled_review_query(db: Any, lock: bool) -> _Compiled:
    per_connection = _COMPILED.setdefault(db, {})
    if lock not in per_connection:
        rows = _review_queryset()
        compiler = rows.query.get_compiler(connection=db)
        sql, params = compiler.as_sql()
        if lock and db.features.has_select_for_update:
            # The analysis row only (PostgreSQL): the lock every review action takes first.
            # The ORM's select_for_update(of=...) needs select_related, which values_list
            # does not take; SQLite's write transaction holds the whole database anyway.
            table = db.ops.quote_name(Analysis._meta.db_table)
            of = (table,) if db.features.has_select_for_update_of else ()
            sql = f"{sql} {db.ops.for_update_sql(of=of)}"
        columns = [column for column, _, _ in compiler.select]
        names = list(rows.query.selected or ())  # values_list's order, annotations included
        per_connection[lock] = _Compiled(
            sql=sql,
            params=tuple(params),
            names=names,
            compiler=compiler,
            converters=compiler.get_converters(columns),
        )
    return per_connection[lock]


def _review_columns(annotations: dict[str, Any]) -> list[str]:
    """The columns of the review query, in the order the row has them."""
    return [
        *annotations,
        *_FIX,
        "revision__number",
        *(f"revision__analysis__{name}" for name in _ANALYSIS),
        "revision__analysis__claimed_by__username",
        "reviewer__username",
        "applied_in__number",
    ]


def _review_queryset() -> QuerySet[Fix, Any]:
    analysis = OuterRef("revision__analysis_id")
    revisions = Revision.objects.filter(analysis_id=analysis).order_by("-number")
    latest = Attempt.objects.filter(analysis_id=analysis).order_by("-number")
    policy = _policy_of(OuterRef("revision__analysis__pipeline_id"))
    siblings = (
        Fix.objects.filter(revision_id=OuterRef("revision_id")).order_by().values("revision_id")
    )
    counts = {
        f"n_{status}": _count_of(siblings.filter(status=status)) for status in Fix.Status.values
    }
    counts["n_bulk"] = _count_of(
        siblings.filter(
            status=Fix.Status.PROPOSED,
            verified=True,
            confidence__gte=Subquery(
                _policy_of(OuterRef(OuterRef("revision__analysis__pipeline_id"))).values(
                    "fix_confidence_threshold"
                )[:1]
            ),
        ).exclude(edit_check=Fix.EditCheck.UNVERIFIED)
    )
    counts["n_carried"] = _count_of(
        siblings.filter(status=Fix.Status.REJECTED, carried_from__isnull=False)
    )
    annotations = {
        "current_revision_id": Subquery(revisions.values("pk")[:1]),
        "current_revision_number": Subquery(revisions.values("number")[:1]),
        **{f"latest_{name}": Subquery(latest.values(name)[:1]) for name in _ATTEMPT_FIELDS},
        **{f"policy_{name}": Subquery(policy.values(name)[:1]) for name in _POLICY_FIELDS},
        **counts,
    }
    rows = (
        Fix.objects.filter(pk=_FIX_ID, revision__analysis_id=_ANALYSIS_ID)
        .annotate(**annotations)
        .values_list(*_review_columns(annotations))
    )
    return rows


def _policy_of(pipeline_id: OuterRef) -> QuerySet[Policy, Policy]:
    """The policy of the pipeline `pipeline_id` points at, first; the default after it (what
    ``Policy.for_pipeline`` reads, as a subquery of the review query)."""
    return Policy.objects.filter(Q(pipeline_id=pipeline_id) | Q(pk=DEFAULT_POLICY_ID)).order_by(
        F("pipeline_id").asc(nulls_last=True)
    )


def _count_of(rows: QuerySet[Fix, Any]) -> Coalesce:
    counted = rows.annotate(n=Count("pk")).values("n")
    return Coalesce(Subquery(counted, output_field=IntegerField()), Value(0))
