"""Plain data the engine takes and returns. No Django here: this is the contract
between the engine, the Django services that persist it, and the command line."""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

Decision = Literal["APPROVE", "REVISE", "RETRY", "FAIL"]
CheckName = Literal[
    "claims_supported",
    "no_hallucinations",
    "query_addressed",
    "coherent_format",
    "source_metadata_present",
]
CHECK_NAMES: tuple[CheckName, ...] = (
    "claims_supported",
    "no_hallucinations",
    "query_addressed",
    "coherent_format",
    "source_metadata_present",
)
# The one set of labels people read for the checks: the review screen shows them as they are,
# the admin capitalised (Finding.check_name choices), the seed record in title case.
CHECK_LABELS: dict[CheckName, str] = {
    "claims_supported": "claims supported",
    "no_hallucinations": "no hallucinations",
    "query_addressed": "query addressed",
    "coherent_format": "coherent format",
    "source_metadata_present": "source metadata present",
}
Severity = Literal["critical", "major", "minor", "info"]
# How strictly sources must be cited: not at all, somewhere in the report, or on every
# numeric claim (seed §4.5, the default).
Citations = Literal["none", "report", "claims"]
# The least severe finding that fails its check; "info" never fails one.
FailingSeverity = Literal["critical", "major", "minor"]
GoalStatus = Literal["PASS", "PARTIAL", "FAIL"]

MAX_BODY_CHARS = 1_000_000
MAX_TEXT = 100_000
# Real tool outputs nest a few levels; a deeper document is refused at the door rather than
# walked (a recursion bomb is a bad input, not an engine failure).
MAX_NESTING = 64


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


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False)


# ---------------------------------------------------------------- input


class EvidenceItem(_Model):
    """One piece of evidence: a tool output, a workflow result, gathered context."""

    source_ref: str = Field(min_length=1, max_length=200)
    kind: str = Field(default="text", min_length=1, max_length=40)
    url: str | None = Field(default=None, max_length=2000)
    content: str | dict[str, Any] | list[Any]

    @field_validator("source_ref", "kind")
    @classmethod
    def _strip(cls, value: str) -> str:
        value = value.strip()
        if not value:
            raise ValueError("must not be blank")
        return value

    @field_validator("content")
    @classmethod
    def _bounded_nesting(cls, value: Any) -> Any:
        return _check_nesting(value)


class Bundle(_Model):
    """An analysis bundle: the ingest format shared by the REST API, the import
    command and the `redline check` command line."""

    query: str = Field(min_length=1, max_length=20_000)
    goals: list[str] = Field(default_factory=list, max_length=20)
    title: str = Field(default="", max_length=300)
    body: str = Field(min_length=1, max_length=MAX_BODY_CHARS)
    fields: dict[str, Any] = Field(default_factory=dict)
    evidence: list[EvidenceItem] = Field(default_factory=list, max_length=500)
    external_id: str | None = Field(default=None, max_length=200)

    @field_validator("fields")
    @classmethod
    def _bounded_nesting(cls, value: dict[str, Any]) -> dict[str, Any]:
        return _check_nesting(value)  # type: ignore[no-any-return]

    @model_validator(mode="after")
    def _unique_refs(self) -> Bundle:
        seen: set[str] = set()
        for index, item in enumerate(self.evidence):
            if item.source_ref in seen:
                raise ValueError(
                    f"evidence[{index}].source_ref {item.source_ref!r} is used more than once"
                )
            seen.add(item.source_ref)
        return self


class EngineSettings(_Model):
    """The part of the admin Policy the engine needs. Defaults follow the seeds."""

    approve_threshold: float = Field(default=0.80, ge=0, le=1)
    revise_threshold: float = Field(default=0.50, ge=0, le=1)
    retry_threshold: float = Field(default=0.30, ge=0, le=1)
    # A report number within this relative distance of an evidence number, but not
    # equal at the precision shown, is close-but-wrong rather than orphan.
    relative_tolerance: float = Field(default=0.05, ge=0, le=1)
    # Goal score bands of seed §8.
    goal_pass: float = Field(default=0.75, ge=0, le=1)
    goal_partial: float = Field(default=0.50, ge=0, le=1)
    # Citation strictness: "claims" (every sentence with a numeric claim cites a source,
    # seed §4.5), "report" (the report cites its sources somewhere) or "none".
    citations: Citations = "claims"
    # A check fails on a finding at least this severe; less severe ones are shown and
    # only lower the confidence.
    failing_severity: FailingSeverity = "major"


# ---------------------------------------------------------------- output


class ToolCallRecord(_Model):
    tool: str
    input: dict[str, Any]
    output: str | None = None
    error: str | None = None
    duration_ms: float = 0.0


class EvidenceExcerpt(_Model):
    source_ref: str
    url: str | None = None
    excerpt: str = Field(max_length=2000)
    # JSON path or label of the value inside the evidence item, when known.
    label: str = ""


class Finding(_Model):
    check: CheckName
    kind: str  # orphan, close_but_wrong, arithmetic, raw_url, unknown_url, missing_source, ...
    severity: Severity
    message: str
    start: int = Field(ge=0)
    end: int = Field(ge=0)
    text: str = ""
    evidence: list[EvidenceExcerpt] = Field(default_factory=list)

    @model_validator(mode="after")
    def _span(self) -> Finding:
        if self.end < self.start:
            raise ValueError("finding end precedes start")
        return self


class FixProposal(_Model):
    """FIND / REPLACE / VERIFIED_WITH with its proof. `find` occurs exactly once in
    the revision body it was proposed for, at `offset`."""

    find: str = Field(min_length=1)
    replace: str
    verified_with: str
    confidence: float = Field(ge=0, le=1)
    kind: str  # arithmetic, close_but_wrong, raw_url, llm
    origin: Literal["deterministic", "llm"] = "deterministic"
    offset: int = Field(ge=0)
    finding_index: int | None = None  # index into Verdict.findings
    tool_calls: list[ToolCallRecord] = Field(default_factory=list)
    evidence: list[EvidenceExcerpt] = Field(default_factory=list)


class NumberMatch(_Model):
    """One report number and what the evidence says of it."""

    text: str
    value: Decimal
    start: int
    end: int
    label: str = ""
    status: Literal["exact", "rounded", "derived", "close_but_wrong", "orphan"]
    evidence_value: Decimal | None = None
    source_ref: str | None = None
    evidence_label: str = ""
    formula: str = ""  # for derived numbers: the calculation that produces it


class NumbersReport(_Model):
    """The hallucination seed's ValidationResult, plus the per-number detail."""

    exact_matches: int = 0
    close_matches: list[NumberMatch] = Field(default_factory=list)
    orphan_numbers: list[NumberMatch] = Field(default_factory=list)
    suspicious: list[NumberMatch] = Field(default_factory=list)
    matches: list[NumberMatch] = Field(default_factory=list)


class Checks(_Model):
    claims_supported: bool = True
    no_hallucinations: bool = True
    query_addressed: bool = True
    coherent_format: bool = True
    source_metadata_present: bool = True

    def all_pass(self) -> bool:
        return all(getattr(self, name) for name in CHECK_NAMES)


class GoalScore(_Model):
    goal: str
    score: float = Field(ge=0, le=1)
    status: GoalStatus
    missing_terms: list[str] = Field(default_factory=list)


class ExtractedFields(_Model):
    decision: str | None = None  # BUY / WATCH / AVOID / ...
    conviction: str | None = None  # HIGH / MODERATE / LOW
    numeric: dict[str, Decimal] = Field(default_factory=dict)


class Verdict(_Model):
    # Seed §6 schema.
    decision: Decision
    confidence: float = Field(ge=0, le=1)
    issues: list[str] = Field(default_factory=list)
    checks: Checks = Field(default_factory=Checks)
    revision_hints: str = ""
    suggested_fixes: str = ""
    # Redline's additions.
    numbers: NumbersReport = Field(default_factory=NumbersReport)
    findings: list[Finding] = Field(default_factory=list)
    fixes: list[FixProposal] = Field(default_factory=list)
    goals: list[GoalScore] = Field(default_factory=list)
    goal_decision: str | None = None  # seed §8 aggregate, e.g. "APPROVE (partial)"
    fields: ExtractedFields = Field(default_factory=ExtractedFields)
    tool_calls: list[ToolCallRecord] = Field(default_factory=list)
    timings_ms: dict[str, float] = Field(default_factory=dict)


class VerdictError(_Model):
    """What `redline check --jsonl` prints for a bundle it could not read."""

    error: str
    line: int | None = None
    details: list[str] = Field(default_factory=list)
