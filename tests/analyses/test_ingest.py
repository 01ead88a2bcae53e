"""analysis_submit: a bundle becomes an Analysis, its Evidence, Revision 1 and a queued Attempt
in one transaction; every bad input is a clear IngestError that writes nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import IntegrityError, connection
from pytest_django import Settings

from analyses.bundles import bundle_digest, bundle_parse
from analyses.models import Analysis, Evidence, Pipeline, Revision
from redline_errors import IngestError
from tests.support.bundles import row_counts
from validation.models import Attempt, AuditEvent
from validation.services import analysis_submit

pytestmark = pytest.mark.django_db


# ---------------------------------------------------------------- a valid bundle


def test_a_valid_bundle_creates_the_analysis_its_evidence_and_revision_1(
    bundle: Any, reviewer: User
) -> None:
    result = analysis_submit(data=bundle, submitter=reviewer)

    assert result.created is True
    analysis = result.analysis
    assert analysis.title == "Novo Nordisk (NVO) quick screen"
    assert analysis.query == bundle["query"]
    assert analysis.goals == ["Owner earnings", "A decision"]
    assert analysis.status == Analysis.Status.VALIDATING
    assert analysis.submitter == reviewer
    assert analysis.external_id == "nvo-2024-q4"
    assert len(analysis.bundle_sha256) == 64

    revision = analysis.revisions.get()
    assert (revision.number, revision.reason, revision.author) == (1, Revision.Reason.DRAFT, None)
    assert revision.body == bundle["body"]


def test_json_evidence_is_stored_as_json_and_text_evidence_as_text(bundle: Any) -> None:
    analysis = analysis_submit(data=bundle, submitter=None).analysis

    tool, report = analysis.evidence.order_by("id")
    assert tool.source_ref == "gurufocus"
    assert tool.kind == "tool_output"
    assert tool.url == "https://www.gurufocus.com/stock/NVO/financials"
    assert tool.content_json == {
        "operating_cash_flow": 15500000000,
        "capex": 700000000,
        "roic": 0.225,
    }
    assert tool.content_text == ""
    assert report.content_text == "Operating cash flow was 15.5 billion USD in 2024."
    assert report.content_json is None
    assert report.url == ""


def test_structured_fields_are_sorted_into_decision_conviction_numeric_and_extra(
    bundle: Any,
) -> None:
    analysis = analysis_submit(data=bundle, submitter=None).analysis

    assert analysis.decision == "WATCH"  # normalised to upper case
    assert analysis.conviction == "MODERATE"
    # Numbers are kept as decimal strings: no float rounding on the way through JSON.
    assert analysis.numeric_fields == {
        "intrinsic_value": "152.4",
        "margin_of_safety": "11.93",
        "shares_outstanding": "4440000000",
    }
    assert analysis.extra_fields == {"currency": "USD", "analysts": ["buffett-agent"]}


def test_decision_and_conviction_missing_from_fields_are_read_from_the_body(bundle: Any) -> None:
    del bundle["fields"]["decision"], bundle["fields"]["conviction"]

    analysis = analysis_submit(data=bundle, submitter=None).analysis

    assert (analysis.decision, analysis.conviction) == ("WATCH", "MODERATE")


def test_numeric_fields_missing_from_the_bundle_are_read_from_the_body(bundle: Any) -> None:
    bundle["body"] += "\nIntrinsic value per share: $160.00. Current price: $134.22.\n"

    analysis = analysis_submit(data=bundle, submitter=None).analysis

    assert analysis.numeric_fields["intrinsic_value"] == "152.4"  # the bundle's own value wins
    assert analysis.numeric_fields["current_price"] == "134.22"


def test_fields_sent_in_the_bundle_win_over_the_body(bundle: Any) -> None:
    bundle["fields"]["decision"] = "AVOID"

    assert analysis_submit(data=bundle, submitter=None).analysis.decision == "AVOID"


def test_a_bundle_without_fields_or_a_final_decision_leaves_them_blank(bundle: Any) -> None:
    bundle["fields"] = {}
    bundle["body"] = "# Note\n\nOperating cash flow was $15.5B [gurufocus].\n"

    analysis = analysis_submit(data=bundle, submitter=None).analysis

    assert (analysis.decision, analysis.conviction) == ("", "")


def test_ingest_queues_one_attempt_for_revision_1_and_records_an_audit_event(
    bundle: Any, reviewer: User
) -> None:
    analysis = analysis_submit(data=bundle, submitter=reviewer).analysis

    attempt = Attempt.objects.get(analysis=analysis)
    assert attempt.revision == analysis.revisions.get(number=1)
    assert (attempt.number, attempt.status) == (1, Attempt.Status.QUEUED)
    event = AuditEvent.objects.get(analysis=analysis)
    assert event.action == AuditEvent.Action.INGESTED
    assert event.actor == reviewer
    assert event.revision == attempt.revision
    assert event.data["external_id"] == "nvo-2024-q4"
    assert event.data["evidence_items"] == 2


def test_the_validation_task_is_sent_only_when_the_transaction_commits(
    bundle: Any, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        analysis_submit(data=bundle, submitter=None)

    assert len(callbacks) == 1


def test_json_bytes_and_json_text_are_accepted(bundle: Any) -> None:
    from_bytes = analysis_submit(data=json.dumps(bundle).encode(), submitter=None)
    bundle["external_id"] = "another"
    from_text = analysis_submit(data=json.dumps(bundle), submitter=None)

    assert from_bytes.created and from_text.created
    assert from_bytes.analysis.bundle_sha256 == from_text.analysis.bundle_sha256


def test_a_utf8_byte_order_mark_is_ignored(bundle: Any) -> None:
    result = analysis_submit(data=b"\xef\xbb\xbf" + json.dumps(bundle).encode(), submitter=None)

    assert result.created


def test_without_a_title_the_first_heading_of_the_body_is_the_title(bundle: Any) -> None:
    bundle["title"] = ""

    assert analysis_submit(data=bundle, submitter=None).analysis.title == "NVO quick screen"


def test_without_title_or_heading_the_query_is_the_title(bundle: Any) -> None:
    bundle["title"] = ""
    bundle["body"] = "Owner earnings were $14.8B [gurufocus]."

    assert analysis_submit(data=bundle, submitter=None).analysis.title == bundle["query"]


def test_a_minimal_bundle_needs_only_query_and_body() -> None:
    result = analysis_submit(data={"query": "What is 2 + 2?", "body": "4."}, submitter=None)

    assert result.created
    assert result.analysis.evidence.count() == 0
    assert result.analysis.external_id == ""


# ---------------------------------------------------------------- idempotency


def test_re_ingesting_the_same_external_id_and_content_returns_the_existing_analysis(
    bundle: Any, reviewer: User
) -> None:
    first = analysis_submit(data=bundle, submitter=reviewer)
    before = row_counts()

    again = analysis_submit(data=json.dumps(bundle, indent=4).encode(), submitter=reviewer)

    assert again.created is False
    assert again.analysis.pk == first.analysis.pk
    assert row_counts() == before


def test_the_same_external_id_with_different_content_is_an_error_and_writes_nothing(
    bundle: Any, reviewer: User, nothing_written: Any
) -> None:
    original = analysis_submit(data=bundle, submitter=reviewer).analysis
    bundle["body"] += "\nOne more sentence.\n"

    with nothing_written(), pytest.raises(IngestError) as caught:
        analysis_submit(data=bundle, submitter=reviewer)

    assert str(caught.value).startswith(
        "external_id 'nvo-2024-q4' was already used for a different bundle"
    )
    assert f"analysis {original.pk}" in str(caught.value)


def test_external_ids_belong_to_their_pipeline(
    bundle: Any, reviewer: User, other_reviewer: User
) -> None:
    research = Pipeline.objects.create(slug="research", name="Research")
    mine = analysis_submit(data=bundle, submitter=reviewer)
    theirs = analysis_submit(data=bundle, submitter=other_reviewer, pipeline=research)
    again = analysis_submit(data=bundle, submitter=other_reviewer)

    assert mine.created and theirs.created
    assert mine.analysis.pk != theirs.analysis.pk
    assert (mine.analysis.pipeline.slug, theirs.analysis.pipeline.slug) == ("default", "research")
    # Within one pipeline the external id is the pipeline's, whoever sends it again.
    assert not again.created and again.analysis.pk == mine.analysis.pk


def test_without_a_submitter_the_external_id_is_still_idempotent(bundle: Any) -> None:
    first = analysis_submit(data=bundle, submitter=None)
    again = analysis_submit(data=bundle, submitter=None)

    assert again.created is False
    assert again.analysis.pk == first.analysis.pk


@pytest.mark.parametrize("external_id", [None, ""])
def test_bundles_without_an_external_id_are_always_new(bundle: Any, external_id: Any) -> None:
    bundle["external_id"] = external_id

    first = analysis_submit(data=bundle, submitter=None)
    second = analysis_submit(data=bundle, submitter=None)

    assert first.created and second.created
    assert first.analysis.pk != second.analysis.pk


def test_a_concurrent_ingest_that_wins_the_race_is_returned_not_duplicated(
    bundle: Any, reviewer: User
) -> Any:
    """Another ingest of the same external_id commits first. Ingest does not look before it
    inserts (there is no window between a lookup and the insert): the unique
    constraint refuses our insert, everything of ours is rolled back, and ingest returns the
    winner's analysis."""
    digest = bundle_digest(bundle_parse(bundle))
    winner = Analysis.objects.create(
        query="q", submitter=reviewer, external_id="nvo-2024-q4", bundle_sha256=digest
    )
    refused: list[str] = []

    def watch(execute: Any, sql: Any, params: Any, many: Any, context: Any) -> Any:
        try:
            return execute(sql, params, many, context)
        except IntegrityError:
            refused.append(sql)
            raise

    with connection.execute_wrapper(watch):
        result = analysis_submit(data=bundle, submitter=reviewer)

    assert len(refused) == 1 and '"analyses_analysis"' in refused[0]
    assert result.created is False
    assert result.analysis.pk == winner.pk
    assert Analysis.objects.filter(external_id="nvo-2024-q4").count() == 1
    assert Revision.objects.count() == 0  # the loser's revision was rolled back with it
    assert not AuditEvent.objects.exists() and not Attempt.objects.exists()


# ---------------------------------------------------------------- every bad input


def _without(data: dict[str, Any], *path: Any) -> dict[str, Any]:
    target: Any = data
    for key in path[:-1]:
        target = target[key]
    del target[path[-1]]
    return data


def _with(data: dict[str, Any], value: Any, *path: Any) -> dict[str, Any]:
    target: Any = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return data


INVALID = [
    # missing fields
    ("missing query", lambda b: _without(b, "query"), "query: field required"),
    ("missing body", lambda b: _without(b, "body"), "body: field required"),
    (
        "missing source_ref",
        lambda b: _without(b, "evidence", 0, "source_ref"),
        "evidence[0].source_ref: field required",
    ),
    (
        "missing content",
        lambda b: _without(b, "evidence", 1, "content"),
        "evidence[1].content: field required",
    ),
    # wrong types
    ("query not text", lambda b: _with(b, 42, "query"), "query: input should be a valid string"),
    ("body null", lambda b: _with(b, None, "body"), "body: input should be a valid string"),
    ("goals not a list", lambda b: _with(b, "x", "goals"), "goals: input should be a valid list"),
    (
        "evidence not a list",
        lambda b: _with(b, {"a": 1}, "evidence"),
        "evidence: input should be a valid list",
    ),
    (
        "evidence item not an object",
        lambda b: _with(b, "gurufocus", "evidence", 0),
        "evidence[0]: input should be a valid dictionary",
    ),
    (
        "content a number",
        lambda b: _with(b, 15.5, "evidence", 0, "content"),
        "evidence[0].content: must be text or JSON (an object or an array)",
    ),
    (
        "numeric field not a number",
        lambda b: _with(b, "about 150", "fields", "intrinsic_value"),
        "fields.intrinsic_value: must be a number",
    ),
    (
        "decision not a label",
        lambda b: _with(b, 3, "fields", "decision"),
        "fields.decision: must be a short label such as BUY, WATCH or AVOID",
    ),
    (
        "conviction too long",
        lambda b: _with(b, "MODERATELY HIGH BUT UNSURE", "fields", "conviction"),
        "fields.conviction: must be a short label such as HIGH, MODERATE or LOW",
    ),
    ("unknown top-level field", lambda b: _with(b, 1, "author"), "author: unknown field"),
    (
        "unknown evidence field",
        lambda b: _with(b, "x", "evidence", 0, "contents"),
        "evidence[0].contents: unknown field (allowed: source_ref, kind, url, content)",
    ),
    # blank values
    ("blank query", lambda b: _with(b, "   ", "query"), "query: must not be blank"),
    ("empty body", lambda b: _with(b, "", "body"), "body: must not be blank"),
    (
        "blank source_ref",
        lambda b: _with(b, "  ", "evidence", 0, "source_ref"),
        "evidence[0].source_ref: must not be blank",
    ),
    (
        "blank text evidence",
        lambda b: _with(b, " \n", "evidence", 1, "content"),
        "evidence[1].content: must not be empty",
    ),
    ("blank goal", lambda b: _with(b, ["ok", " "], "goals"), "goals[1]: must not be blank"),
    ("huge goal", lambda b: _with(b, ["x" * 2001], "goals"), "goals[0]: at most 2000 characters"),
    (
        "too many fields",
        lambda b: _with(b, {f"f{i}": "x" for i in range(101)}, "fields"),
        "fields: at most 100 fields, got 101",
    ),
    (
        "huge fields",
        lambda b: _with(b, {"notes": "x" * 100_001}, "fields"),
        "fields: at most 100000 bytes of JSON",
    ),
    # malformed evidence
    (
        "evidence url not a URL",
        lambda b: _with(b, "gurufocus financials", "evidence", 0, "url"),
        "evidence[0].url: 'gurufocus financials' is not a valid URL",
    ),
    (
        "evidence url not http",
        lambda b: _with(b, "javascript:alert(1)", "evidence", 0, "url"),
        "evidence[0].url: 'javascript:alert(1)' is not a valid URL",
    ),
    (
        "duplicate source_ref",
        lambda b: _with(b, "gurufocus", "evidence", 1, "source_ref"),
        "evidence[1].source_ref 'gurufocus' is used more than once",
    ),
    # what no database column can hold
    ("NUL in body", lambda b: _with(b, "a\x00b", "body"), "body: contains a NUL character"),
    (
        "unpaired surrogate",
        lambda b: _with(b, "bad \ud800 text", "evidence", 1, "content"),
        "evidence[1].content: contains an unpaired surrogate (U+D800)",
    ),
    (
        "infinite number in evidence",
        lambda b: _with(b, {"roic": float("inf")}, "evidence", 0, "content"),
        "evidence[0].content.roic: must be a finite number",
    ),
    (
        "non-JSON value",
        lambda b: _with(b, {"when": object()}, "evidence", 0, "content"),
        "evidence[0].content.when: a object is not a JSON value",
    ),
]


@pytest.mark.parametrize(
    ("change", "message"), [case[1:] for case in INVALID], ids=[case[0] for case in INVALID]
)
def test_each_invalid_bundle_is_rejected_with_a_message_naming_the_field(
    bundle: Any, reviewer: User, nothing_written: Any, change: Any, message: Any
) -> None:
    data = change(bundle)

    with nothing_written(), pytest.raises(IngestError) as caught:
        analysis_submit(data=data, submitter=reviewer)

    assert message in caught.value.errors[0] or message in str(caught.value)


def test_all_problems_of_a_bundle_are_reported_together(bundle: Any, nothing_written: Any) -> None:
    del bundle["query"]
    bundle["evidence"][0]["url"] = "nope"
    del bundle["evidence"][1]["source_ref"]

    with nothing_written(), pytest.raises(IngestError) as caught:
        analysis_submit(data=bundle, submitter=None)

    assert caught.value.errors == [
        "query: field required",
        "evidence[0].url: 'nope' is not a valid URL",
        "evidence[1].source_ref: field required",
    ]


def test_an_oversized_body_is_rejected_in_bytes_not_characters(
    bundle: Any, settings: Settings, nothing_written: Any
) -> None:
    settings.REDLINE_MAX_BODY_BYTES = 1000
    bundle["body"] = "é" * 501  # 501 characters, 1002 bytes

    with nothing_written(), pytest.raises(IngestError) as caught:
        analysis_submit(data=bundle, submitter=None)

    assert str(caught.value) == (
        "body: exceeds the 1000-byte limit (REDLINE_MAX_BODY_BYTES); it is 1002 bytes"
    )


def test_a_body_at_the_limit_is_accepted(bundle: Any, settings: Settings) -> None:
    settings.REDLINE_MAX_BODY_BYTES = 1000
    bundle["body"] = "é" * 500

    assert analysis_submit(data=bundle, submitter=None).created


def test_oversized_evidence_is_rejected(
    bundle: Any, settings: Settings, nothing_written: Any
) -> None:
    settings.REDLINE_MAX_EVIDENCE_BYTES = 100
    bundle["evidence"][1]["content"] = "x" * 60

    with nothing_written(), pytest.raises(IngestError) as caught:
        analysis_submit(data=bundle, submitter=None)

    assert str(caught.value).startswith(
        "evidence: exceeds the 100-byte limit in total (REDLINE_MAX_EVIDENCE_BYTES)"
    )


def test_oversized_input_bytes_are_rejected_before_parsing(
    settings: Settings, nothing_written: Any
) -> None:
    settings.REDLINE_MAX_BODY_BYTES = 10
    settings.REDLINE_MAX_EVIDENCE_BYTES = 10
    data = b"[" * 1_000_100

    with nothing_written(), pytest.raises(IngestError) as caught:
        analysis_submit(data=data, submitter=None)

    assert str(caught.value).startswith("bundle: exceeds the 1000020-byte input limit")


def test_non_utf8_bytes_in_the_body_name_the_body(bundle: Any, nothing_written: Any) -> None:
    data = json.dumps(bundle).encode().replace(b"NVO quick screen\\n", b"NVO \xff screen\\n", 1)

    with nothing_written(), pytest.raises(IngestError) as caught:
        analysis_submit(data=data, submitter=None)

    assert str(caught.value) == "body is not valid UTF-8 (byte 0xff)"


def test_non_utf8_bytes_outside_any_string_give_their_offset(nothing_written: Any) -> None:
    with nothing_written(), pytest.raises(IngestError) as caught:
        analysis_submit(data=b'{"query": "q", \xfe "body": "b"}', submitter=None)

    assert str(caught.value) == "bundle is not valid UTF-8 (byte 0xfe at offset 15)"


def test_malformed_json_gives_line_and_column(nothing_written: Any) -> None:
    text = '{\n  "query": "q",\n  "body" "no colon"\n}'

    with nothing_written(), pytest.raises(IngestError) as caught:
        analysis_submit(data=text, submitter=None)

    assert str(caught.value) == "malformed JSON at line 3 column 10: Expecting ':' delimiter"


def test_nan_is_not_json(nothing_written: Any) -> None:
    with nothing_written(), pytest.raises(IngestError) as caught:
        analysis_submit(data='{"query": "q", "body": "b", "fields": {"x": NaN}}', submitter=None)

    assert str(caught.value) == "malformed JSON: NaN is not a valid JSON number"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("[]", "bundle must be a JSON object, got an array"),
        ('"text"', "bundle must be a JSON object, got a string"),
        ("null", "bundle must be a JSON object, got null"),
        ("", "malformed JSON at line 1 column 1: Expecting value"),
    ],
)
def test_a_bundle_must_be_a_json_object(data: Any, message: Any, nothing_written: Any) -> None:
    with nothing_written(), pytest.raises(IngestError) as caught:
        analysis_submit(data=data, submitter=None)

    assert str(caught.value) == message


def test_a_duplicate_source_ref_writes_no_evidence(bundle: Any, nothing_written: Any) -> None:
    bundle["evidence"].append(dict(bundle["evidence"][0]))

    with nothing_written(), pytest.raises(IngestError):
        analysis_submit(data=bundle, submitter=None)

    assert Evidence.objects.count() == 0


def test_an_ingest_error_lists_each_problem_and_joins_them_in_its_message() -> None:
    error = IngestError(["query: field required", "body: field required"])

    assert error.errors == ["query: field required", "body: field required"]
    assert str(error) == "query: field required; body: field required"


def test_a_write_that_fails_half_way_rolls_back_everything(bundle: Any, reviewer: User) -> Any:
    """Ingest is one transaction: if the evidence insert fails, the analysis goes too."""

    def fail_evidence_insert(execute: Any, sql: Any, params: Any, many: Any, context: Any) -> Any:
        if "INSERT INTO" in sql and "analyses_evidence" in sql:
            raise IntegrityError("simulated failure")
        return execute(sql, params, many, context)

    before = row_counts()
    with connection.execute_wrapper(fail_evidence_insert), pytest.raises(IntegrityError):
        analysis_submit(data=bundle, submitter=reviewer)

    assert row_counts() == before


def test_evidence_nested_too_deeply_is_rejected_naming_the_item(
    bundle: Any, nothing_written: Any
) -> None:
    content: Any = 1.5
    for _ in range(500):
        content = {"level": content}
    bundle["evidence"][0]["content"] = content

    with pytest.raises(IngestError) as caught:
        analysis_submit(data=bundle, submitter=None)

    assert "evidence[0].content" in str(caught.value)
    assert "evidence[0].content: is nested deeper than 64 levels" in str(caught.value)
