"""The pipelines migrations on a database that holds today's data: users with API tokens,
analyses (two senders sharing an external id), and an edited Policy. Everything lands in a
pipeline, nothing changes hands, and the Policy stays the default one."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("analyses", "0002_analysis_bundle_sha256"), ("validation", "0014_attempt_markdown_help")]


def _migrate(targets: list[tuple[str, str]]) -> MigrationExecutor:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return MigrationExecutor(connection)


def _latest() -> list[tuple[str, str]]:
    executor = MigrationExecutor(connection)
    return [
        node for node in executor.loader.graph.leaf_nodes() if node[0] in ("analyses", "validation")
    ]


@pytest.fixture
def before_pipelines(transactional_db: None) -> Iterator[MigrationExecutor]:
    executor = _migrate(BEFORE)
    yield executor
    _migrate(_latest())  # leave the schema as the other tests expect it


def test_todays_tokens_analyses_and_policy_move_into_pipelines(
    before_pipelines: MigrationExecutor,
) -> None:
    old = before_pipelines.loader.project_state(BEFORE).apps
    User = old.get_model("auth", "User")
    Analysis = old.get_model("analyses", "Analysis")
    ApiToken = old.get_model("validation", "ApiToken")
    Policy = old.get_model("validation", "Policy")
    alice = User.objects.create(username="alice")
    bob = User.objects.create(username="bob")
    for user, n in ((alice, 1), (bob, 2)):
        ApiToken.objects.create(
            user=user, scope="write", prefix=f"rl_{n}", token_sha256=str(n) * 64
        )
    # Both used external id "r-1" (unique per submitter until now); alice also sent "r-2".
    first = Analysis.objects.create(query="q", submitter=alice, external_id="r-1")
    second = Analysis.objects.create(query="q", submitter=bob, external_id="r-1")
    third = Analysis.objects.create(query="q", submitter=alice, external_id="r-2")
    shell = Analysis.objects.create(query="q", submitter=None, external_id="")
    Policy.objects.update_or_create(pk=1, defaults={"approve_threshold": 0.95})

    new = _migrate(_latest()).loader.project_state(_latest()).apps
    Analysis = new.get_model("analyses", "Analysis")
    ApiToken = new.get_model("validation", "ApiToken")
    Policy = new.get_model("validation", "Policy")

    def slug_of(pk: int) -> str:
        return str(Analysis.objects.get(pk=pk).pipeline.slug)

    assert slug_of(first.pk) == "default"
    assert slug_of(third.pk) == "default"
    assert slug_of(shell.pk) == "default"
    # bob's "r-1" would collide with alice's in one pipeline: bob's analyses get his own.
    assert slug_of(second.pk) == f"user-{bob.pk}"
    tokens = {token.user_id: token.pipeline.slug for token in ApiToken.objects.all()}
    assert tokens == {alice.pk: "default", bob.pk: f"user-{bob.pk}"}
    policy = Policy.objects.get()
    assert policy.pk == 1 and policy.pipeline_id is None and policy.approve_threshold == 0.95
