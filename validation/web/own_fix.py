"""A reviewer's own fix, from the review screen: on a finding, on text selected in the report
(its block's source offsets and the text, mapped back to the source by
``validation.web.selection``), or on text typed. Thin: the service ``fix_author`` decides."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from analyses.models import Analysis
from redline_errors import DomainError, InvalidInput, RedlineError, http_status
from validation import selectors, services
from validation.web.selection import source_span
from validation.web.views import (
    REVIEW_TEMPLATE,
    HtmxHttpRequest,
    _analysis_to_act_on,
    _is_fragment_request,
    _review_context,
)


def _int_or_none(raw: str | None) -> int | None:
    try:
        return int(raw) if raw not in (None, "") else None
    except ValueError:
        raise InvalidInput(f"Expected a whole number, got {str(raw)[:20]!r}.") from None


@require_POST
@login_required
def fix_author(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """A reviewer's own fix: on a finding, on text selected in the report (its block's
    source offsets and the text, mapped back to the source here), or on text typed."""
    analysis = _analysis_to_act_on(request, pk)
    form = {key: request.POST.get(key, "") for key in ("find", "replace", "finding")}
    status = 200
    try:
        span, revision_number = _selection_span(request, analysis)
        fix = services.fix_author(
            analysis_id=analysis.pk,
            user=request.user,
            replace=form["replace"],
            find=form["find"],
            span=span,
            revision_number=revision_number,
            finding_id=_int_or_none(form["finding"]),
        )
    except RedlineError as exc:
        messages.error(request, f"Your fix was not added: {exc}")
        status = http_status(exc)
    else:
        form = {}
        messages.success(request, f"Your fix (fix {fix.pk}) is added: accept it, then apply.")
    if not _is_fragment_request(request):
        return redirect("analysis_review", pk=pk)
    context = _review_context(request, analysis, own_fix=form)
    response = render(request, f"{REVIEW_TEMPLATE}#fixes-response", context)
    response.status_code = status
    return response


def _selection_span(
    request: HtmxHttpRequest, analysis: Analysis
) -> tuple[tuple[int, int] | None, int | None]:
    """The source span of a selection the form carries (None: no selection was sent)."""
    start = _int_or_none(request.POST.get("src_start"))
    end = _int_or_none(request.POST.get("src_end"))
    revision_number = _int_or_none(request.POST.get("revision"))
    if start is None or end is None or revision_number is None:
        return None, None
    body = selectors.revision_body(analysis=analysis, number=revision_number)
    # Refusals a person can act on are DomainErrors (409): htmx swaps their answer in.
    if body is None:
        raise DomainError(f"There is no revision {revision_number}: select the text again.")
    near = _int_or_none(request.POST.get("sel_at")) or 0
    selected = request.POST.get("find", "")
    if len(selected) > services.MAX_FIND_CHARS:
        raise DomainError(f"Select less: at most {services.MAX_FIND_CHARS} characters.")
    span = source_span(body, start, end, selected, near)
    if span is None:
        raise DomainError(
            "The selected text was not found in the report's source: select within one "
            "paragraph, or type the text as the source writes it."
        )
    return span, revision_number
