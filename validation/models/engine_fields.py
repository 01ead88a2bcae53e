"""The Policy's engine settings, derived from ``EngineSettings``: one home per setting.

``EngineSettings`` (the engine's pydantic model) owns each setting's default, range
(``ge``/``le``) and choices (a ``Literal``). A Policy field made by ``engine_field(name)``
takes all three from there: its default, its validator, its choices, and the database check
constraint ``engine_constraints`` derives. Making an engine setting admin-tunable is two
edits: ``name = engine_field("name")`` in the Policy, and the migration ``makemigrations``
writes. ``tests/validation/models/test_engine_fields.py`` holds the two in step.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, get_args, get_origin

from annotated_types import Ge, Le
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils.deconstruct import deconstructible

from validation.engine.types import EngineSettings

# Engine settings the Policy leaves at their defaults (no admin asked to tune them).
NOT_ON_THE_POLICY = frozenset({"goal_pass", "goal_partial"})


@deconstructible
class Between:
    """A value within [low, high], said as "Must be between 0 and 1 (got 1.5)."."""

    def __init__(self, low: float, high: float) -> None:
        self.low, self.high = low, high

    def __call__(self, value: float | None) -> None:
        if value is not None and not self.low <= value <= self.high:
            raise ValidationError(
                f"Must be between {self.low:g} and {self.high:g} (got {value}).", code="range"
            )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Between) and (self.low, self.high) == (other.low, other.high)

    def __hash__(self) -> int:
        return hash((self.low, self.high))


def bounds(name: str) -> tuple[float | None, float | None]:
    """(ge, le) of an engine setting; None where it has none."""
    low = high = None
    for item in EngineSettings.model_fields[name].metadata:
        if isinstance(item, Ge):
            low = item.ge
        elif isinstance(item, Le):
            high = item.le
    return low, high  # type: ignore[return-value]


def choices(name: str) -> tuple[str, ...]:
    """The values of a Literal engine setting; () for any other."""
    annotation = EngineSettings.model_fields[name].annotation
    if get_origin(annotation) is Literal:
        return tuple(str(value) for value in get_args(annotation))
    return ()


def engine_field(name: str, *, labels: Mapping[str, str] | None = None, **options: Any) -> Any:
    """The Policy field of the engine setting `name`: its default, range and choices are
    EngineSettings'. `labels` name the choices for people; `options` (help_text …) are the
    field's own."""
    info = EngineSettings.model_fields[name]
    default = info.default
    field: models.Field[Any, Any]
    if values := choices(name):
        named = labels or {}
        field = models.CharField(
            max_length=max(10, *(len(value) for value in values)),
            choices=[(value, named.get(value, value.capitalize())) for value in values],
            default=default,
            **options,
        )
    else:
        low, high = bounds(name)
        validators = [Between(low, high)] if low is not None and high is not None else []
        kind = _field_class(info.annotation)
        field = kind(default=default, validators=validators, **options)
    field.engine_setting = True  # type: ignore[attr-defined]
    return field


def _field_class(annotation: Any) -> type[models.Field[Any, Any]]:
    if annotation is bool:
        return models.BooleanField
    if annotation is int:
        return models.IntegerField
    if annotation is float:
        return models.FloatField
    raise TypeError(f"no Policy field for an engine setting of type {annotation!r}")


def engine_setting_names(model: type[models.Model]) -> list[str]:
    """The engine settings `model` (the Policy) carries, in field order."""
    return [
        field.name
        for field in model._meta.concrete_fields
        if getattr(field, "engine_setting", False)
    ]


def engine_constraints(model_name: str, names: list[str]) -> list[models.CheckConstraint]:
    """The database's own check of each engine setting's range or choices."""
    constraints = []
    for name in names:
        if values := choices(name):
            condition = Q(**{f"{name}__in": list(values)})
            suffix = "valid"
        else:
            low, high = bounds(name)
            if low is None or high is None:
                continue
            condition = Q(**{f"{name}__gte": low}) & Q(**{f"{name}__lte": high})
            suffix = "range"
        constraints.append(
            models.CheckConstraint(condition=condition, name=f"{model_name}_{name}_{suffix}")
        )
    return constraints


__all__ = [
    "NOT_ON_THE_POLICY",
    "Between",
    "bounds",
    "choices",
    "engine_constraints",
    "engine_field",
    "engine_setting_names",
]
