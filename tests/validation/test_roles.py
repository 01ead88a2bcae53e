"""The groups and the Policy row always exist: after migrate and after every flush."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group
from django.core.management import call_command

from validation.models import Policy


@pytest.mark.django_db(transaction=True)
def test_groups_and_policy_are_recreated_after_a_flush() -> None:
    Group.objects.all().delete()
    Policy.objects.all().delete()

    call_command("flush", interactive=False, verbosity=0)

    reviewer = Group.objects.get(name="reviewer")
    assert reviewer.permissions.filter(codename="change_fix").exists()
    assert not reviewer.permissions.filter(codename="change_policy").exists()
    assert Group.objects.get(name="admin").permissions.filter(codename="change_policy").exists()
    assert Policy.objects.filter(pk=1).exists()
