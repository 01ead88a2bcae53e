"""The queue and the review screen. Thin: read through selectors and presenters, write
through services, each action calling its service by name.

Every page works without JavaScript (forms POST and redirect back with a message); with
htmx the same views return only the fragment that changed, rendered from the same
template (``"validation/review.html#fix-review-response"``).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.middleware.csrf import get_token
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import patch_vary_headers
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseStopPolling, reswap, retarget
from django_htmx.middleware import HtmxDetails

from analyses.models import Analysis
from redline_errors import InvalidInput, RedlineError, RevisionChanged, http_status
from validation import selectors, services
from validation.models import Attempt, Fix, Policy
from validation.permissions import _get_analysis_for_user, is_reviewer, require_reviewer
from validation.review_read import FixUnderReview
from validation.web import fix_cards, presenters, review_state, status_poll

REVIEW_TEMPLATE = "validation/review.html"
QUEUE_TEMPLATE = "validation/queue.html"


class HtmxHttpRequest(HttpRequest):
    """A request past our login gate (project.middleware) and django-htmx's middleware."""

    user: User
    htmx: HtmxDetails


def _is_fragment_request(request: HtmxHttpRequest) -> bool:
    """An htmx request that wants a fragment (a history restore wants the whole page)."""
    return bool(request.htmx) and not request.htmx.history_restore_request


def _vary(response: HttpResponse) -> HttpResponse:
    # The same URL answers with a page or a fragment: caches must tell them apart.
    patch_vary_headers(response, ("HX-Request", "HX-Target"))
    return response


# ---------------------------------------------------------------- queue


@require_GET
@login_required
def queue(request: HtmxHttpRequest) -> HttpResponse:
    filters = selectors.QueueFilters.from_query(request.GET)
    analyses = selectors.queue_analyses(user=request.user, filters=filters)
    page = Paginator(analyses, selectors.QUEUE_PAGE_SIZE).get_page(request.GET.get("page"))
    context = {
        "filters": filters,
        "page_obj": page,
        "status_counts": selectors.queue_status_counts(user=request.user, filters=filters),
        "decision_choices": Attempt.Decision.choices,
        "pipeline_choices": selectors.pipeline_choices(),
        "reviewer": is_reviewer(request.user),
        "now": timezone.now(),
    }
    template = QUEUE_TEMPLATE
    if _is_fragment_request(request) and request.htmx.target == "queue-results":
        template = f"{QUEUE_TEMPLATE}#queue-results"
    return _vary(render(request, template, context))


@require_GET
@login_required
def queue_row(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """One queue row, polled while its analysis validates; polling stops once it is done."""
    analysis = selectors.analysis_queue_row(analysis_id=pk, user=request.user)
    if analysis is None:
        _get_analysis_for_user(request, pk)  # raises the 404
    if not _is_fragment_request(request):
        return redirect("analysis_review", pk=pk)
    response = render(
        request,
        f"{QUEUE_TEMPLATE}#queue-row",
        {"analysis": analysis, "now": timezone.now()},
    )
    if analysis is not None and analysis.status != Analysis.Status.VALIDATING:
        # 286 tells htmx to stop polling; the row it swaps in carries no trigger either.
        response.status_code = HttpResponseStopPolling.status_code
    return response


@require_POST
@login_required
def queue_next(request: HtmxHttpRequest) -> HttpResponse:
    """Claim the oldest unclaimed analysis in review and open it."""
    require_reviewer(request)
    try:
        analysis = services.analysis_claim_next(user=request.user)
    except RedlineError as error:
        messages.error(request, str(error))
        return redirect("queue")
    if analysis is None:
        messages.info(request, "Nothing left to review: no unclaimed analysis is waiting.")
        return redirect("queue")
    return redirect("analysis_review", pk=analysis.pk)


# ---------------------------------------------------------------- policy


@require_GET
@login_required
def policy(request: HtmxHttpRequest) -> HttpResponse:
    """A Policy, read-only, for reviewers (admins change it in the Django admin): the default,
    or with ``?pipeline=SLUG`` the one that judges that pipeline (its own, else the default)."""
    require_reviewer(request)
    try:
        pipeline, current = services.policy_shown(request.GET.get("pipeline", ""))
    except RedlineError as error:
        raise Http404(str(error)) from None
    context = {"policy": current, "pipeline": pipeline, "rows": presenters.policy_rows(current)}
    return render(request, "validation/policy.html", context)


# ---------------------------------------------------------------- review page


def _review_context(request: HtmxHttpRequest, analysis: Analysis, **extra: Any) -> dict[str, Any]:
    page = presenters.review_page(
        analysis=analysis,
        user=request.user,
        reviewer=is_reviewer(request.user),
        tab=request.GET.get("tab", "report"),
        diff_a=request.GET.get("a"),
        diff_b=request.GET.get("b"),
        csrf_token=get_token(request),
    )
    return {"page": page, **extra}


def _load_analysis(request: HtmxHttpRequest, pk: int) -> Analysis:
    return _get_analysis_for_user(request, pk, selectors.review_analysis_queryset())


@require_GET
@login_required
def analysis_review(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    analysis = _load_analysis(request, pk)
    context = _review_context(request, analysis)
    template = REVIEW_TEMPLATE
    if _is_fragment_request(request):
        target = request.htmx.target
        template += "#tab-panel" if target == "tab-panel" else "#review-main"
    return _vary(render(request, template, context))


@require_GET
@login_required
def analysis_status(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The live validation status, polled every 1.5 s while an attempt is queued or
    running. Once it is done the whole review region is swapped in and polling stops.
    An open page that is not validating polls it too, slower (``watch=1``), so that a new
    revision or a status nobody on the page made shows up there (`status_poll`)."""
    analysis = _load_analysis(request, pk)
    if not _is_fragment_request(request):
        return redirect("analysis_review", pk=pk)
    state = review_state.review_state(
        analysis=analysis, user=request.user, reviewer=is_reviewer(request.user)
    )
    poll = status_poll.Poll(
        revision=request.GET.get("revision", ""),
        status=request.GET.get("status", ""),
        watching=request.GET.get("watch") == "1",
    )
    if not poll.behind(state) and (state.validating or poll.watching):  # the cheap answer
        return render(request, f"{REVIEW_TEMPLATE}#validation-status", {"page": state})
    context = _review_context(request, analysis)
    if (said := status_poll.news(poll, context["page"])) is not None:
        messages.add_message(request, *said)
    response = render(request, f"{REVIEW_TEMPLATE}#main-response", context)
    response.status_code = HttpResponseStopPolling.status_code
    retarget(response, "#review-main")
    return reswap(response, "outerHTML")


# ---------------------------------------------------------------- fix actions


@dataclass
class _Result:
    """What a review action came to: the success message, or the refusal and its status."""

    done: str = ""
    error: str = ""
    status: int = 200
    changed: bool = False  # refused because another revision is current: show it


@contextmanager
def _refusal_kept() -> Iterator[_Result]:
    """Run the service call in the block; a refusal (RedlineError) is kept on the result
    instead of raised, and a fix that is not the URL's analysis's is a 404."""
    result = _Result()
    try:
        yield result
    except services.FixNotFound:
        raise Http404("No such fix on this analysis.") from None
    except RedlineError as exc:
        result.error, result.status = str(exc), http_status(exc)
        result.changed = isinstance(exc, RevisionChanged)


def _fix_to_review(request: HtmxHttpRequest, pk: int, fix_id: int) -> Fix:
    """The fix a review action names, unread: the service reads (and locks) it and checks it
    is the URL's analysis's. 404 for an analysis they may not see, 403 for a non-reviewer."""
    if not is_reviewer(request.user):
        _load_analysis(request, pk)  # 404 for an analysis they may not see
        require_reviewer(request)  # 403 for one they only submitted
    return Fix(pk=fix_id)


def _fix_answer(
    request: HtmxHttpRequest, pk: int, fix: Fix, result: _Result, *, whole_card: bool = False
) -> HttpResponse:
    """A fix review action's answer. For htmx, the card's review part (the whole card for an
    edit, which changes the diff) with the footer, bulk accept and claim out of band, drawn
    from the action's own read when it got that far; else a redirect with a message."""
    fix_id = fix.pk
    if not _is_fragment_request(request):
        if result.error:
            messages.error(request, f"Fix {fix_id}: {result.error}")
        else:
            messages.success(request, result.done)
        return HttpResponseRedirect(reverse("analysis_review", args=[pk]) + f"#fix-{fix_id}")
    target: FixUnderReview | None = getattr(fix, "under_review", None)
    if whole_card or target is None:
        return _fix_card_response(request, pk, fix_id, error=result.error, status=result.status)
    state = review_state.review_state_of(target, user=request.user)
    review_html = review_state.fix_review_html(
        target, state, csrf_token=get_token(request), error=result.error
    )
    context = {"page": state, "review_html": review_html}
    response = render(request, f"{REVIEW_TEMPLATE}#fix-review-response", context)
    response.status_code = result.status
    return response


def _fix_card_response(
    request: HtmxHttpRequest, pk: int, fix_id: int, *, error: str, status: int
) -> HttpResponse:
    """The changed card, plus the footer and bulk-accept form out of band (counts moved)."""
    analysis = _load_analysis(request, pk)
    state = review_state.review_state(analysis=analysis, user=request.user, reviewer=True)
    card = fix_cards.fix_card_for(fix_id=fix_id, analysis=analysis, error=error)
    html = fix_cards.card_html(card, state.card_flags(get_token(request)))
    response = render(
        request, f"{REVIEW_TEMPLATE}#fix-card-response", {"page": state, "card_html": html}
    )
    response.status_code = status
    return response


@require_POST
@login_required
def fix_accept(request: HtmxHttpRequest, pk: int, fix_id: int) -> HttpResponse:
    fix = _fix_to_review(request, pk, fix_id)
    with _refusal_kept() as result:
        services.fix_accept(fix=fix, user=request.user, analysis_id=pk)
        result.done = f"Fix {fix_id} accepted."
    return _fix_answer(request, pk, fix, result)


@require_POST
@login_required
def fix_reject(request: HtmxHttpRequest, pk: int, fix_id: int) -> HttpResponse:
    reason = request.POST.get("reason", "").strip()
    fix = _fix_to_review(request, pk, fix_id)
    with _refusal_kept() as result:
        services.fix_reject(fix=fix, user=request.user, reason=reason, analysis_id=pk)
        result.done = f"Fix {fix_id} rejected."
    return _fix_answer(request, pk, fix, result)


@require_POST
@login_required
def fix_edit(request: HtmxHttpRequest, pk: int, fix_id: int) -> HttpResponse:
    replace = request.POST.get("replace", "")
    fix = _fix_to_review(request, pk, fix_id)
    with _refusal_kept() as result:
        services.fix_edit(fix=fix, user=request.user, replace=replace, analysis_id=pk)
        result.done = f"Fix {fix_id} edited."
    return _fix_answer(request, pk, fix, result, whole_card=True)


@require_POST
@login_required
def fix_undo(request: HtmxHttpRequest, pk: int, fix_id: int) -> HttpResponse:
    fix = _fix_to_review(request, pk, fix_id)
    with _refusal_kept() as result:
        services.fix_undo(fix=fix, user=request.user, analysis_id=pk)
        result.done = f"Review of fix {fix_id} undone."
    return _fix_answer(request, pk, fix, result)


@require_POST
@login_required
def fixes_bulk_accept(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    analysis = _load_analysis(request, pk)
    require_reviewer(request)
    status = 200
    try:
        threshold = _parse_threshold(request.POST.get("min_confidence"), analysis)
        accepted = services.fixes_bulk_accept(
            analysis=analysis, user=request.user, min_confidence=threshold
        )
    except RedlineError as exc:
        messages.error(request, str(exc))
        status = http_status(exc)
    else:
        n = len(accepted)
        messages.success(
            request, f"Accepted {n} fix{'es' if n != 1 else ''} with confidence ≥ {threshold:.2f}."
        )
    if not _is_fragment_request(request):
        return redirect("analysis_review", pk=pk)
    response = render(
        request, f"{REVIEW_TEMPLATE}#fixes-response", _review_context(request, analysis)
    )
    response.status_code = status
    return response


def _parse_threshold(raw: str | None, analysis: Analysis) -> float:
    """The threshold the form sent; none: the one of the analysis' pipeline's policy."""
    if raw is None or raw.strip() == "":
        return Policy.for_pipeline(analysis.pipeline_id).fix_confidence_threshold
    try:
        value = float(raw)
    except ValueError:
        raise InvalidInput(
            f"The confidence threshold must be a number, got {raw[:20]!r}."
        ) from None
    if not 0.0 <= value <= 1.0:  # also false for NaN
        raise InvalidInput(f"The confidence threshold must be between 0 and 1, got {raw[:20]}.")
    return value


# ---------------------------------------------------------------- analysis actions


def _analysis_to_act_on(request: HtmxHttpRequest, pk: int) -> Analysis:
    analysis = _load_analysis(request, pk)
    require_reviewer(request)
    return analysis


def _analysis_answer(request: HtmxHttpRequest, pk: int, result: _Result) -> HttpResponse:
    """An analysis action's answer: its message, then the whole review region for htmx, or
    a redirect back for a plain form."""
    if result.error:
        messages.error(request, result.error)
    else:
        messages.success(request, result.done)
    if not _is_fragment_request(request) and not result.changed:
        return redirect("analysis_review", pk=pk)
    analysis = _load_analysis(request, pk)
    if result.changed and not _is_fragment_request(request):
        # 409 with the page of the current revision: what the reviewer must read now.
        response = render(request, REVIEW_TEMPLATE, _review_context(request, analysis))
        response.status_code = result.status
        return _vary(response)
    response = render(
        request, f"{REVIEW_TEMPLATE}#main-response", _review_context(request, analysis)
    )
    response.status_code = result.status
    return response


@require_POST
@login_required
def fixes_apply(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    analysis = _analysis_to_act_on(request, pk)
    with _refusal_kept() as result:
        outcome = services.fixes_apply(analysis_id=analysis.pk, user=request.user)
        result.done = _apply_message(outcome)
    return _analysis_answer(request, pk, result)


def _apply_message(outcome: services.ApplyOutcome) -> str:
    applied, conflicts, stale = len(outcome.applied), len(outcome.conflicts), len(outcome.stale)
    parts = []
    if outcome.revision is not None:
        parts.append(
            f"Applied {applied} fix{'es' if applied != 1 else ''} into revision "
            f"{outcome.revision.number}; re-validating."
        )
    else:
        parts.append("No revision was created.")
    if conflicts:
        parts.append(f"{conflicts} conflict{'s' if conflicts != 1 else ''}: see the cards.")
    if stale:
        parts.append(f"{stale} stale fix{'es' if stale != 1 else ''}.")
    return " ".join(parts)


def _seen_revision(request: HtmxHttpRequest) -> int:
    """The revision number the sign-off and reject forms carry: the one the reviewer read."""
    raw = request.POST.get("revision", "").strip()
    if not raw.isascii() or not raw.isdigit() or len(raw) > 9:
        raise InvalidInput("The form does not say which revision you read: reload the page.")
    return int(raw)


@require_POST
@login_required
def analysis_sign_off(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    comment = request.POST.get("comment", "").strip()
    override = request.POST.get("override") in ("1", "on", "true")
    analysis = _analysis_to_act_on(request, pk)
    with _refusal_kept() as result:
        seen = _seen_revision(request)
        services.analysis_sign_off(
            analysis=analysis, user=request.user, comment=comment, override=override, revision=seen
        )
        result.done = "Signed off: the analysis is approved."
    return _analysis_answer(request, pk, result)


@require_POST
@login_required
def analysis_reject(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    comment = request.POST.get("comment", "").strip()
    analysis = _analysis_to_act_on(request, pk)
    with _refusal_kept() as result:
        seen = _seen_revision(request)
        services.analysis_reject(
            analysis=analysis, user=request.user, comment=comment, revision=seen
        )
        result.done = "The analysis was rejected."
    return _analysis_answer(request, pk, result)


@require_POST
@login_required
def analysis_claim(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    analysis = _analysis_to_act_on(request, pk)
    with _refusal_kept() as result:
        services.analysis_claim(analysis=analysis, user=request.user)
        result.done = "You claimed this analysis."
    return _analysis_answer(request, pk, result)


@require_POST
@login_required
def analysis_release(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    analysis = _analysis_to_act_on(request, pk)
    with _refusal_kept() as result:
        services.analysis_release(analysis=analysis, user=request.user)
        result.done = "You released your claim."
    return _analysis_answer(request, pk, result)


@require_POST
@login_required
def analysis_revalidate(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    analysis = _analysis_to_act_on(request, pk)
    with _refusal_kept() as result:
        services.analysis_revalidate(analysis=analysis, user=request.user)
        result.done = "Re-validation queued."
    return _analysis_answer(request, pk, result)
