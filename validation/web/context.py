"""What every page's template gets (a context processor in ``project/settings.py``): the
nav's "Queue (N)", counted only when a template shows it, once per response."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from django.http import HttpRequest

from validation import selectors
from validation.permissions import is_reviewer


def nav(request: HttpRequest) -> dict[str, Callable[[], int]]:
    """``nav_queue_count``: analyses in review, for a reviewer (0 for anyone else). A
    template calls it; a fragment without the nav never runs its query."""

    @cache
    def queue_count() -> int:
        user = getattr(request, "user", None)
        if user is None or not user.is_authenticated or not is_reviewer(user):
            return 0
        return selectors.in_review_count()

    return {"nav_queue_count": queue_count}
