"""``run_llm_path``: the deterministic verdict in, the merged verdict out.

1. The judge (with retries) answers for every part of the report; its answer is merged
   into the verdict (:mod:`validation.engine.llm.merge`).
2. When the merged verdict has findings, the fixer proposes fixes with tool-call proof;
   those the engine accepts are added to ``verdict.fixes`` (``origin="llm"``).
3. ``verdict.llm`` records every LLM call, the retries, what the LLM changed and what the
   fixer did.

A judge that never gives a valid answer, or an endpoint that fails, makes the outcome
*errored*: the deterministic verdict is kept, except that it is never APPROVE (an APPROVE
becomes REVISE, with the error among its issues). Nothing here raises for the endpoint's
or the model's failures.
"""

from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass
from typing import Any, Protocol

from validation.engine.decision import stricter
from validation.engine.fixes import FixToApply, apply_fixes
from validation.engine.llm.fixer import run_fixer
from validation.engine.llm.judge import run_judge
from validation.engine.llm.merge import merge_judgement
from validation.engine.llm.provider import ChatClient, Deadline, ProviderError
from validation.engine.llm.retry import METRICS, RetryMetrics, ValidationExhaustedError
from validation.engine.llm.settings import LLMSettings
from validation.engine.pipeline import validate
from validation.engine.types import (
    Bundle,
    EngineSettings,
    FixProposal,
    LLMAttemptRecord,
    LLMCallRecord,
    LLMRejectedFix,
    LLMReport,
    LLMRetryReport,
    ToolCallRecord,
    Verdict,
)

logger = logging.getLogger("redline.llm")


@dataclass
class LLMOutcome:
    """What the LLM path produced. ``verdict.llm`` holds the same records as below."""

    verdict: Verdict
    errored: bool
    error: str
    calls: list[LLMCallRecord]
    tool_calls: list[ToolCallRecord]
    report: LLMReport


def run_llm_path(
    bundle: Bundle,
    verdict: Verdict,
    settings: EngineSettings,
    llm_settings: LLMSettings,
    deadline: Deadline | None = None,
    *,
    client: ChatClient | None = None,
    metrics: RetryMetrics | None = None,
) -> LLMOutcome:
    """Run the judge and the fixer on ``bundle`` whose deterministic verdict is ``verdict``.

    ``deadline`` bounds the whole path (default: ``llm_settings.attempt_budget_s`` from
    now); ``metrics`` defaults to the process-wide :data:`METRICS`."""
    deadline = deadline or Deadline(llm_settings.attempt_budget_s)
    metrics = metrics if metrics is not None else METRICS
    own_client = client is None
    chat = client or ChatClient(llm_settings)
    started = time.monotonic()
    first_call = len(chat.records)
    report = LLMReport(status="ok", model=llm_settings.model)
    attempts: list[LLMAttemptRecord] = []
    merged = verdict
    try:
        try:
            judged = run_judge(
                bundle,
                verdict,
                client=chat,
                settings=llm_settings,
                deadline=deadline,
                metrics=metrics,
                attempts=attempts,
            )
            parts = [answered.part for answered in judged.parts]
            merged, report.changes = merge_judgement(
                bundle, verdict, judged.combined(), parts, settings
            )
        except ValidationExhaustedError as exhausted:
            report.status = "errored"
            report.error = str(exhausted)
            report.exhausted = exhausted.to_json()
            report.retry = _retry_report(attempts, exhausted.reason)
        except ProviderError as error:
            report.status = "errored"
            report.error = f"LLM endpoint failed: {error}"
            report.retry = _retry_report(attempts, "provider_error")
        except Exception as error:  # a bug must not pass an unjudged report as judged
            logger.exception("LLM judge failed")
            report.status = "errored"
            report.error = f"internal error in the LLM judge: {_describe(error)}"
            report.retry = _retry_report(attempts, "provider_error")
        else:
            report.retry = _retry_report(attempts, "ok")
            if llm_settings.fixer_enabled and _worth_fixing(merged):
                merged = _fix(bundle, merged, settings, chat, llm_settings, deadline, report)
    finally:
        if own_client:
            chat.close()
    if report.status == "errored":
        merged = _errored(verdict, report.error)
    report.calls = chat.records[first_call:]
    report.elapsed_ms = round((time.monotonic() - started) * 1000, 3)
    merged = merged.model_copy(update={"llm": report})
    return LLMOutcome(
        verdict=merged,
        errored=report.status == "errored",
        error=report.error,
        calls=report.calls,
        tool_calls=report.fixer.tool_calls,
        report=report,
    )


class VerdictEngine(Protocol):
    def __call__(
        self, bundle: Bundle, settings: EngineSettings | None = ..., *, index: Any
    ) -> Verdict: ...


def with_llm(engine: VerdictEngine, llm_settings: LLMSettings) -> VerdictEngine:
    """``engine`` followed by the LLM path: what ``redline check --llm`` runs per bundle."""

    def run(
        bundle: Bundle, settings: EngineSettings | None = None, *, index: Any = None
    ) -> Verdict:
        resolved = settings if settings is not None else EngineSettings()  # once, at entry
        verdict = engine(bundle, resolved, index=index)
        return run_llm_path(bundle, verdict, resolved, llm_settings).verdict

    return run


def _fix(
    bundle: Bundle,
    verdict: Verdict,
    settings: EngineSettings,
    chat: ChatClient,
    llm_settings: LLMSettings,
    deadline: Deadline,
    report: LLMReport,
) -> Verdict:
    try:
        fixed = run_fixer(bundle, verdict, client=chat, settings=llm_settings, deadline=deadline)
    except Exception as error:  # the judged verdict stands without fixes
        logger.exception("LLM fixer failed")
        report.fixer.ran = True
        report.fixer.error = f"internal error in the LLM fixer: {_describe(error)}"
        return verdict
    report.fixer = fixed.report
    kept = []
    for fix in fixed.fixes:
        flagged = engine_flags(bundle, settings, fix)
        if flagged:
            report.fixer.rejected.append(
                LLMRejectedFix(
                    find=fix.find[:2000],
                    replace=fix.replace[:2000],
                    status="refused",
                    reason=flagged,
                    cause="engine_flags",
                )
            )
            continue
        kept.append(fix)
    report.fixer.fixes_kept = len(kept)
    if not kept:
        return verdict
    fixes = [*verdict.fixes, *kept]
    fixes.sort(key=lambda fix: (fix.offset, fix.kind, fix.find))
    return verdict.model_copy(update={"fixes": fixes})


_NUMERIC_KIND = re.compile(r"orphan|close|number|numeric|arith")


def engine_flags(bundle: Bundle, settings: EngineSettings, fix: FixProposal) -> str:
    """Why the engine refuses an LLM fix ("" when it does not): applied alone, the engine
    flags a number on its replacement. The LLM checks its numbers with its tools; the engine
    checks them against the evidence, and has the last word."""
    applied = apply_fixes(bundle.body, [FixToApply(key=0, find=fix.find, replace=fix.replace)])
    if 0 not in applied.applied:
        return applied.conflicts.get(0, "the fix does not apply")
    start, end = applied.spans[0]
    end = max(end, start + 1)  # a deletion: the finding sits where the text was
    after = validate(bundle.model_copy(update={"body": applied.body}), settings)
    for finding in after.findings:
        if finding.severity == "info" or finding.end <= start or end <= finding.start:
            continue
        text = applied.body[finding.start : finding.end]
        if _NUMERIC_KIND.search(finding.kind) or any(char.isdigit() for char in text):
            return f"the engine flags the replacement: {finding.message[:200]}"
    return ""


def _describe(error: BaseException) -> str:
    message = " ".join(str(error).split())[:500]
    return f"{type(error).__name__}: {message}" if message else type(error).__name__


def _worth_fixing(verdict: Verdict) -> bool:
    return any(finding.severity != "info" for finding in verdict.findings)


def _errored(verdict: Verdict, error: str) -> Verdict:
    """The deterministic verdict, never APPROVE, with the LLM error among its issues."""
    decision = stricter(verdict.decision, "REVISE")
    issues = [*verdict.issues, f"LLM judge errored: {error}"]
    hints = verdict.revision_hints
    if decision == "REVISE" and not hints:
        hints = "The LLM judge gave no valid answer; review the report by hand."
    return verdict.model_copy(
        update={"decision": decision, "issues": issues, "revision_hints": hints}
    )


def _retry_report(attempts: list[LLMAttemptRecord], status: str) -> LLMRetryReport:
    counts: dict[str, int] = {}
    for record in attempts:
        for error in record.errors:
            counts[error.category] = counts.get(error.category, 0) + 1
    succeeded = status == "ok"
    first_tries = [record for record in attempts if record.attempt == 1]
    return LLMRetryReport(
        attempts=len(attempts),
        first_attempt_success=succeeded and all(record.valid for record in first_tries),
        final_success=succeeded,
        status=status,
        errors_by_category=counts,
        recovered_categories=sorted(counts) if succeeded else [],
        history=attempts,
    )
