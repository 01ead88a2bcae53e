"""The REST API under /api/v1/ (django-ninja): thin endpoints over services and exports.

Every write body is read raw and parsed by ``analyses.bundles`` (the bundle model and limits
the CLI and import use), so a bad payload gets the same field-naming messages everywhere.
Every error is JSON ``{"message", "field"}`` with the status ``redline_errors`` gives it;
a dependency that is down (the database, the broker) is a 503 with ``Retry-After``, and
anything unforeseen a JSON 500, never an HTML page.
"""

from __future__ import annotations

import json
import logging
import re
from datetime import UTC, datetime
from functools import partial
from typing import Annotated, Any, Literal

from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse
from kombu.exceptions import KombuError
from ninja import Field, NinjaAPI, Query, Schema, Status
from ninja import Path as PathParam
from ninja.errors import AuthenticationError, HttpError
from ninja.errors import ValidationError as NinjaValidationError
from ninja.operation import Operation
from ninja.security import HttpBearer
from pydantic import AfterValidator, BeforeValidator, WithJsonSchema
from redis import RedisError

from analyses.bundles import max_input_bytes, payload_parse
from analyses.models import Analysis
from redline_errors import DomainError, IngestError, RedlineError, http_status
from validation import services
from validation.api import exports
from validation.api import schema as api_schema
from validation.api.responses import (
    AnalysisDetailOut,
    AnalysisOut,
    AnalysisPage,
    ApprovedExport,
    ExportOut,
    SubmittedOut,
)
from validation.engine.limits import MAX_BODY_CHARS
from validation.engine.types import EvidenceItem
from validation.models import ApiToken
from validation.permissions import analyses_for_token

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# What a client is told to wait when a dependency is down (a restart takes seconds).
RETRY_AFTER_SECONDS = 5

logger = logging.getLogger(__name__)


class ApiProblem(Exception):
    """An HTTP-level refusal (401, 403, 413, 429) before any service is called."""

    def __init__(
        self, status: int, message: str, field: str | None = None, retry_after: float = 0.0
    ) -> None:
        super().__init__(message)
        self.status, self.message, self.field, self.retry_after = (
            status,
            message,
            field,
            retry_after,
        )


class TokenAuth(HttpBearer):
    """Bearer token; then the write scope, the per-token rate, the body size and the query
    string, in that order, all before the body is read."""

    def authenticate(self, request: HttpRequest, token: str) -> ApiToken | None:
        api_token = services.api_token_authenticate(token)
        if api_token is None:
            return None
        if request.method not in SAFE_METHODS and not api_token.can_write:
            raise ApiProblem(403, "This token is read-only; a write needs a write token.")
        wait = services.api_token_throttle(token=api_token)
        if wait:
            raise ApiProblem(429, "Too many requests for this token; slow down.", retry_after=wait)
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        limit = max_input_bytes()
        if length > limit:
            raise ApiProblem(413, f"The request body is {length} bytes; the limit is {limit}.")
        for name, values in request.GET.lists():
            # Every parameter takes one value; ninja would silently keep the last of several.
            if len(values) > 1:
                raise ApiProblem(
                    400, f"{name[:100]}: given {len(values)} times; give it once.", name[:100]
                )
        return api_token


class RedlineAPI(NinjaAPI):
    """NinjaAPI whose schema also holds the components the request bodies refer to."""

    def get_openapi_schema(self, *args: Any, **kwargs: Any) -> Any:
        schema = super().get_openapi_schema(*args, **kwargs)
        components = schema["components"].setdefault("schemas", {})
        components.update(api_schema.COMPONENTS)
        # /exports/approved answers JSON lines, so ninja registers no model for them.
        lines = ApprovedExport.model_json_schema(ref_template="#/components/schemas/{model}")
        components.update(lines.pop("$defs", {}))
        components["ApprovedExport"] = lines
        return schema

    def get_openapi_operation_id(self, operation: Operation) -> str:
        return api_schema.operation_id(operation.view_func.__name__)


api = RedlineAPI(
    title="Redline API",
    version="1",
    description="Submit reports with their evidence, follow their validation, export approved "
    "reports. Authenticate with `Authorization: Bearer <token>` (manage.py api_token create).",
    urls_namespace="api-v1",
    auth=TokenAuth(),
)


# ---------------------------------------------------------------- errors


class ErrorOut(Schema):
    message: str
    field: str | None = None


# Every error is this JSON, but 414, which the web server in front answers itself.
ERRORS: dict[int, type[Schema]] = dict.fromkeys(
    (status for status in api_schema.ERROR_STATUSES if status != 414), ErrorOut
)


def _error(request: HttpRequest, status: int, message: str, field: str | None) -> HttpResponse:
    return api.create_response(request, {"message": message, "field": field}, status=status)


def _field_of(message: str) -> str | None:
    head, sep, _ = message.partition(": ")
    return head if sep and " " not in head else None


@api.exception_handler(RedlineError)
def _redline_error(request: HttpRequest, exc: RedlineError) -> HttpResponse:
    first = exc.errors[0] if isinstance(exc, IngestError) and exc.errors else str(exc)
    return _error(request, http_status(exc), str(exc), _field_of(first))


@api.exception_handler(ApiProblem)
def _api_problem(request: HttpRequest, exc: ApiProblem) -> HttpResponse:
    response = _error(request, exc.status, exc.message, exc.field)
    if exc.retry_after:
        response["Retry-After"] = str(int(exc.retry_after))
    return response


@api.exception_handler(AuthenticationError)
def _unauthorized(request: HttpRequest, exc: AuthenticationError) -> HttpResponse:
    response = _error(
        request, 401, "Send a valid API token: Authorization: Bearer <token>.", "Authorization"
    )
    response["WWW-Authenticate"] = "Bearer"
    return response


@api.exception_handler(NinjaValidationError)
def _invalid(request: HttpRequest, exc: NinjaValidationError) -> HttpResponse:
    first = exc.errors[0] if exc.errors else {}
    loc = [str(part) for part in first.get("loc", ()) if part not in ("query", "path", "body")]
    field = ".".join(loc) or None
    message = f"{field}: {first.get('msg', 'invalid')}" if field else str(first.get("msg"))
    return _error(request, 422, message, field)


@api.exception_handler(Http404)
def _not_found(request: HttpRequest, exc: Http404) -> HttpResponse:
    return _error(request, 404, str(exc) or "Not found.", None)


@api.exception_handler(HttpError)
def _http_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
    return _error(request, exc.status_code, str(exc), None)


# What an error of each kind says is down: a JSON 503 with Retry-After, never an HTML 500.
UNAVAILABLE: dict[type[Exception], str] = {
    OperationalError: "database",
    InterfaceError: "database",
    KombuError: "broker",
    RedisError: "cache",
}


def _unavailable(request: HttpRequest, exc: Exception, *, dependency: str) -> HttpResponse:
    logger.warning(
        "API %s %s: the %s is unavailable: %s", request.method, request.path, dependency, exc
    )
    response = _error(
        request, 503, f"The {dependency} is unavailable; try again in a few seconds.", None
    )
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


for _kind, _dependency in UNAVAILABLE.items():
    api.add_exception_handler(_kind, partial(_unavailable, dependency=_dependency))


@api.exception_handler(Exception)
def _internal(request: HttpRequest, exc: Exception) -> HttpResponse:
    logger.exception("API %s %s failed.", request.method, request.path)
    return _error(request, 500, "Internal error; it was logged.", None)


# ---------------------------------------------------------------- schemas


class EvidenceIn(Schema):
    evidence: list[EvidenceItem] = Field(min_length=1, max_length=500)

    model_config = {"extra": "forbid"}


class DraftIn(Schema):
    body: str = Field(min_length=1, max_length=MAX_BODY_CHARS)

    model_config = {"extra": "forbid"}


def _utc(value: datetime) -> datetime:
    # PostgreSQL takes offsets up to ±15:59 and years 1-9999: normalize to UTC, refuse the rest.
    try:
        return (value if value.tzinfo else value.replace(tzinfo=UTC)).astimezone(UTC)
    except OverflowError:
        raise ValueError("date-time out of range") from None


def _iso(value: Any) -> Any:
    # pydantic reads "0.5" or 1.5e9 as a Unix time; the schema says RFC 3339 date-time.
    if isinstance(value, str) and not ISO_DATETIME.match(value):
        raise ValueError("must be an RFC 3339 date-time, such as 2026-01-01T00:00:00Z")
    return value


# RFC 3339 date-time in the years PostgreSQL and Python take, whatever the offset.
ISO_DATETIME = re.compile(
    r"^(?!0000|0001-01-01|9999-12-31)[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])"
    r"[Tt](?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\.[0-9]{1,6})?"
    r"(?:[Zz]|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])$"
)
UtcDatetime = Annotated[
    datetime,
    BeforeValidator(_iso),
    AfterValidator(_utc),
    WithJsonSchema({"type": "string", "format": "date-time", "pattern": ISO_DATETIME.pattern}),
]


# Ids are 64-bit in the database; a larger one is a 422, not a database error.
AnalysisId = Annotated[int, PathParam(ge=1, le=2**62)]


class ListFilters(Schema):
    pipeline: str | None = Field(
        None, max_length=50, pattern=r"^[-a-zA-Z0-9_]+$", description="A pipeline's slug."
    )
    status: Literal["validating", "in_review", "approved", "failed", "rejected"] | None = None
    decision: str | None = Field(
        None, max_length=20, pattern=api_schema.NO_NUL, description="The report's decision."
    )
    verdict: Literal["APPROVE", "REVISE", "RETRY", "FAIL"] | None = Field(
        None, description="The latest validator decision."
    )
    external_id: str | None = Field(None, max_length=200, pattern=api_schema.NO_NUL)
    received_after: UtcDatetime | None = None
    received_before: UtcDatetime | None = None
    approved_after: UtcDatetime | None = None
    approved_before: UtcDatetime | None = None
    cursor: int | None = Field(None, ge=1, le=2**62)
    limit: int = Field(50, ge=1, le=500)


# ---------------------------------------------------------------- endpoints


def _owner(request: HttpRequest) -> ApiToken:
    token: ApiToken = request.auth  # type: ignore[attr-defined]
    return token


def _analysis(request: HttpRequest, analysis_id: int) -> Analysis:
    visible = analyses_for_token(_owner(request)).select_related("pipeline")
    analysis = visible.filter(pk=analysis_id).first()
    if analysis is None:
        raise Http404(f"There is no analysis {analysis_id}.")
    return analysis


@api.post(
    "/analyses",
    response={200: AnalysisOut, 201: AnalysisOut, **ERRORS},
    openapi_extra=api_schema.operation(
        body=api_schema.bundle_schema(),
        responses={
            201: {"links": api_schema.ANALYSIS_LINKS},
            200: {"links": api_schema.ANALYSIS_LINKS},
        },
    ),
    summary="Submit a report with its evidence (idempotent on external_id)",
)
def analysis_create(request: HttpRequest) -> Status[dict[str, Any]]:
    token = _owner(request)
    result = services.analysis_submit(
        data=request.body, submitter=token.user, pipeline=token.pipeline
    )
    return Status(201 if result.created else 200, exports.analysis_summary(result.analysis))


@api.get(
    "/analyses",
    response={200: AnalysisPage, **ERRORS},
    openapi_extra=api_schema.operation(),
    summary="List analyses, newest first (filters, cursor pagination)",
)
def analysis_list(request: HttpRequest, filters: Query[ListFilters]) -> dict[str, Any]:
    options = filters.dict(exclude={"cursor", "limit"})
    page = exports.analyses_page(
        visible=analyses_for_token(_owner(request)),
        after=filters.cursor,
        limit=filters.limit + 1,
        **options,
    )
    more = len(page) > filters.limit
    page = page[: filters.limit]
    return {
        "items": [exports.analysis_summary(analysis) for analysis in page],
        "next_cursor": page[-1].pk if more else None,
    }


@api.get(
    "/analyses/{analysis_id}",
    response={200: AnalysisDetailOut, **ERRORS},
    openapi_extra=api_schema.operation(),
    summary="Status, current revision, attempts with findings and fixes",
)
def analysis_get(request: HttpRequest, analysis_id: AnalysisId) -> dict[str, Any]:
    return exports.analysis_detail(_analysis(request, analysis_id))


@api.post(
    "/analyses/{analysis_id}/evidence",
    response={202: SubmittedOut, **ERRORS},
    openapi_extra=api_schema.operation(body=api_schema.evidence_schema()),
    summary="RETRY path: add or replace evidence and re-validate",
)
def analysis_evidence(request: HttpRequest, analysis_id: AnalysisId) -> Status[dict[str, Any]]:
    analysis = _analysis(request, analysis_id)
    payload = payload_parse(request.body, EvidenceIn)
    revision = services.analysis_submit_evidence(
        analysis=analysis, user=_owner(request).user, evidence=payload.evidence
    )
    return _submitted(analysis, revision.number)


@api.post(
    "/analyses/{analysis_id}/drafts",
    response={202: SubmittedOut, **ERRORS},
    openapi_extra=api_schema.operation(body=api_schema.draft_schema()),
    summary="RETRY path: a new draft of the report, re-validated",
)
def analysis_draft(request: HttpRequest, analysis_id: AnalysisId) -> Status[dict[str, Any]]:
    analysis = _analysis(request, analysis_id)
    payload = payload_parse(request.body, DraftIn)
    revision = services.analysis_submit_draft(
        analysis=analysis, user=_owner(request).user, body=payload.body
    )
    return _submitted(analysis, revision.number)


def _submitted(analysis: Analysis, revision_number: int) -> Status[dict[str, Any]]:
    """202 for a RETRY submission: the analysis as it now stands and the new revision."""
    analysis.refresh_from_db()
    return Status(
        202, {"analysis": exports.analysis_summary(analysis), "revision": revision_number}
    )


@api.get(
    "/analyses/{analysis_id}/export",
    response={200: ExportOut, **ERRORS},
    summary="An approved report: body, fields, applied fixes with proof, sign-off",
    # An int key: ninja's own responses are keyed by int, and "200" beside 200 made two "200"
    # keys in the JSON, which no YAML or JSON parser takes (/api/v1/docs rendered nothing).
    openapi_extra=api_schema.operation(
        responses={200: {"content": {"text/markdown": {"schema": {"type": "string"}}}}}
    ),
)
def analysis_export(
    request: HttpRequest, analysis_id: AnalysisId, format: Literal["json", "markdown"] = "json"
) -> HttpResponse | dict[str, Any]:
    analysis = _analysis(request, analysis_id)
    if analysis.status != Analysis.Status.APPROVED:
        raise DomainError(f"Analysis {analysis.pk} is not approved (it is {analysis.status}).")
    export = exports.analysis_export(analysis)
    if format == "markdown":
        return HttpResponse(
            exports.export_markdown(export), content_type="text/markdown; charset=utf-8"
        )
    return export


@api.get(
    "/exports/approved",
    response={200: None, **ERRORS},
    summary="Approved reports as JSON lines, in order of approval (incremental pulls)",
    description="Each line is one export with its `cursor` (an `ApprovedExport`). Resume with "
    "`cursor=` the last one (also in the `X-Next-Cursor` header; absent when nothing is left).",
    openapi_extra=api_schema.operation(
        responses={
            200: {
                "content": {
                    "application/x-ndjson": {
                        "schema": {"$ref": "#/components/schemas/ApprovedExport"}
                    }
                },
                "headers": {
                    "X-Next-Cursor": {
                        "schema": {"type": "string"},
                        "description": "The cursor to resume from; absent on the last page.",
                    }
                },
            }
        }
    ),
)
def exports_approved(
    request: HttpRequest,
    since: UtcDatetime | None = None,
    cursor: int = Query(0, ge=0, le=2**62),  # type: ignore[type-arg]
    limit: int = Query(100, ge=1, le=1000),  # type: ignore[type-arg]
    pipeline: str | None = Query(  # type: ignore[type-arg]
        None, max_length=50, pattern=r"^[-a-zA-Z0-9_]+$", description="A pipeline's slug."
    ),
) -> HttpResponse:
    rows = list(
        exports.approved_exports(
            visible=analyses_for_token(_owner(request)),
            since=since,
            after=cursor,
            limit=limit,
            pipeline=pipeline,
        )
    )
    body = "".join(
        json.dumps({"cursor": position, **export}, ensure_ascii=False) + "\n"
        for position, export in rows
    )
    response = HttpResponse(body, content_type="application/x-ndjson; charset=utf-8")
    if len(rows) == limit:
        response["X-Next-Cursor"] = str(rows[-1][0])
    return response
