"""The queue as the attempts table sees it: whether workers are taking work, and the re-send
of every queued attempt after the broker lost its messages.

The broker only carries wake-ups; the attempts table is the truth. Two things follow:

- **Stalled**: attempts are queued, the oldest has waited longer than
  ``REDLINE_QUEUE_STALL_SECONDS``, and no attempt was started within that time. An empty queue,
  or a busy one whose workers keep starting attempts, is healthy; a queue nobody takes from
  is not (every worker dead, or cut off from the broker). ``/readyz`` and the
  ``redline_queue_stalled`` metric report it.
- **Lost wake-ups**: a Redis that restarts without persistence comes back empty, and the
  wake-ups of every queued attempt go with it. Waiting for each start deadline (the lease)
  would leave them queued for minutes; ``attempts_resend_queued`` sends them all again at
  once, which is safe because a worker claims an attempt with a compare-and-swap: a
  duplicate wake-up finds nothing to claim and changes nothing.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Min
from django.utils import timezone

from validation.models import Attempt
from validation.services.jobs import send_validation

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class QueueState:
    queued: int
    oldest_wait_seconds: float
    stalled: bool


def queue_state(*, now: datetime | None = None) -> QueueState:
    """How many attempts wait, for how long, and whether workers have stopped taking them."""
    now = now or timezone.now()
    window = timedelta(seconds=settings.REDLINE_QUEUE_STALL_SECONDS)
    waiting = Attempt.objects.filter(status=Attempt.Status.QUEUED).aggregate(
        oldest=Min("queued_at")
    )
    oldest: datetime | None = waiting["oldest"]
    if oldest is None:
        return QueueState(queued=0, oldest_wait_seconds=0.0, stalled=False)
    queued = Attempt.objects.filter(status=Attempt.Status.QUEUED).count()
    wait = (now - oldest).total_seconds()
    stalled = False
    if oldest < now - window:
        # Any start within the window means some worker is taking work (validation_attempt_
        # started_idx answers this without reading the table).
        stalled = not Attempt.objects.filter(started_at__gte=now - window).exists()
    return QueueState(queued=queued, oldest_wait_seconds=wait, stalled=stalled)


def attempts_resend_queued() -> list[int]:
    """Send the wake-up of every queued attempt again; return their revisions.

    For a broker that came back without its messages. A queued attempt whose wake-up did
    survive gets a second one, which its worker skips (nothing left to claim)."""
    revision_ids = list(
        Attempt.objects.filter(status=Attempt.Status.QUEUED)
        .order_by("queued_at")
        .values_list("revision_id", flat=True)
    )
    for revision_id in revision_ids:
        send_validation(revision_id)
    if revision_ids:
        logger.warning(
            "The broker restarted: re-sent the wake-ups of %s queued attempts.", len(revision_ids)
        )
    return revision_ids
