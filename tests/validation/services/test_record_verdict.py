"""Persisting the engine's verdict: the attempt's fields, findings, fixes with their proof,
tool calls, and the analysis' structured fields. Only the run that holds the attempt writes."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User

from analyses.models import Analysis
from tests.support.review_data import BODY, add_fix, add_revision, analysis_in_review, verdict
from validation import services
from validation.engine.types import ExtractedFields
from validation.models import Attempt, Finding, Fix, ToolCall

pytestmark = pytest.mark.django_db


def _running(**fields: Any) -> Attempt:
    analysis = analysis_in_review(
        status=Analysis.Status.VALIDATING, attempt_status=Attempt.Status.QUEUED, **fields
    )
    attempt = Attempt.objects.get(analysis=analysis)
    Attempt.objects.filter(pk=attempt.pk).update(status="running", run_token="run-1", runs=1)
    return attempt


def test_the_attempt_records_the_spec_schema_and_redlines_additions() -> None:
    attempt = _running()

    wrote = services.attempt_record_verdict(
        attempt_id=attempt.pk, run_token="run-1", verdict=verdict(), markdown="## 7.", elapsed_ms=12
    )

    assert wrote is True
    attempt.refresh_from_db()
    assert (attempt.status, attempt.decision, attempt.confidence) == ("done", "REVISE", 0.6)
    assert attempt.checks == {
        "claims_supported": True,
        "no_hallucinations": False,
        "query_addressed": True,
        "coherent_format": True,
        "source_metadata_present": True,
    }
    assert attempt.issues == ["Owner earnings arithmetic is wrong: 15.5 - 0.7 = 14.8, not 15.8."]
    assert attempt.revision_hints == "Recompute owner earnings."
    assert attempt.numbers["exact_matches"] == 0
    assert attempt.markdown == "## 7."
    assert attempt.timings == {"numbers": 1.5, "total_ms": 12}
    assert (attempt.tool_call_count, attempt.llm_call_count) == (2, 0)
    assert attempt.finished_at is not None
    assert attempt.lease_expires_at is None


def test_findings_and_fixes_are_stored_with_their_proof() -> None:
    attempt = _running()

    services.attempt_record_verdict(attempt_id=attempt.pk, run_token="run-1", verdict=verdict())

    findings = list(Finding.objects.filter(attempt=attempt).order_by("id"))
    assert [f.kind for f in findings] == ["raw_url", "arithmetic"]
    arithmetic = findings[1]
    assert arithmetic.text == "$15.8B"
    assert BODY[arithmetic.start : arithmetic.end] == "$15.8B"
    assert arithmetic.evidence == [
        {"source_ref": "gurufocus", "url": None, "excerpt": "capex: 0.7", "label": ""}
    ]
    fix = Fix.objects.get(attempt=attempt)
    assert (fix.find, fix.replace, fix.proposed_replace) == ("= $15.8B", "= $14.8B", "= $14.8B")
    assert fix.finding == arithmetic  # from finding_index
    assert (fix.revision_id, fix.status, fix.offset) == (
        attempt.revision_id,
        "proposed",
        BODY.index("= $15.8B"),
    )
    assert fix.verified_with == "calculator: 15.5 - 0.7 = 14.8"


def test_a_tool_call_listed_on_a_fix_and_on_the_verdict_is_stored_once_linked_to_the_fix() -> None:
    attempt = _running()

    services.attempt_record_verdict(attempt_id=attempt.pk, run_token="run-1", verdict=verdict())

    calls = {(call.tool, call.fix_id) for call in ToolCall.objects.filter(attempt=attempt)}
    fix = Fix.objects.get(attempt=attempt)
    assert calls == {("calculator", fix.pk), ("evidence_search", None)}
    calculator = ToolCall.objects.get(tool="calculator")
    assert (calculator.input, calculator.output) == ({"expression": "15.5 - 0.7"}, "14.8")


def test_a_run_that_lost_its_claim_writes_nothing() -> None:
    attempt = _running()

    wrote = services.attempt_record_verdict(
        attempt_id=attempt.pk, run_token="someone-else", verdict=verdict()
    )

    assert wrote is False
    attempt.refresh_from_db()
    assert attempt.status == "running"
    assert not Finding.objects.exists()
    assert not Fix.objects.exists()
    assert not ToolCall.objects.exists()


def test_a_done_attempt_is_never_recorded_twice() -> None:
    attempt = _running()
    services.attempt_record_verdict(attempt_id=attempt.pk, run_token="run-1", verdict=verdict())

    again = services.attempt_record_verdict(
        attempt_id=attempt.pk, run_token="run-1", verdict=verdict()
    )

    assert again is False
    assert Finding.objects.count() == 2
    assert Fix.objects.count() == 1


def test_fields_read_from_the_report_update_the_analysis_and_unreadable_ones_are_kept() -> None:
    attempt = _running()

    services.attempt_record_verdict(attempt_id=attempt.pk, run_token="run-1", verdict=verdict())

    analysis = Analysis.objects.get(pk=attempt.analysis_id)
    assert analysis.decision == "BUY"  # read
    assert analysis.conviction == "MODERATE"  # not readable (None): kept
    assert analysis.numeric_fields == {"intrinsic_value": "160.5", "roic": "0.225"}


def test_a_verdict_without_any_fields_empties_nothing() -> None:
    attempt = _running()
    empty = verdict(fields=ExtractedFields())

    services.attempt_record_verdict(attempt_id=attempt.pk, run_token="run-1", verdict=empty)

    analysis = Analysis.objects.get(pk=attempt.analysis_id)
    assert (analysis.decision, analysis.conviction) == ("WATCH", "MODERATE")
    assert analysis.numeric_fields == {"intrinsic_value": "152.4", "roic": "0.225"}


def test_a_fix_rejected_on_an_earlier_revision_arrives_rejected_with_the_earlier_reason(
    reviewer: User,
) -> None:
    analysis = analysis_in_review()
    rejected = add_fix(analysis, "= $15.8B", "= $14.8B", status=Fix.Status.REJECTED)
    Fix.objects.filter(pk=rejected.pk).update(reviewer=reviewer, reason="The filing says 15.8.")
    revision = add_revision(analysis, BODY, status=Attempt.Status.RUNNING, decision="")
    attempt = Attempt.objects.get(revision=revision)
    Attempt.objects.filter(pk=attempt.pk).update(run_token="run-2", confidence=None)
    proposal = verdict().fixes[0]
    assert (proposal.find, proposal.replace) == ("= $15.8B", "= $14.8B")

    services.attempt_record_verdict(attempt_id=attempt.pk, run_token="run-2", verdict=verdict())

    carried = Fix.objects.get(revision=revision)
    assert carried.status == Fix.Status.REJECTED
    assert carried.reviewer == reviewer
    assert carried.reason == "Rejected on revision 1: The filing says 15.8."


def test_a_different_replacement_for_the_same_text_is_proposed_afresh() -> None:
    analysis = analysis_in_review()
    add_fix(analysis, "= $15.8B", "= $14.9B", status=Fix.Status.REJECTED)
    revision = add_revision(analysis, BODY, status=Attempt.Status.RUNNING, decision="")
    attempt = Attempt.objects.get(revision=revision)
    Attempt.objects.filter(pk=attempt.pk).update(run_token="run-2", confidence=None)

    services.attempt_record_verdict(attempt_id=attempt.pk, run_token="run-2", verdict=verdict())

    assert Fix.objects.get(revision=revision).status == Fix.Status.PROPOSED
