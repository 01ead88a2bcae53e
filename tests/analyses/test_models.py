"""The invariants of Analysis, Evidence and Revision live in the database."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from analyses.models import Analysis, Evidence, ImmutableError, Pipeline, Revision
from tests.factories import AnalysisFactory, EvidenceFactory, RevisionFactory, UserFactory

pytestmark = pytest.mark.django_db


def _rejected(create: Callable[[], object]) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        create()


# ---------------------------------------------------------------- Analysis


def test_an_external_id_is_unique_per_submitter() -> None:
    pipeline = UserFactory.create()
    AnalysisFactory.create(submitter=pipeline, external_id="run-1")

    _rejected(lambda: AnalysisFactory.create(submitter=pipeline, external_id="run-1"))


def test_another_pipeline_may_reuse_an_external_id() -> None:
    AnalysisFactory.create(submitter=UserFactory.create(), external_id="run-1")

    other = Pipeline.objects.create(slug="other", name="Other")
    AnalysisFactory.create(submitter=UserFactory.create(), external_id="run-1", pipeline=other)

    assert Analysis.objects.filter(external_id="run-1").count() == 2


def test_one_pipeline_never_holds_an_external_id_twice() -> None:
    AnalysisFactory.create(submitter=UserFactory.create(), external_id="run-1")

    with pytest.raises(IntegrityError, match="external_id|unique"), transaction.atomic():
        AnalysisFactory.create(submitter=UserFactory.create(), external_id="run-1")


def test_a_blank_external_id_is_allowed_any_number_of_times() -> None:
    pipeline = UserFactory.create()
    AnalysisFactory.create(submitter=pipeline, external_id="")
    AnalysisFactory.create(submitter=pipeline, external_id="")

    assert Analysis.objects.filter(submitter=pipeline, external_id="").count() == 2


def test_the_status_must_be_one_of_the_choices() -> None:
    _rejected(lambda: AnalysisFactory.create(status="archived"))


def test_a_claim_must_have_an_expiry() -> None:
    _rejected(lambda: AnalysisFactory.create(claimed_by=UserFactory.create(), claimed_until=None))


def test_a_claim_with_an_expiry_is_fine() -> None:
    analysis = AnalysisFactory.create(claimed_by=UserFactory.create(), claimed_until=timezone.now())

    assert analysis.claimed_until is not None


# ---------------------------------------------------------------- Evidence


def test_evidence_holds_text_or_json_never_both() -> None:
    _rejected(lambda: EvidenceFactory.create(content_text="15.5B", content_json={"ocf": 15.5}))


@pytest.mark.parametrize(
    ("text", "data", "content"),
    [("Operating cash flow 15.5B", None, "Operating cash flow 15.5B"), ("", [1, 2], [1, 2])],
)
def test_evidence_content_is_whichever_of_text_or_json_is_set(
    text: Any, data: Any, content: Any
) -> None:
    evidence = EvidenceFactory.create(content_text=text, content_json=data)

    assert evidence.content == content


def test_a_source_ref_is_unique_within_an_analysis() -> None:
    first = EvidenceFactory.create(source_ref="gurufocus")

    _rejected(lambda: EvidenceFactory.create(analysis=first.analysis, source_ref="gurufocus"))


def test_two_analyses_may_use_the_same_source_ref() -> None:
    EvidenceFactory.create(source_ref="gurufocus")
    EvidenceFactory.create(source_ref="gurufocus")

    assert Evidence.objects.filter(source_ref="gurufocus").count() == 2


# ---------------------------------------------------------------- Revision


def test_a_revision_number_is_unique_within_an_analysis() -> None:
    first = RevisionFactory.create(number=1)

    _rejected(lambda: RevisionFactory.create(analysis=first.analysis, number=1))


def test_a_revision_number_starts_at_1() -> None:
    _rejected(lambda: RevisionFactory.create(number=0))


def test_a_saved_revision_cannot_be_changed() -> None:
    revision = RevisionFactory.create(body="Owner earnings: $15.8B")
    revision.body = "Owner earnings: $14.8B"

    with pytest.raises(ImmutableError):
        revision.save()

    assert Revision.objects.get(pk=revision.pk).body == "Owner earnings: $15.8B"


def test_a_revision_cannot_be_deleted() -> None:
    revision = RevisionFactory.create()

    with pytest.raises(ImmutableError):
        revision.delete()

    assert Revision.objects.filter(pk=revision.pk).exists()
