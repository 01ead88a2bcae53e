from __future__ import annotations

import os
from collections.abc import Generator, Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from hypothesis import settings as hypothesis_settings

# CI explores the same examples every run, so a red build is reproducible; locally, each run
# explores new ones.
hypothesis_settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    hypothesis_settings.load_profile("ci")

pytest_plugins = ["tests.support.bundles"]

REQUIRED_MARKERS = ("integration", "browser", "llm_local")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, Any, None]:
    """In CI (REDLINE_REQUIRE_FULL_SUITE=1) a skipped browser, integration or local-model test
    is a failure."""
    outcome = yield
    report = outcome.get_result()
    if (
        os.environ.get("REDLINE_REQUIRE_FULL_SUITE") == "1"
        and report.skipped
        and any(item.get_closest_marker(name) for name in REQUIRED_MARKERS)
    ):
        report.outcome = "failed"
        report.longrepr = (
            f"{item.nodeid} was skipped, but CI requires browser, integration and local-model "
            "tests."
        )


@pytest.fixture(scope="session")
def local_llm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The real local model (SmolLM2-135M-Instruct on llama.cpp's server), started once per
    session on a free 127.0.0.1 port. Skipped when ``bin/install-local-llm`` has not run
    (CI runs it, and fails on the skip)."""
    from validation.engine.llm.local import local_server, server_installed

    if not server_installed():
        pytest.skip("the local LLM is not installed: run bin/install-local-llm")
    log = tmp_path_factory.mktemp("llm") / "llama-server.log"
    with local_server(log=log, timeout_s=180) as server:
        yield server


@pytest.fixture
def reviewer(db: None) -> User:
    from tests.factories import UserFactory

    return UserFactory.create(username="dana", groups=["reviewer"])


@pytest.fixture
def other_reviewer(db: None) -> User:
    from tests.factories import UserFactory

    return UserFactory.create(username="sam", groups=["reviewer"])


@pytest.fixture
def admin_user(db: None) -> User:
    from tests.factories import UserFactory

    user = UserFactory.create(username="ada", groups=["admin"])
    user.is_staff = True
    user.save(update_fields=["is_staff"])
    return user


@pytest.fixture
def outsider(db: None) -> User:
    """A logged-in user with no role: sees nothing that is not theirs."""
    from tests.factories import UserFactory

    return UserFactory.create(username="olga")


@pytest.fixture
def worker_queue() -> Iterator[str]:
    """A queue of this test's own: this process (and a live server thread) send tasks to it
    instead of running them, and a worker started by the test consumes it."""
    from tests.support.worker import new_queue_name, sending_to

    queue = new_queue_name()
    with sending_to(queue):
        yield queue
