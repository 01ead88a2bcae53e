"""What a review page's status poll is answered: the cheap fragment while nothing the page
shows has moved, else the whole review region with a line that says what happened.

The page names the revision it shows and the status its pill shows. Either can fall behind:
another revision becomes current (a new draft, new evidence, whoever holds the claim), or
the status moves (a validation finishes, another reviewer signs off). The page reads the
analysis before its attempts, so a worker that records its verdict in between leaves it
saying "Validating" beside a done attempt, polling at the watching pace: only the status it
names tells that it is behind.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib import messages

from analyses.models import Analysis
from validation.engine.report import format_confidence
from validation.models import Attempt
from validation.web.review_state import ReviewState


@dataclass(frozen=True)
class Poll:
    """What the polling page says it shows."""

    revision: str  # the revision number it shows, "" when it does not say
    status: str  # the status its pill shows, "" when it does not say
    watching: bool  # the idle page's slower poll (``watch=1``)

    def changed(self, state: ReviewState) -> bool:
        return self.revision != "" and self.revision != str(state.current_revision.number)

    def moved(self, analysis: Analysis) -> bool:
        return self.status in Analysis.Status.values and self.status != analysis.status

    def behind(self, state: ReviewState) -> bool:
        """The page shows what is no longer so: the whole region is swapped in."""
        return self.changed(state) or self.moved(state.analysis)


def news(poll: Poll, page: ReviewState) -> tuple[int, str] | None:
    """The line (a `messages` level and its text) that comes with the swapped-in region."""
    if poll.changed(page):
        now = page.current_revision
        why = f"revision {now.number} is current now ({now.get_reason_display().lower()})"
        read = poll.revision[:9]
        return messages.WARNING, f"The report changed while you read revision {read}: {why}."
    attempt = page.current_attempt
    # A watching page hears of a validation only if its pill showed one.
    finished = not poll.watching or poll.status == Analysis.Status.VALIDATING
    number = page.current_revision.number
    if attempt is not None and finished and attempt.status == Attempt.Status.DONE:
        said = f"{attempt.decision} · {format_confidence(attempt.confidence or 0)}"
        return messages.INFO, f"Validation of revision {number} finished: {said}."
    if attempt is not None and finished and attempt.status == Attempt.Status.ERRORED:
        return messages.ERROR, f"Validation of revision {number} errored."
    if poll.moved(page.analysis):
        return messages.INFO, f"This analysis is {page.analysis.get_status_display().lower()} now."
    return None
