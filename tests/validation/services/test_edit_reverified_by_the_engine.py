"""Issue 25, point 4: a reviewer's edit is re-verified by the engine's own rule, in the
edited report, never against the chance derivation a proposed fix happened to carry."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from analyses.models import Analysis, Evidence
from tests.support.review_data import add_fix, analysis_in_review
from validation import services
from validation.models import Fix, ToolCall

pytestmark = pytest.mark.django_db

# Orders rose from 40.0 to 46.0 thousand units: 15.0 %. The proposed fix below carries an
# unrelated calculation (two figures that are not orders) as its proof.
BODY = (
    "# Orders note\n\n"
    "Orders reached 46.0 thousand units in 2024 against 40.0 thousand units in 2023, "
    "a rise of 18.0%.\n"
)
TABLE = (
    "| Line | 2024 | 2023 |\n|---|---|---|\n"
    "| Orders (thousand units) | 46.0 | 40.0 |\n"
    "| Returns (thousand units) | 3.3 | 2.8 |\n"
)


def _analysis_with_a_chance_fix() -> tuple[Analysis, Fix]:
    analysis = analysis_in_review(body=BODY)
    Evidence.objects.create(analysis=analysis, source_ref="orders_table", content_text=TABLE)
    fix = add_fix(analysis, "rise of 18.0%", "rise of 17.9%", confidence=0.9)
    fix.verified_with = "calculator: (3.3 - 2.8) / 2.8 * 100 = 17.857142857"
    fix.save()
    ToolCall.objects.create(
        attempt=fix.attempt,
        fix=fix,
        tool="calculator",
        input={"expression": "(3.3 - 2.8) / 2.8 * 100"},
        output="17.857142857",
    )
    return analysis, fix


def test_an_edit_to_the_value_the_writers_own_figures_give_is_verified(reviewer: User) -> None:
    _, fix = _analysis_with_a_chance_fix()

    services.fix_edit(fix=fix, user=reviewer, replace="rise of 15.0%")

    fix.refresh_from_db()
    assert fix.edit_check == Fix.EditCheck.VERIFIED
    assert fix.status == Fix.Status.ACCEPTED
    assert "engine" in fix.edit_note


def test_an_edit_no_rule_supports_stays_unverified(reviewer: User) -> None:
    _, fix = _analysis_with_a_chance_fix()

    services.fix_edit(fix=fix, user=reviewer, replace="rise of 12.5%")

    fix.refresh_from_db()
    assert fix.edit_check == Fix.EditCheck.UNVERIFIED
    assert fix.status == Fix.Status.PROPOSED
