"""Wake-ups lost with the broker: a Redis that restarts without persistence comes back empty,
and the wake-ups of every queued attempt go with it. Waiting for each start deadline (the
lease) would leave them queued for minutes; ``attempts_resend_queued`` sends them all again at
once, which is safe because a worker claims an attempt with a compare-and-swap: a duplicate
wake-up finds nothing to claim and changes nothing. (Whether workers are taking work at all
is a read: ``validation.selectors.queue_state``.)
"""

from __future__ import annotations

import logging

from validation.models import Attempt
from validation.services.jobs import send_validation

logger = logging.getLogger(__name__)


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
