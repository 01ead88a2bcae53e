"""The Django admin: every model is there, history is view-only, the default Policy is one row
that only admins change and whose validation errors show on the form."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib import admin
from django.contrib.auth.models import User
from django.db.models import Model
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from analyses.models import Analysis, Evidence, Pipeline, Revision
from tests.factories import (
    AnalysisFactory,
    AttemptFactory,
    AuditEventFactory,
    EvidenceFactory,
    FindingFactory,
    FixFactory,
    LLMCallFactory,
    RevisionFactory,
    ToolCallFactory,
    UserFactory,
)
from validation.models import (
    Attempt,
    AuditEvent,
    Finding,
    Fix,
    LLMCall,
    Policy,
    ToolCall,
    WebhookDelivery,
    WebhookEndpoint,
)

pytestmark = pytest.mark.django_db

VIEW_ONLY = [
    Evidence,
    Revision,
    Attempt,
    Finding,
    Fix,
    ToolCall,
    LLMCall,
    AuditEvent,
    WebhookDelivery,
]
OUR_MODELS = [
    Analysis,
    *VIEW_ONLY,
    Policy,
    Pipeline,
    WebhookEndpoint,
]


@pytest.fixture
def superuser(db: None) -> User:
    return User.objects.create_superuser("root", "root@example.com", "pw-for-tests-only")


@pytest.fixture
def one_of_each(db: None) -> dict[type[Model], Model]:
    """One row of every model, linked the way the pipeline links them."""
    revision = RevisionFactory.create()
    attempt = AttemptFactory.create(revision=revision)
    fix = FixFactory.create(attempt=attempt)
    return {
        Analysis: revision.analysis,
        Evidence: EvidenceFactory.create(analysis=revision.analysis),
        Revision: revision,
        Attempt: attempt,
        Finding: FindingFactory.create(attempt=attempt),
        Fix: fix,
        ToolCall: ToolCallFactory.create(attempt=attempt, fix=fix),
        LLMCall: LLMCallFactory.create(attempt=attempt),
        AuditEvent: AuditEventFactory.create(analysis=revision.analysis, revision=revision),
        Policy: Policy.load(),
        User: UserFactory.create(username="someone"),
        WebhookDelivery: WebhookDelivery.objects.create(
            endpoint=WebhookEndpoint.objects.create(
                pipeline=revision.analysis.pipeline, url="https://hooks.example.com/", secret="s"
            ),
            event_type="analysis.in_review",
            analysis=revision.analysis,
            body="{}",
            next_attempt_at=timezone.now(),
        ),
    }


def _url(model: type[Model], view: str, *args: Any) -> str:
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_{view}", args=args)


def test_every_model_of_both_apps_is_registered() -> None:
    for model in OUR_MODELS:
        assert admin.site.is_registered(model), model


@pytest.mark.parametrize("who", ["admin_user", "superuser"])
def test_every_admin_page_loads_for_an_admin(
    client: Client, request: pytest.FixtureRequest, one_of_each: Any, who: Any
) -> None:
    """Changelist (with search and date drill-down), change and, where allowed, add pages."""
    user = request.getfixturevalue(who)
    client.force_login(user)
    checked = 0
    for model, model_admin in admin.site._registry.items():
        listing = client.get(_url(model, "changelist"), follow=True)
        assert listing.status_code == 200, model
        if model_admin.search_fields:
            assert client.get(_url(model, "changelist"), {"q": "NVO"}).status_code == 200, model
        obj = one_of_each.get(model) or model._default_manager.first()
        if obj is not None:
            assert client.get(_url(model, "change", obj.pk)).status_code == 200, model
        add = client.get(_url(model, "add"))
        request_ = listing.wsgi_request
        assert add.status_code == (200 if model_admin.has_add_permission(request_) else 403), model
        checked += 1
    assert checked >= len(OUR_MODELS)


@pytest.mark.parametrize("model", VIEW_ONLY, ids=lambda m: m.__name__)
def test_history_is_view_only_even_for_a_superuser(
    client: Client, superuser: User, one_of_each: Any, model: Any
) -> None:
    client.force_login(superuser)
    obj = one_of_each[model]

    page = client.get(_url(model, "change", obj.pk))

    assert page.status_code == 200
    assert b'name="_save"' not in page.content
    assert client.post(_url(model, "change", obj.pk), {}).status_code == 403
    assert client.get(_url(model, "add")).status_code == 403
    assert client.post(_url(model, "delete", obj.pk), {"post": "yes"}).status_code == 403
    assert model._default_manager.filter(pk=obj.pk).exists()


def test_an_admin_may_fix_an_analysis_title_but_not_its_status(
    client: Client, admin_user: User
) -> None:
    analysis = AnalysisFactory.create(title="Draft", status=Analysis.Status.IN_REVIEW)
    client.force_login(admin_user)

    response = client.post(
        _url(Analysis, "change", analysis.pk),
        {
            "title": "NVO thesis",
            "status": "approved",
            "evidence-TOTAL_FORMS": "0",
            "evidence-INITIAL_FORMS": "0",
            "revisions-TOTAL_FORMS": "0",
            "revisions-INITIAL_FORMS": "0",
        },
    )

    assert response.status_code == 302
    analysis.refresh_from_db()
    assert (analysis.title, analysis.status) == ("NVO thesis", Analysis.Status.IN_REVIEW)


def test_analyses_are_neither_added_nor_deleted_in_the_admin(
    client: Client, superuser: User
) -> None:
    analysis = AnalysisFactory.create()
    client.force_login(superuser)

    assert client.get(_url(Analysis, "add")).status_code == 403
    assert client.post(_url(Analysis, "delete", analysis.pk), {"post": "yes"}).status_code == 403
    assert Analysis.objects.filter(pk=analysis.pk).exists()


def test_the_analysis_page_lists_its_evidence_and_revisions(
    client: Client, admin_user: User
) -> None:
    evidence = EvidenceFactory.create(source_ref="gurufocus-financials")
    RevisionFactory.create(analysis=evidence.analysis, number=1)
    client.force_login(admin_user)

    page = client.get(_url(Analysis, "change", evidence.analysis.pk))

    assert b"gurufocus-financials" in page.content
    assert b"Draft as received" in page.content


# ---------------------------------------------------------------- Policy


def _policy_form(**changes: Any) -> dict[str, Any]:
    policy = Policy.load()
    data: dict[str, Any] = {}
    for field in Policy._meta.concrete_fields:
        if field.name in ("id", "updated_at", "pipeline"):
            continue
        value = getattr(policy, field.name)
        if isinstance(value, bool):
            if value:
                data[field.name] = "on"
        elif value is None:  # a blank optional field (the LLM overrides)
            data[field.name] = ""
        else:
            data[field.name] = value
    for name, value in changes.items():
        if value is False:
            data.pop(name, None)
        else:
            data[name] = value
    return data


def test_the_policy_list_shows_the_default_and_each_pipelines_own(
    client: Client, admin_user: User
) -> None:
    from validation.services import pipeline_create, policy_set

    policy_set(pipeline=pipeline_create(slug="thesis"), assignments=["citations=none"])
    client.force_login(admin_user)

    page = client.get(_url(Policy, "changelist")).content.decode()

    assert "Validation policy (default)" in page and "Validation policy of thesis" in page


def test_an_admin_adds_a_policy_for_a_pipeline_that_has_none(
    client: Client, admin_user: User
) -> None:
    from validation.services import pipeline_create

    thesis = pipeline_create(slug="thesis")
    client.force_login(admin_user)

    form = _policy_form(citations="none")
    without = client.post(_url(Policy, "add"), form)
    response = client.post(_url(Policy, "add"), {**form, "pipeline": thesis.pk})

    assert without.status_code == 200  # a new policy is a pipeline's: the field is required
    assert response.status_code == 302
    own = Policy.objects.get(pipeline=thesis)
    assert own.pk != 1 and own.citations == "none"
    assert Policy.load().citations != "none"


def test_an_admin_changes_the_policy(client: Client, admin_user: User) -> None:
    client.force_login(admin_user)

    response = client.post(
        _url(Policy, "change", 1),
        _policy_form(approve_threshold="0.85", max_revise_loops="1", retry_enabled=False),
    )

    assert response.status_code == 302
    policy = Policy.load()
    assert (policy.approve_threshold, policy.max_revise_loops) == (0.85, 1)
    assert policy.retry_enabled is False


def test_an_admin_sets_citation_strictness_and_the_failing_severity(
    client: Client, admin_user: User
) -> None:
    client.force_login(admin_user)

    page = client.get(_url(Policy, "change", 1)).content.decode()
    response = client.post(
        _url(Policy, "change", 1), _policy_form(citations="report", failing_severity="minor")
    )

    assert 'name="citations"' in page and 'name="failing_severity"' in page
    assert response.status_code == 302
    policy = Policy.load()
    assert (policy.citations, policy.failing_severity) == ("report", "minor")


def test_the_default_policy_is_never_deleted(client: Client, superuser: User) -> None:
    client.force_login(superuser)

    assert client.post(_url(Policy, "delete", 1), {"post": "yes"}).status_code == 403
    assert Policy.objects.filter(pk=1, pipeline__isnull=True).exists()


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"approve_threshold": "1.5"}, "Must be between 0 and 1 (got 1.5)."),
        (
            {"revise_threshold": "0.6", "approve_threshold": "0.5"},
            "The APPROVE threshold (0.5) must not be below the REVISE threshold (0.6).",
        ),
        (
            {"max_total_loops": "1"},
            "The total loop limit must be at least the larger of the REVISE and RETRY limits.",
        ),
    ],
)
def test_an_invalid_policy_shows_the_error_on_the_form_and_changes_nothing(
    client: Client, admin_user: User, changes: Any, message: Any
) -> None:
    client.force_login(admin_user)
    before = Policy.objects.values().get()

    response = client.post(_url(Policy, "change", 1), _policy_form(**changes))

    assert response.status_code == 200
    assert message in response.content.decode()
    assert "Please correct the error" in response.content.decode()
    assert Policy.objects.values().get() == before


def test_a_staff_reviewer_sees_the_policy_read_only_and_cannot_change_it(
    client: Client, reviewer: User
) -> None:
    reviewer.is_staff = True
    reviewer.save(update_fields=["is_staff"])
    client.force_login(reviewer)
    before = Policy.objects.values().get()

    page = client.get(_url(Policy, "change", 1))
    post = client.post(_url(Policy, "change", 1), _policy_form(approve_threshold="0.95"))

    assert page.status_code == 200
    assert b'name="approve_threshold"' not in page.content
    assert post.status_code == 403
    assert Policy.objects.values().get() == before


def test_a_reviewer_who_is_not_staff_is_sent_to_the_admin_login(
    client: Client, reviewer: User
) -> None:
    client.force_login(reviewer)

    response = client.post(_url(Policy, "change", 1), _policy_form(approve_threshold="0.95"))

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("admin:login"))
    assert Policy.load().approve_threshold == 0.80


def test_the_admin_is_branded_and_links_back_to_the_queue(client: Client, admin_user: User) -> None:
    client.force_login(admin_user)

    page = client.get(reverse("admin:index")).content.decode()

    assert "Redline administration" in page
    assert 'href="/"' in page


@pytest.mark.parametrize(("model", "field"), [(WebhookEndpoint, "url"), (Policy, "llm_base_url")])
def test_a_url_typed_without_its_scheme_is_read_as_https(
    rf: Any, admin_user: User, model: type[Model], field: str
) -> None:
    request = rf.get("/admin/")
    request.user = admin_user
    form = admin.site._registry[model].get_form(request)()

    assert form.fields[field].clean("hooks.example.com/redline") == (
        "https://hooks.example.com/redline"
    )
