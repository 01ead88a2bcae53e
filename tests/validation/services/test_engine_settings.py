"""The worker validates with the Policy's settings, mapped one to one onto the engine's:
the same choices give the same verdict as `redline check --settings FILE`."""

from __future__ import annotations

import pytest

from validation.engine.pipeline import validate
from validation.engine.types import Bundle, EngineSettings, EvidenceItem
from validation.models import Policy
from validation.services import engine_settings

pytestmark = pytest.mark.django_db


def test_the_default_policy_gives_the_default_engine_settings() -> None:
    assert engine_settings(Policy.load()) == EngineSettings()


def test_citations_and_failing_severity_come_from_the_policy() -> None:
    Policy.objects.filter(pk=1).update(citations="none", failing_severity="minor")

    settings = engine_settings(Policy.load())

    assert (settings.citations, settings.failing_severity) == ("none", "minor")


def test_the_worker_and_the_command_line_agree_on_the_same_choices() -> None:
    bundle = Bundle(
        query="What is the margin?",
        body="The margin is 41%.",
        evidence=[EvidenceItem(source_ref="quote-NVO", content="margin 41%")],
    )
    Policy.objects.filter(pk=1).update(citations="none")

    from_policy = validate(bundle, engine_settings(Policy.load()))
    from_file = validate(bundle, EngineSettings.model_validate_json('{"citations": "none"}'))

    assert from_policy.model_dump(exclude={"timings_ms"}) == from_file.model_dump(
        exclude={"timings_ms"}
    )
    assert from_policy.decision == "APPROVE"
