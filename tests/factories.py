"""factory_boy factories for the data model."""

import factory
from django.contrib.auth.models import Group, User

from analyses.models import Analysis, Evidence, Revision


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = User
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"user{n}")
    password = factory.PostGenerationMethodCall("set_password", "pw-for-tests-only")

    @factory.post_generation
    def groups(self, create, extracted, **kwargs):  # type: ignore[no-untyped-def]
        if create and extracted:
            for name in extracted:
                self.groups.add(Group.objects.get(name=name))


class AnalysisFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Analysis

    title = factory.Sequence(lambda n: f"Analysis {n}")
    query = "What was Novo Nordisk's owner earnings in 2024?"
    status = Analysis.Status.IN_REVIEW


class EvidenceFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Evidence

    analysis = factory.SubFactory(AnalysisFactory)
    source_ref = factory.Sequence(lambda n: f"tool-output-{n}")
    kind = Evidence.Kind.TOOL_OUTPUT
    content_json = factory.LazyFunction(lambda: {"operating_cash_flow": 15.5, "capex": 0.7})


class RevisionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Revision

    analysis = factory.SubFactory(AnalysisFactory)
    number = 1
    body = "Owner Earnings: Operating Cash Flow $15.5B - CapEx $0.7B = $14.8B.\n"
