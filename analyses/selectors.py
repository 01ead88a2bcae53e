"""Reads of the analyses app."""

from __future__ import annotations

from analyses.models import Analysis, Pipeline


def analysis_get_by_external_id(*, pipeline: Pipeline, external_id: str) -> Analysis | None:
    """The analysis `pipeline` sent with `external_id`, if any (external ids are per pipeline)."""
    if not external_id:
        return None
    return Analysis.objects.filter(pipeline=pipeline, external_id=external_id).first()
