"""Typed results: what the REST API answers, read into frozen dataclasses.

Each ``from_api`` reads a JSON object from ``/api/v1/`` and keeps what a pipeline acts on;
a missing key reads as empty rather than failing, so a newer server with more (or fewer)
keys still answers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Outcome = Literal["in_review", "approved", "rejected", "failed"]

# Statuses of an analysis on the server (analyses.models.Analysis.Status).
VALIDATING = "validating"
IN_REVIEW = "in_review"
APPROVED = "approved"
REJECTED = "rejected"
FAILED = "failed"
FINAL_STATUSES = frozenset({APPROVED, REJECTED, FAILED})


def _str(data: dict[str, Any], key: str) -> str:
    value = data.get(key)
    return value if isinstance(value, str) else ""


def _float(data: dict[str, Any], key: str) -> float | None:
    value = data.get(key)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _int(data: dict[str, Any], key: str) -> int:
    value = data.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _objects(data: dict[str, Any], key: str) -> list[dict[str, Any]]:
    value = data.get(key)
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


@dataclass(frozen=True)
class AnalysisState:
    """An analysis as the server sees it now."""

    id: int
    url: str
    external_id: str
    title: str
    status: str
    needs_new_input: bool
    decision: str
    conviction: str

    @classmethod
    def from_api(cls, data: dict[str, Any]) -> AnalysisState:
        return cls(
            id=_int(data, "id"),
            url=_str(data, "url"),
            external_id=_str(data, "external_id"),
            title=_str(data, "title"),
            status=_str(data, "status"),
            needs_new_input=bool(data.get("needs_new_input")),
            decision=_str(data, "decision"),
            conviction=_str(data, "conviction"),
        )


@dataclass(frozen=True)
class Finding:
    """One problem the validator found: its check, severity, message and the text at fault."""

    check: str
    kind: str
    severity: str
    message: str
    text: str

    @classmethod
    def from_api(cls, data: dict[str, Any]) -> Finding:
        return cls(
            check=_str(data, "check"),
            kind=_str(data, "kind"),
            severity=_str(data, "severity"),
            message=_str(data, "message"),
            text=_str(data, "text"),
        )


@dataclass(frozen=True)
class FixProposal:
    """A proposed fix: FIND -> REPLACE, its proof (VERIFIED_WITH) and confidence."""

    id: int
    kind: str
    status: str
    find: str
    replace: str
    verified_with: str
    confidence: float | None

    @classmethod
    def from_api(cls, data: dict[str, Any]) -> FixProposal:
        return cls(
            id=_int(data, "id"),
            kind=_str(data, "kind"),
            status=_str(data, "status"),
            find=_str(data, "find"),
            replace=_str(data, "replace"),
            verified_with=_str(data, "verified_with"),
            confidence=_float(data, "confidence"),
        )


@dataclass(frozen=True)
class Verdict:
    """The latest finished validation attempt of an analysis."""

    attempt: int
    revision: int
    status: str
    decision: str
    confidence: float | None
    checks: dict[str, bool]
    issues: tuple[str, ...]
    error: str
    findings: tuple[Finding, ...]
    fixes: tuple[FixProposal, ...]

    @classmethod
    def from_api(cls, data: dict[str, Any]) -> Verdict:
        checks = data.get("checks")
        issues = data.get("issues")
        return cls(
            attempt=_int(data, "number"),
            revision=_int(data, "revision"),
            status=_str(data, "status"),
            decision=_str(data, "decision"),
            confidence=_float(data, "confidence"),
            checks={str(k): bool(v) for k, v in checks.items()} if isinstance(checks, dict) else {},
            issues=tuple(str(item) for item in issues) if isinstance(issues, list) else (),
            error=_str(data, "error"),
            findings=tuple(Finding.from_api(item) for item in _objects(data, "findings")),
            fixes=tuple(FixProposal.from_api(item) for item in _objects(data, "fixes")),
        )

    @classmethod
    def latest(cls, detail: dict[str, Any]) -> Verdict | None:
        """The last attempt of an analysis detail (``GET /analyses/{id}``), if any."""
        attempts = _objects(detail, "attempts")
        return cls.from_api(attempts[-1]) if attempts else None


@dataclass(frozen=True)
class Approved:
    """An approved report as it leaves Redline: its final text and the whole export."""

    revision: int
    body: str
    markdown: str
    export: dict[str, Any] = field(repr=False)


@dataclass(frozen=True)
class SubmitResult:
    """What ``submit`` ends with.

    ``outcome`` is the status it stopped at: ``in_review`` (validated, a person reviews it
    next), ``approved``, ``rejected`` or ``failed``. ``approved`` is set when it was
    approved; ``created`` is False when the server already held this bundle (same
    external_id, same content).
    """

    analysis: AnalysisState
    created: bool
    outcome: Outcome
    verdict: Verdict | None
    approved: Approved | None = None

    @property
    def exit_code(self) -> int:
        """0 for in review or approved, 1 for rejected or failed (``redline submit``)."""
        return 0 if self.outcome in (IN_REVIEW, APPROVED) else 1
