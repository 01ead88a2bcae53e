"""The "New analysis" page: a reviewer or an admin pastes a report and its evidence.

Thin: the form turns the input into a bundle (``validation.web.forms``) and
``services.analysis_submit`` ingests it, the very service and limits the API uses. A refusal
puts each message on the field it names and writes nothing; a new analysis opens on its
review page, which shows it validating until the worker is done. With htmx the form is
swapped in place (422 with its errors), and a success is a client redirect.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.views.decorators.http import require_http_methods
from django_htmx.http import HttpResponseClientRedirect

from redline_errors import IngestError, RedlineError
from validation import selectors, services
from validation.permissions import is_reviewer
from validation.web.forms import MAX_EVIDENCE_ROWS, AnalysisForm, EvidenceFormSet, NewAnalysis
from validation.web.views import HtmxHttpRequest

TEMPLATE = "validation/new_analysis.html"
EVIDENCE_PREFIX = "evidence"


@require_http_methods(["GET", "POST"])
@login_required
def analysis_new(request: HtmxHttpRequest) -> HttpResponse:
    if not is_reviewer(request.user):
        raise Http404("No such page.")  # for reviewers and admins only; others never see it
    if request.method == "GET":
        new = NewAnalysis(AnalysisForm(), EvidenceFormSet(prefix=EVIDENCE_PREFIX))
        return _page(request, new)
    if request.POST.get("action") == "add_row":
        return _page(request, _with_one_more_row(request))
    new = NewAnalysis(
        AnalysisForm(request.POST),
        EvidenceFormSet(request.POST, request.FILES, prefix=EVIDENCE_PREFIX),
    )
    if not new.is_valid():
        return _page(request, new, status=422)
    try:
        result = services.analysis_submit(
            data=new.bundle(), submitter=request.user, pipeline=new.form.cleaned_data["pipeline"]
        )
    except IngestError as error:
        new.place_ingest_errors(error.errors)
        return _page(request, new, status=422)
    except RedlineError as error:
        new.form.add_error(None, str(error))
        return _page(request, new, status=422)
    analysis = result.analysis
    if result.created:
        messages.success(request, f"Analysis {analysis.pk} submitted: validation is under way.")
    else:
        messages.info(
            request,
            f"This pipeline already has this external id and content: analysis {analysis.pk}.",
        )
    url = reverse("analysis_review", args=[analysis.pk])
    if request.htmx:
        return HttpResponseClientRedirect(url)
    return redirect(url)


def _with_one_more_row(request: HtmxHttpRequest) -> NewAnalysis:
    """The form as typed, one evidence row longer; nothing checked yet, nothing sent.
    (Files do not survive a round trip: a browser never refills a file input.)"""
    data: QueryDict = request.POST.copy()
    key = f"{EVIDENCE_PREFIX}-TOTAL_FORMS"
    try:
        total = int(data.get(key, "0"))
    except ValueError:
        total = 0
    data[key] = str(min(max(total, 0) + 1, MAX_EVIDENCE_ROWS))
    evidence = EvidenceFormSet(data, prefix=EVIDENCE_PREFIX)
    form = AnalysisForm(data)
    # Unbound copies that show what was typed, without errors on a form nobody sent yet.
    unbound = NewAnalysis(
        AnalysisForm(initial=_values(form)),
        EvidenceFormSet(
            prefix=EVIDENCE_PREFIX,
            initial=[_values(row) for row in evidence.forms],
        ),
    )
    unbound.evidence.extra = 0
    return unbound


def _values(form: Any) -> dict[str, Any]:
    values = {name: form[name].value() for name in form.fields if name != "file"}
    if "format" in values and not values["format"]:
        values["format"] = form.fields["format"].initial
    return values


def _page(request: HtmxHttpRequest, new: NewAnalysis, status: int = 200) -> HttpResponse:
    context = {
        "form": new.form,
        "evidence": new.evidence,
        "max_rows": MAX_EVIDENCE_ROWS,
        "nav_queue_count": selectors.in_review_count(),
    }
    template = TEMPLATE
    if request.htmx and not request.htmx.history_restore_request:
        template += "#new-analysis-form"
    response = render(request, template, context, status=status)
    patch_vary_headers(response, ("HX-Request",))
    return response
