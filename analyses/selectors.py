"""Reads of the analyses app."""

from __future__ import annotations

from django.contrib.auth.models import User

from analyses.models import Analysis


def analysis_get_by_external_id(*, submitter: User | None, external_id: str) -> Analysis | None:
    """The analysis `submitter` sent with `external_id`, if any (external ids are per submitter)."""
    if not external_id:
        return None
    analyses = Analysis.objects.filter(external_id=external_id)
    if submitter is None:
        analyses = analyses.filter(submitter__isnull=True)
    else:
        analyses = analyses.filter(submitter=submitter)
    return analyses.first()
