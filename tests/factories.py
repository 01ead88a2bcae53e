"""factory_boy factories for the data model. Call ``XFactory.create(...)`` (typed: it returns
the model) rather than ``XFactory(...)``, which factory_boy leaves untyped."""

from __future__ import annotations

import factory
from django.contrib.auth.models import Group, User

from analyses.models import Analysis, Evidence, Revision
from validation.models import Attempt, AuditEvent, Finding, Fix, LLMCall, ToolCall


class UserFactory(factory.django.DjangoModelFactory[User]):
    class Meta:
        model = User
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")

    password = factory.PostGeneration(
        lambda user, create, extracted, **kwargs: _password(user, create, extracted)
    )
    groups = factory.PostGeneration(
        lambda user, create, extracted, **kwargs: _groups(user, create, extracted)
    )


def _password(user: User, create: bool, extracted: str | None) -> None:
    user.set_password(extracted or "pw-for-tests-only")
    if create:
        user.save(update_fields=["password"])


def _groups(user: User, create: bool, extracted: list[str] | None) -> None:
    if create and extracted:
        for name in extracted:
            user.groups.add(Group.objects.get(name=name))


class AnalysisFactory(factory.django.DjangoModelFactory[Analysis]):
    class Meta:
        model = Analysis

    title = factory.Sequence(lambda n: f"Analysis {n}")
    query = "What was Novo Nordisk's owner earnings in 2024?"
    status = Analysis.Status.IN_REVIEW


class EvidenceFactory(factory.django.DjangoModelFactory[Evidence]):
    class Meta:
        model = Evidence

    analysis = factory.SubFactory(AnalysisFactory)
    source_ref = factory.Sequence(lambda n: f"tool-output-{n}")
    kind = Evidence.Kind.TOOL_OUTPUT
    content_json = factory.LazyFunction(lambda: {"operating_cash_flow": 15.5, "capex": 0.7})


class RevisionFactory(factory.django.DjangoModelFactory[Revision]):
    class Meta:
        model = Revision

    analysis = factory.SubFactory(AnalysisFactory)
    number = 1
    body = "Owner Earnings: Operating Cash Flow $15.5B - CapEx $0.7B = $14.8B.\n"


# ---------------------------------------------------------------- validation models


class AttemptFactory(factory.django.DjangoModelFactory[Attempt]):
    class Meta:
        model = "validation.Attempt"

    revision = factory.SubFactory(RevisionFactory)
    analysis = factory.SelfAttribute("revision.analysis")
    number = factory.SelfAttribute("revision.number")


class FindingFactory(factory.django.DjangoModelFactory[Finding]):
    class Meta:
        model = "validation.Finding"

    attempt = factory.SubFactory(AttemptFactory)
    check_name = "no_hallucinations"
    kind = "arithmetic"
    severity = "major"
    message = "15.5 - 0.7 is 14.8, not 15.8."
    start = 52
    end = 58
    text = "$15.8B"


class FixFactory(factory.django.DjangoModelFactory[Fix]):
    class Meta:
        model = "validation.Fix"

    attempt = factory.SubFactory(AttemptFactory)
    revision = factory.SelfAttribute("attempt.revision")
    kind = "arithmetic"
    find = "= $15.8B"
    replace = "= $14.8B"
    proposed_replace = "= $14.8B"
    verified_with = "calculator: 15.5 - 0.7 = 14.8"
    confidence = 0.95


class ToolCallFactory(factory.django.DjangoModelFactory[ToolCall]):
    class Meta:
        model = "validation.ToolCall"

    attempt = factory.SubFactory(AttemptFactory)
    tool = "calculator"
    input = factory.LazyFunction(lambda: {"expression": "15.5 - 0.7"})
    output = "14.8"


class LLMCallFactory(factory.django.DjangoModelFactory[LLMCall]):
    class Meta:
        model = "validation.LLMCall"

    attempt = factory.SubFactory(AttemptFactory)
    purpose = "judge"
    model = "qwen3-coder-30b"
    prompt = factory.LazyFunction(lambda: [{"role": "user", "content": "Validate."}])
    response = '{"decision": "REVISE"}'


class AuditEventFactory(factory.django.DjangoModelFactory[AuditEvent]):
    class Meta:
        model = "validation.AuditEvent"

    analysis = factory.SubFactory(AnalysisFactory)
    action = "ingested"
