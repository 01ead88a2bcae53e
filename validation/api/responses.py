"""What the API answers, typed: the OpenAPI schema names every field of every answer.

The exports (``validation.api.exports``) build plain dicts; these schemas are what ninja
checks them against on the way out (``extra="forbid"``: a key the schema does not name is a
fault of ours, caught by the tests, never silently dropped). ``ApprovedExport`` is one line
of ``/exports/approved``, whose body is JSON lines and so is described, not validated.
"""

from __future__ import annotations

from typing import Any

from ninja import Field, Schema
from pydantic import ConfigDict

_CLOSED = ConfigDict(extra="forbid")


class AnalysisOut(Schema):
    id: int
    url: str
    external_id: str
    pipeline: str = Field(description="The slug of the pipeline that sent it.")
    title: str
    status: str
    needs_new_input: bool
    decision: str
    conviction: str
    revise_loops: int
    retry_loops: int
    created_at: str | None
    updated_at: str | None


class RevisionOut(Schema):
    number: int
    reason: str
    body: str
    created_at: str | None


class AnalysisDetailOut(AnalysisOut):
    query: str
    goals: list[Any]
    fields: dict[str, Any]
    current_revision: RevisionOut
    attempts: list[dict[str, Any]]


class SubmittedOut(Schema):
    analysis: AnalysisOut
    revision: int


class AnalysisPage(Schema):
    items: list[AnalysisOut]
    next_cursor: int | None = Field(
        description="Pass as `cursor` for the next page; null on the last page."
    )


class ToolCallOut(Schema):
    model_config = _CLOSED

    tool: str
    input: Any
    output: str
    error: str
    duration_ms: float


class FixOut(Schema):
    model_config = _CLOSED

    id: int
    kind: str
    origin: str
    status: str
    find: str
    replace: str
    proposed_replace: str
    verified_with: str = Field(description="The fix's proof: a calculator call or an excerpt.")
    confidence: float
    evidence: list[Any]
    tool_calls: list[ToolCallOut]
    reviewer: str | None = Field(description="Who accepted (or rejected) it.")
    reviewed_at: str | None
    reason: str
    revision: int = Field(description="The revision the fix was proposed on.")
    applied_in: int | None = Field(description="The revision it was applied into.")


class EvidenceRefOut(Schema):
    model_config = _CLOSED

    source_ref: str
    kind: str
    url: str


class ValidationOut(Schema):
    model_config = _CLOSED

    attempt: int = Field(description="The number of the latest finished attempt.")
    attempts: int
    decision: str
    confidence: float | None
    checks: dict[str, bool]
    check_reasons: dict[str, str] = Field(
        default_factory=dict, description="Why each failed check failed, in words."
    )
    issues: list[Any]
    markdown: str = Field(description="The attempt's validation record, in Markdown.")


class SignOffOut(Schema):
    model_config = _CLOSED

    by: str = Field(description="The reviewer who signed off, or `validator`.")
    at: str | None
    comment: str


class ExportOut(AnalysisOut):
    """An approved report as it leaves Redline."""

    model_config = _CLOSED

    query: str
    goals: list[Any]
    fields: dict[str, Any]
    revision: int = Field(description="The number of the final revision.")
    body: str = Field(description="The final report.")
    evidence: list[EvidenceRefOut]
    applied_fixes: list[FixOut]
    validation: ValidationOut | None
    sign_off: SignOffOut | None


class ApprovedExport(ExportOut):
    """One line of /exports/approved: an export and its cursor."""

    cursor: int = Field(description="Pass the last one back as `cursor=` to resume.")
