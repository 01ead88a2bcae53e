"""Pipelines and their policies: create a pipeline; show a policy; set its fields from text
(configuration as code: `manage.py policy set FIELD=VALUE ...`).

A policy set from the shell passes the same validation as the admin form (each field's
validators, then the Policy's ``clean``, then the database's checks); a bad value changes
nothing and says why."""

from __future__ import annotations

import re
from typing import Any

from django.core.exceptions import ValidationError
from django.db import models, transaction

from analyses.models import Pipeline
from redline_errors import InvalidInput
from validation.models import Policy
from validation.models.policy import POLICY_SETTINGS

_SLUG = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,48}[a-z0-9])?$")
_TRUE = frozenset({"true", "yes", "on", "1"})
_FALSE = frozenset({"false", "no", "off", "0"})


@transaction.atomic
def pipeline_create(*, slug: str, name: str = "", description: str = "") -> Pipeline:
    """A new pipeline. The slug is lower-case letters, digits and hyphens (1-50)."""
    slug = slug.strip()
    if not _SLUG.match(slug):
        raise InvalidInput(
            f"A pipeline's slug is 1 to 50 lower-case letters, digits and inner hyphens, "
            f"not {slug[:60]!r}."
        )
    if Pipeline.objects.filter(slug=slug).exists():
        raise InvalidInput(f"There is already a pipeline {slug!r}.")
    name = (name.strip() or slug)[:100]
    return Pipeline.objects.create(slug=slug, name=name, description=description)


def pipeline_get(slug: str) -> Pipeline:
    pipeline = Pipeline.objects.filter(slug=slug).first()
    if pipeline is None:
        raise InvalidInput(f"There is no pipeline {slug[:60]!r}.")
    return pipeline


def policy_of(pipeline: Pipeline | None) -> Policy:
    """The policy that judges `pipeline`'s analyses (its own, or the default); the default
    for None."""
    return Policy.for_pipeline(pipeline.pk if pipeline is not None else None)


def policy_shown(slug: str) -> tuple[Pipeline | None, Policy]:
    """The pipeline named `slug` and the policy that judges it; blank: (None, the default)."""
    pipeline = pipeline_get(slug.strip()) if slug.strip() else None
    return pipeline, policy_of(pipeline)


def policy_rows(policy: Policy) -> list[tuple[str, str]]:
    """(field, value as text) of every setting, in the order of the fields."""
    return [(name, _text(getattr(policy, name))) for name in POLICY_SETTINGS]


@transaction.atomic
def policy_set(*, pipeline: Pipeline | None, assignments: list[str]) -> Policy:
    """Set FIELD=VALUE pairs on `pipeline`'s own policy (made from the default's settings
    when it has none yet), or on the default policy for None. All or nothing."""
    if not assignments:
        raise InvalidInput("Give at least one FIELD=VALUE.")
    values: dict[str, str] = {}
    for assignment in assignments:
        name, sep, value = assignment.partition("=")
        name = name.strip()
        if not sep or not name:
            raise InvalidInput(f"{assignment[:80]!r} is not FIELD=VALUE.")
        if name not in POLICY_SETTINGS:
            raise InvalidInput(
                f"{name[:60]!r} is not a policy field; the fields are: "
                f"{', '.join(POLICY_SETTINGS)}."
            )
        values[name] = value.strip()
    if pipeline is None:
        policy = Policy.objects.select_for_update().filter(pk=Policy.load().pk).get()
    else:
        # The pipeline's row, locked; made from the default's settings on its first change.
        policy = Policy.objects.select_for_update().filter(pipeline=pipeline).first() or (
            _copy_of_default(pipeline)
        )
    errors: list[str] = []
    for name, raw in values.items():
        field = Policy._meta.get_field(name)
        assert isinstance(field, models.Field)  # POLICY_SETTINGS are concrete fields
        try:
            setattr(policy, name, _parse(field, raw))
        except ValidationError as error:
            errors.append(f"{name}: {' '.join(error.messages)}")
    if not errors:
        try:
            policy.full_clean(exclude=["id", "pipeline"])
        except ValidationError as error:
            errors.extend(
                f"{field}: {' '.join(messages)}" for field, messages in error.message_dict.items()
            )
    if errors:
        raise InvalidInput("The policy is unchanged: " + "; ".join(errors) + ".")
    policy.save()
    return policy


def _copy_of_default(pipeline: Pipeline) -> Policy:
    default = Policy.load()
    return Policy(pipeline=pipeline, **{name: getattr(default, name) for name in POLICY_SETTINGS})


def _parse(field: models.Field[Any, Any], raw: str) -> object:
    """The value `raw` means for `field`, by the field's own conversion (a blank value of a
    nullable field is None)."""
    if raw == "" and field.null:
        return None
    if isinstance(field, models.BooleanField):
        lowered = raw.lower()
        if lowered in _TRUE:
            return True
        if lowered in _FALSE:
            return False
        raise ValidationError("must be true or false.")
    value = field.to_python(raw)
    if isinstance(value, float) and value != value:  # NaN passes every range check
        raise ValidationError("must be a number.")
    if field.choices and value not in {choice for choice, _ in field.flatchoices}:
        choices = ", ".join(str(choice) for choice, _ in field.flatchoices)
        raise ValidationError(f"must be one of {choices}.")
    return value


def _text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
