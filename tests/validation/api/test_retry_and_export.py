"""The RETRY path (new evidence, new draft) and the exports of approved reports."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.utils import timezone

from analyses.models import Analysis, Evidence, Revision
from tests.support.review_data import add_fix, analysis_in_review
from validation.models import Fix
from validation.services import analysis_sign_off

pytestmark = pytest.mark.django_db

EVIDENCE = {"evidence": [{"source_ref": "10-K", "content": "Capex was 0.7 billion."}]}


def _retry_case(user: User) -> Any:
    return analysis_in_review(submitter=user, decision="RETRY", needs_new_input=True)


def test_new_evidence_makes_the_next_revision_and_revalidates(
    pipeline_user: User, writer: Any
) -> None:
    analysis = _retry_case(pipeline_user)
    response = writer.post(f"/analyses/{analysis.pk}/evidence", EVIDENCE)
    assert response.status_code == 202
    assert response.json()["revision"] == 2
    assert response.json()["analysis"]["status"] == "validating"
    assert Evidence.objects.filter(analysis=analysis, source_ref="10-K").exists()
    assert Revision.objects.get(analysis=analysis, number=2).reason == "new_evidence"


def test_a_new_draft_makes_the_next_revision(pipeline_user: User, writer: Any) -> None:
    analysis = _retry_case(pipeline_user)
    response = writer.post(f"/analyses/{analysis.pk}/drafts", {"body": "# New\n\nBetter."})
    assert response.status_code == 202
    assert Revision.objects.get(analysis=analysis, number=2).body == "# New\n\nBetter."


def test_past_the_loop_limits_a_submission_is_409(
    pipeline_user: User, writer: Any, nothing_written: Any
) -> None:
    analysis = analysis_in_review(
        submitter=pipeline_user, status="failed", decision="RETRY", retry_loops=1
    )
    with nothing_written():
        draft = writer.post(f"/analyses/{analysis.pk}/drafts", {"body": "Again."})
        evidence = writer.post(f"/analyses/{analysis.pk}/evidence", EVIDENCE)
    assert draft.status_code == evidence.status_code == 409
    assert "RETRY loop limit reached" in draft.json()["message"]


def test_a_failed_analysis_takes_a_new_draft_while_loops_remain(
    pipeline_user: User, writer: Any
) -> None:
    analysis = analysis_in_review(submitter=pipeline_user, status="failed", decision="FAIL")

    response = writer.post(f"/analyses/{analysis.pk}/drafts", {"body": "# New\n\nBetter."})

    assert response.status_code == 202
    assert response.json()["analysis"]["status"] == "validating"
    assert Revision.objects.get(analysis=analysis, number=2).reason == "new_draft"


def test_an_approved_analysis_exports_that_it_needs_no_new_input(
    pipeline_user: User, reviewer: User, reader: Any
) -> None:
    analysis = analysis_in_review(submitter=pipeline_user, decision="RETRY", needs_new_input=True)
    add_revision_approved = analysis_sign_off(analysis=analysis, user=reviewer, comment="Fine.")

    data = reader.get(f"/analyses/{add_revision_approved.pk}/export").json()

    assert data["status"] == "approved" and data["needs_new_input"] is False


@pytest.mark.parametrize(
    ("path", "payload", "status", "field"),
    [
        ("drafts", b"not json", 400, None),
        ("drafts", {"body": ""}, 422, "body"),
        ("drafts", {"text": "x"}, 422, "body"),
        ("evidence", {"evidence": []}, 422, "evidence"),
        ("evidence", {"evidence": [{"content": "x"}]}, 422, "evidence[0].source_ref"),
        ("evidence", [1, 2], 422, None),
    ],
)
def test_bad_retry_payloads(
    pipeline_user: User,
    writer: Any,
    nothing_written: Any,
    path: Any,
    payload: Any,
    status: Any,
    field: Any,
) -> None:
    analysis = _retry_case(pipeline_user)
    with nothing_written():
        response = writer.post(f"/analyses/{analysis.pk}/{path}", payload)
    assert response.status_code == status
    assert response.json()["field"] == field


def test_retry_endpoints_refuse_read_tokens_strangers_and_unknown_ids(
    pipeline_user: User, reader: Any, outsider_api: Any, writer: Any
) -> None:
    analysis = _retry_case(pipeline_user)
    assert reader.post(f"/analyses/{analysis.pk}/drafts", {"body": "x"}).status_code == 403
    assert outsider_api.post(f"/analyses/{analysis.pk}/drafts", {"body": "x"}).status_code == 404
    assert writer.post("/analyses/999999/evidence", EVIDENCE).status_code == 404


def _approved(user: User, reviewer: User) -> Any:
    analysis = analysis_in_review(submitter=user, decision="APPROVE")
    fix = add_fix(analysis, "$15.8B", "$14.8B", status=Fix.Status.ACCEPTED)
    applied_in = Revision.objects.create(
        analysis=analysis, number=2, body=fix.revision.body.replace("$15.8B", "$14.8B")
    )
    Fix.objects.filter(pk=fix.pk).update(
        status=Fix.Status.APPLIED,
        applied_in=applied_in,
        reviewer=reviewer,
        reviewed_at=timezone.now(),
        verified_with="15.5 - 0.7 = 14.8",
    )
    from tests.factories import AttemptFactory

    AttemptFactory.create(revision=applied_in, status="done", decision="APPROVE", confidence=0.92)
    return analysis_sign_off(analysis=analysis, user=reviewer, comment="Checked the capex.")


def test_export_json_has_body_fixes_with_who_accepted_and_sign_off(
    pipeline_user: User, reviewer: User, reader: Any
) -> None:
    analysis = _approved(pipeline_user, reviewer)
    response = reader.get(f"/analyses/{analysis.pk}/export")
    assert response.status_code == 200
    data = response.json()
    assert "$14.8B" in data["body"] and data["revision"] == 2
    [fix] = data["applied_fixes"]
    assert fix["reviewer"] == "dana" and fix["verified_with"] == "15.5 - 0.7 = 14.8"
    assert data["validation"]["decision"] == "APPROVE"
    assert data["sign_off"]["by"] == "dana"
    assert data["sign_off"]["comment"] == "Checked the capex."


def test_export_markdown_is_the_report_plus_an_appendix(
    pipeline_user: User, reviewer: User, reader: Any
) -> None:
    analysis = _approved(pipeline_user, reviewer)
    response = reader.get(f"/analyses/{analysis.pk}/export", format="markdown")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/markdown")
    text = response.content.decode()
    assert text.startswith("# NVO quick screen")
    assert "## Validation appendix" in text
    assert "`$15.8B` → `$14.8B`" in text and "accepted by dana" in text


def test_the_markdown_export_writes_numbers_for_people_and_json_keeps_them(
    pipeline_user: User, reviewer: User, reader: Any
) -> None:
    analysis = _approved(pipeline_user, reviewer)
    Fix.objects.filter(revision__analysis=analysis).update(
        verified_with="calculator: 16.4 * 1000000 = 16400000.000000004"
    )

    text = reader.get(f"/analyses/{analysis.pk}/export", format="markdown").content.decode()
    data = reader.get(f"/analyses/{analysis.pk}/export").json()

    assert r"VERIFIED_WITH: calculator: 16.4 \* 1,000,000 = 16,400,000" in text  # "*" escaped
    assert "16400000.000000004" not in text
    assert data["applied_fixes"][0]["verified_with"].endswith("= 16400000.000000004")


def test_export_of_an_unapproved_analysis_is_409_and_bad_format_422(
    pipeline_user: User, reader: Any
) -> None:
    analysis = analysis_in_review(submitter=pipeline_user)
    assert reader.get(f"/analyses/{analysis.pk}/export").status_code == 409
    assert reader.get(f"/analyses/{analysis.pk}/export", format="pdf").status_code == 422
    assert reader.get("/analyses/999999/export").status_code == 404


def test_approved_export_is_json_lines_with_a_cursor(
    pipeline_user: User, reviewer: User, reader: Any
) -> None:
    first, second = _approved(pipeline_user, reviewer), _approved(pipeline_user, reviewer)
    analysis_in_review(submitter=pipeline_user)  # not approved: not exported
    response = reader.get("/exports/approved", limit=1)
    assert response["Content-Type"].startswith("application/x-ndjson")
    [line] = [json.loads(row) for row in response.content.decode().splitlines()]
    assert line["id"] == first.pk
    rest = reader.get("/exports/approved", cursor=response["X-Next-Cursor"])
    assert [json.loads(row)["id"] for row in rest.content.decode().splitlines()] == [second.pk]
    assert "X-Next-Cursor" not in rest
    assert reader.get("/exports/approved", since="2999-01-01T00:00:00Z").content == b""
    assert reader.get("/exports/approved", since="soon").status_code == 422


def test_export_approved_command_writes_json_and_markdown(
    pipeline_user: User, reviewer: User, tmp_path: Path
) -> None:
    analysis = _approved(pipeline_user, reviewer)
    call_command("export_approved", str(tmp_path / "out"))
    data = json.loads((tmp_path / "out" / f"{analysis.pk}.json").read_text())
    assert data["sign_off"]["by"] == "dana"
    assert "## Validation appendix" in (tmp_path / "out" / f"{analysis.pk}.md").read_text()
    call_command("export_approved", str(tmp_path / "later"), since="2999-01-01T00:00:00Z")
    assert list((tmp_path / "later").iterdir()) == []
    assert Analysis.objects.get(pk=analysis.pk).status == "approved"


def test_the_openapi_schema_names_every_field_of_both_exports(
    pipeline_user: User, reviewer: User, reader: Any
) -> None:
    from validation.api.responses import ApprovedExport, ExportOut
    from validation.api.routes import api

    analysis = _approved(pipeline_user, reviewer)
    schema = api.get_openapi_schema()
    components = schema["components"]["schemas"]
    export = reader.get(f"/analyses/{analysis.pk}/export").json()
    line = json.loads(reader.get("/exports/approved").content.splitlines()[0])

    assert set(components["ExportOut"]["properties"]) == set(export)
    assert set(components["FixOut"]["properties"]) == set(export["applied_fixes"][0])
    assert set(components["ValidationOut"]["properties"]) == set(export["validation"])
    assert set(components["SignOffOut"]["properties"]) == set(export["sign_off"])
    assert set(components["EvidenceRefOut"]["properties"]) == set(export["evidence"][0])
    assert set(components["ApprovedExport"]["properties"]) == set(line)
    ExportOut.model_validate(export)  # closed: a key the schema does not name fails
    ApprovedExport.model_validate(line)
    paths = schema["paths"]
    export_200 = paths["/api/v1/analyses/{analysis_id}/export"]["get"]["responses"][200]
    lines_200 = paths["/api/v1/exports/approved"]["get"]["responses"][200]
    assert export_200["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/ExportOut"
    }
    assert lines_200["content"]["application/x-ndjson"]["schema"] == {
        "$ref": "#/components/schemas/ApprovedExport"
    }
