"""One promise for input (issue 19): whatever ingest accepts, a real worker validates without
error. Ingest took a 27-decimal number and 100 fields beside a FINAL DECISION line, and the
worker then errored the attempt; the whole hostile corpus (tests/hostile/corpus.py) now goes
through ingest and a real Celery worker, and no attempt errors."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from redline_errors import IngestError
from tests.hostile.corpus import corpus
from tests.support.worker import wait_until
from validation.models import Attempt
from validation.services import analysis_submit

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_every_bundle_ingest_accepts_is_validated_by_a_real_worker(
    start_workers: Callable[..., Any],
) -> None:
    workers = [start_workers(beat=False), start_workers(beat=False)]
    accepted: dict[int, str] = {}
    for case in corpus():
        try:
            analysis = analysis_submit(data=case.data, submitter=None).analysis
        except IngestError:
            assert case.outcome == "refused", case.name
            continue
        assert case.outcome == "verdict", case.name
        accepted[analysis.pk] = case.name
    assert len(accepted) > 130

    def finished() -> bool:
        open_ = Attempt.objects.filter(analysis_id__in=accepted).exclude(
            status__in=[Attempt.Status.DONE, Attempt.Status.ERRORED]
        )
        return not open_.exists()

    wait_until(finished, timeout=600, what="every accepted bundle to be validated", workers=workers)
    errored = {
        accepted[attempt.analysis_id]: attempt.error
        for attempt in Attempt.objects.filter(
            analysis_id__in=accepted, status=Attempt.Status.ERRORED
        )
    }
    assert errored == {}
    assert Attempt.objects.filter(analysis_id__in=accepted, status="done").count() == len(accepted)
