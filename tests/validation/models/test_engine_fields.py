"""The Policy and EngineSettings agree on every engine setting: default, range and choices,
in the model field, its validators and the database's check constraints."""

from __future__ import annotations

from typing import Any, Literal, get_args, get_origin

import pytest
from annotated_types import Ge, Le
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Field

from validation.engine.types import EngineSettings
from validation.models import Policy
from validation.models.engine_fields import NOT_ON_THE_POLICY, Between, engine_field
from validation.models.policy import ENGINE_SETTINGS

pytestmark = pytest.mark.django_db


def _range(name: str) -> tuple[float, float] | None:
    metadata = EngineSettings.model_fields[name].metadata
    lows = [item.ge for item in metadata if isinstance(item, Ge)]
    highs = [item.le for item in metadata if isinstance(item, Le)]
    return (float(lows[0]), float(highs[0])) if lows and highs else None  # type: ignore[arg-type]


def _field(name: str) -> Field[Any, Any]:
    field = Policy._meta.get_field(name)
    assert isinstance(field, Field)
    return field


def _choices(name: str) -> list[str]:
    annotation = EngineSettings.model_fields[name].annotation
    return list(get_args(annotation)) if get_origin(annotation) is Literal else []


def test_every_engine_setting_is_on_the_policy_or_named_as_left_at_its_default() -> None:
    on_the_policy = set(ENGINE_SETTINGS)

    assert on_the_policy | NOT_ON_THE_POLICY == set(EngineSettings.model_fields)
    assert on_the_policy & NOT_ON_THE_POLICY == set()
    assert {"approve_threshold", "citations", "failing_severity"} <= on_the_policy


@pytest.mark.parametrize("name", ENGINE_SETTINGS)
def test_the_default_is_the_engines(name: str) -> None:
    assert _field(name).default == EngineSettings.model_fields[name].default
    assert getattr(Policy.load(), name) == getattr(EngineSettings(), name)


@pytest.mark.parametrize("name", [name for name in ENGINE_SETTINGS if _range(name)])
def test_the_range_is_the_engines_in_validators_and_database(name: str) -> None:
    low, high = _range(name)  # type: ignore[misc]
    field = _field(name)
    for inside in (low, high, (low + high) / 2):
        field.run_validators(inside)
        EngineSettings(**{name: inside})
    for outside in (low - 0.01, high + 0.01):
        with pytest.raises(ValidationError):
            field.run_validators(outside)
        with pytest.raises(ValueError):
            EngineSettings(**{name: outside})
        with pytest.raises(IntegrityError), transaction.atomic():
            Policy.objects.filter(pk=1).update(**{name: outside})


@pytest.mark.parametrize("name", [name for name in ENGINE_SETTINGS if _choices(name)])
def test_the_choices_are_the_engines_in_the_field_and_database(name: str) -> None:
    field = _field(name)

    assert [value for value, _ in field.choices or ()] == _choices(name)
    for value in _choices(name):
        Policy.objects.filter(pk=1).update(**{name: value})
    with pytest.raises(IntegrityError), transaction.atomic():
        Policy.objects.filter(pk=1).update(**{name: "bogus"})  # fits the column


def test_the_policy_gives_the_engine_every_setting_it_carries() -> None:
    policy = Policy.load()
    policy.relative_tolerance = 0.07
    policy.citations = "report"

    settings = policy.engine_settings()

    assert settings.relative_tolerance == 0.07 and settings.citations == "report"
    assert settings.goal_pass == EngineSettings().goal_pass  # left at the engine's default


def test_an_engine_field_takes_everything_from_the_engine() -> None:
    field = engine_field("goal_pass", help_text="only the help is the Policy's")

    assert field.default == 0.75 and field.validators == [Between(0, 1)]
    assert field.help_text == "only the help is the Policy's"
    with pytest.raises(ValidationError, match=r"Must be between 0 and 1 \(got 1.5\)\."):
        field.run_validators(1.5)
