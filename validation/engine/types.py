"""Plain data the engine takes and returns. No Django here: this is the contract
between the engine, the Django services that persist it, and the command line."""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationInfo,
    field_validator,
    model_serializer,
    model_validator,
)

from validation.engine.limits import (
    MAX_BODY_CHARS,
    MAX_FIELD_NAME,
    MAX_FIELDS,
    MAX_FIELDS_BYTES,
    Goal,
    NonBlank,
    _check_nesting,
    _is_http_url,
    _limits,
    _not_blank,
    field_problems,
    json_size,
)

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
# the admin capitalised (Finding.check_name choices), the attempt record in title case
# (docs/spec.md §9).
CHECK_LABELS: dict[CheckName, str] = {
    "claims_supported": "claims supported",
    "no_hallucinations": "no hallucinations",
    "query_addressed": "query addressed",
    "coherent_format": "coherent format",
    "source_metadata_present": "source metadata present",
}
Severity = Literal["critical", "major", "minor", "info"]
# How strictly sources must be cited: not at all, somewhere in the report, or on every
# numeric claim (docs/spec.md §4.5, the default).
Citations = Literal["none", "report", "claims"]
# The least severe finding that fails its check; "info" never fails one.
FailingSeverity = Literal["critical", "major", "minor"]
GoalStatus = Literal["PASS", "PARTIAL", "FAIL"]


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

    @field_validator("url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is not None and value.strip() and not _is_http_url(value.strip()):
            raise ValueError(f"{value[:200]!r} is not a valid URL")
        return value

    @field_validator("content")
    @classmethod
    def _bounded_nesting(cls, value: Any) -> Any:
        if isinstance(value, str) and not value.strip():
            raise ValueError("must not be empty")
        return _check_nesting(value)


class Bundle(_Model):
    """An analysis bundle: the ingest format shared by the REST API, the import
    command and the `redline check` command line."""

    query: NonBlank = Field(min_length=1, max_length=20_000)
    goals: list[Goal] = Field(default_factory=list, max_length=20)
    title: str = Field(default="", max_length=300)
    body: str = Field(min_length=1, max_length=MAX_BODY_CHARS)
    fields: dict[str, Any] = Field(default_factory=dict)
    evidence: list[EvidenceItem] = Field(default_factory=list, max_length=500)
    external_id: str | None = Field(default=None, max_length=200)

    @field_validator("body")
    @classmethod
    def _body(cls, value: str, info: ValidationInfo) -> str:
        _not_blank(value)
        limits = _limits(info)
        size = len(value.encode("utf-8", "surrogatepass")) if limits else 0
        if limits and size > (limit := limits.body_bytes):
            raise ValueError(
                f"exceeds the {limit}-byte limit (REDLINE_MAX_BODY_BYTES); it is {size} bytes"
            )
        return value

    @field_validator("external_id")
    @classmethod
    def _external_id(cls, value: str | None) -> str | None:
        if value is not None and value != value.strip():
            raise ValueError("must not start or end with whitespace")
        return value

    @field_validator("fields")
    @classmethod
    def _fields(cls, value: dict[str, Any]) -> dict[str, Any]:
        _check_nesting(value)
        if len(value) > MAX_FIELDS:
            raise ValueError(f"at most {MAX_FIELDS} fields, got {len(value)}")
        for name in value:
            if not name.strip() or len(name) > MAX_FIELD_NAME:
                raise ValueError(f"{name[:40]!r} is not a field name (1-100 characters)")
        size = json_size(value)
        if size > MAX_FIELDS_BYTES:
            raise ValueError(f"at most {MAX_FIELDS_BYTES} bytes of JSON, got {size}")
        return value

    @model_validator(mode="after")
    def _whole_bundle(self, info: ValidationInfo) -> Bundle:
        problems = field_problems(self.fields)
        seen: set[str] = set()
        for index, item in enumerate(self.evidence):
            if item.source_ref in seen:
                problems.append(
                    f"evidence[{index}].source_ref {item.source_ref!r} is used more than once"
                )
            seen.add(item.source_ref)
        limits = _limits(info)
        size = sum(json_size(item.content) for item in self.evidence) if limits else 0
        if limits and size > (limit := limits.evidence_bytes):
            problems.append(
                f"evidence: exceeds the {limit}-byte limit in total "
                f"(REDLINE_MAX_EVIDENCE_BYTES); it is {size} bytes"
            )
        if problems:
            raise ValueError("\n".join(problems))  # one line per problem (see intake)
        return self


class EngineSettings(_Model):
    """The part of the admin Policy the engine needs. Defaults follow docs/spec.md §4-§8."""

    approve_threshold: float = Field(default=0.80, ge=0, le=1)
    revise_threshold: float = Field(default=0.50, ge=0, le=1)
    retry_threshold: float = Field(default=0.30, ge=0, le=1)
    # A report number within this relative distance of an evidence number, but not
    # equal at the precision shown, is close-but-wrong rather than orphan.
    relative_tolerance: float = Field(default=0.05, ge=0, le=1)
    # Goal score bands of docs/spec.md §8.
    goal_pass: float = Field(default=0.75, ge=0, le=1)
    goal_partial: float = Field(default=0.50, ge=0, le=1)
    # Citation strictness: "claims" (every sentence with a numeric claim cites a source,
    # docs/spec.md §4.5), "report" (the report cites its sources somewhere)
    # or "none".
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
    # False for an LLM fix that no tool call of its own supports: shown, never bulk-accepted.
    verified: bool = True


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
    """The numbers report (docs/spec.md §14.4), with the per-number detail."""

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
    # The docs/spec.md §6 schema.
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
    # The docs/spec.md §8 aggregate, e.g. "APPROVE (partial)".
    goal_decision: str | None = None
    fields: ExtractedFields = Field(default_factory=ExtractedFields)
    tool_calls: list[ToolCallRecord] = Field(default_factory=list)
    timings_ms: dict[str, float] = Field(default_factory=dict)
    # What the optional LLM path did (validation.engine.llm); None when it did not run.
    llm: LLMReport | None = None
    # Why each failed check failed, in words (decision.check_reasons): no check fails unsaid.
    check_reasons: dict[CheckName, str] = Field(default_factory=dict)

    @model_serializer(mode="wrap")
    def _omit_absent_llm(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # A deterministic verdict serializes exactly as before the LLM path existed.
        data: dict[str, Any] = handler(self)
        if data.get("llm", 0) is None:
            del data["llm"]
        return data


# ---------------------------------------------------------------- the LLM path


class LLMCallRecord(_Model):
    """One HTTP request to the chat-completions endpoint (a transport retry is a new record).
    Shaped like the LLMCall model: purpose, model, prompt, response, tokens, latency, error."""

    purpose: Literal["judge", "fixer"]
    model: str
    prompt: list[dict[str, Any]] = Field(default_factory=list)  # the messages sent
    response: str = ""  # the assistant's text ("" for a pure tool-call turn or an error)
    response_tool_calls: list[dict[str, Any]] = Field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_ms: float = 0.0
    error: str = ""
    status_code: int | None = None
    attempt: int = 1  # the judge's validation attempt, or the fixer's turn
    try_number: int = 1  # transport try within that attempt (1 = first request)


class LLMFieldError(_Model):
    """One reason an LLM answer was refused, categorized (docs/spec.md §12.3)."""

    category: Literal[
        "required_missing",
        "type_mismatch",
        "pattern_violation",
        "range_violation",
        "structural_error",
        "semantic_error",
    ]
    path: str
    message: str
    expected: str = ""
    received: str = ""


class LLMAttemptRecord(_Model):
    """One judge attempt: valid, or the errors it was re-asked with."""

    attempt: int
    part: int = 0  # which part of a long report (0 for a short one)
    valid: bool
    errors: list[LLMFieldError] = Field(default_factory=list)


class LLMRetryReport(_Model):
    attempts: int = 0  # judge attempts over all report parts
    first_attempt_success: bool = False
    final_success: bool = False
    status: Literal["ok", "exhausted", "identical_errors", "disabled", "provider_error", ""] = ""
    errors_by_category: dict[str, int] = Field(default_factory=dict)
    recovered_categories: list[str] = Field(default_factory=list)
    history: list[LLMAttemptRecord] = Field(default_factory=list)


class LLMChecksFlip(_Model):
    check: CheckName
    engine: bool
    merged: bool


class LLMChanges(_Model):
    """What the LLM changed in the deterministic verdict."""

    findings_added: list[int] = Field(default_factory=list)  # indexes into Verdict.findings
    findings_overruled: list[int] = Field(default_factory=list)  # engine query findings
    claims_refused: list[str] = Field(default_factory=list)  # LLM claims not kept, and why
    checks_flipped: list[LLMChecksFlip] = Field(default_factory=list)
    decision_before: Decision | None = None
    decision_after: Decision | None = None
    confidence_before: float | None = None
    confidence_after: float | None = None

    def changed(self) -> bool:
        return bool(
            self.findings_added
            or self.findings_overruled
            or self.checks_flipped
            or self.decision_before != self.decision_after
        )


class LLMRejectedFix(_Model):
    find: str
    replace: str
    status: Literal["conflict", "refused", "malformed"]
    reason: str
    # Why a fix was refused: "tool_disagrees" (a number of its REPLACE is not what its own
    # calculator calls returned), "stated_wrong" (its VERIFIED_WITH states a wrong
    # calculation), "engine_flags" (applied, the engine still flags its replacement).
    cause: Literal["", "tool_disagrees", "stated_wrong", "engine_flags"] = ""


class LLMFixerReport(_Model):
    ran: bool = False
    turns: int = 0
    tool_calls: list[ToolCallRecord] = Field(default_factory=list)
    fixes_proposed: int = 0
    fixes_kept: int = 0
    rejected: list[LLMRejectedFix] = Field(default_factory=list)
    final_decision: str | None = None  # FINAL DECISION read from its output, else the report's
    final_conviction: str | None = None
    error: str = ""
    stopped: str = ""  # why the tool loop ended: answered, turns, tokens, tool_calls, deadline


class LLMReport(_Model):
    """The ``llm`` section of a Verdict. ``status`` "errored" means the judge never produced
    a valid answer (or the endpoint failed): such a verdict is never APPROVE."""

    status: Literal["ok", "errored"]
    error: str = ""
    model: str = ""
    calls: list[LLMCallRecord] = Field(default_factory=list)
    retry: LLMRetryReport = Field(default_factory=LLMRetryReport)
    changes: LLMChanges = Field(default_factory=LLMChanges)
    fixer: LLMFixerReport = Field(default_factory=LLMFixerReport)
    exhausted: dict[str, Any] | None = None  # ValidationExhaustedError.to_json()
    elapsed_ms: float = 0.0


class VerdictError(_Model):
    """What `redline check --jsonl` prints for a bundle it could not read."""

    error: str
    line: int | None = None
    details: list[str] = Field(default_factory=list)
