"""Browser tests: Playwright drives Debian's Chromium (/usr/bin/chromium), no download.

Playwright's sync API runs an asyncio loop in the test thread; the test code itself
talks to the database synchronously, which Django would otherwise refuse.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

CHROMIUM = Path("/usr/bin/chromium")
PASSWORD = "pw-for-tests-only"  # tests.factories.UserFactory sets it


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if CHROMIUM.exists():
        return
    skip = pytest.mark.skip(
        reason=f"{CHROMIUM} is missing: install Debian's chromium (apt-get install chromium)"
    )
    for item in items:
        if item.get_closest_marker("browser"):
            item.add_marker(skip)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    return {
        **browser_type_launch_args,
        "executable_path": str(CHROMIUM),
        "args": [
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
        ],
    }


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args: dict[str, Any]) -> dict[str, Any]:
    return {**browser_context_args, "viewport": {"width": 1440, "height": 900}}


@pytest.fixture
def screenshot_dir() -> Path:
    path = Path(os.environ.get("REDLINE_SCREENSHOT_DIR", "test-artifacts/screenshots"))
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture
def login(live_server: Any, page: Any) -> Callable[[Any], None]:
    """Log `user` in through the real login form."""

    def do_login(user: Any) -> None:
        page.goto(f"{live_server.url}/accounts/login/")
        page.fill("#id_username", user.username)
        page.fill("#id_password", PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_url(f"{live_server.url}/")

    return do_login


@pytest.fixture
def dialogs(page: Any) -> Iterator[list[str]]:
    """Every alert/confirm/prompt the page opens (an XSS payload would show up here)."""
    seen: list[str] = []

    def on_dialog(dialog: Any) -> None:
        seen.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", on_dialog)
    yield seen


@pytest.fixture(autouse=True)
def fast_password_hasher(settings: Any) -> None:
    # Users are created in every test; PBKDF2 would dominate the run time.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def start_worker(worker_queue: str, tmp_path: Path) -> Iterator[Callable[[], Any]]:
    """Start the real Celery worker (tests/support/worker.py) on demand; stopped at teardown."""
    from tests.support.worker import start_worker as start

    started: list[Any] = []

    def run() -> Any:
        worker = start(queue=worker_queue, log_dir=tmp_path, wait=False)
        started.append(worker)
        worker.wait_ready()
        return worker

    yield run
    for worker in started:
        worker.stop()


@pytest.fixture
def shoot(page: Any, screenshot_dir: Path) -> Callable[[str], Path]:
    """Save a full-page PNG. The viewport grows to the page height first, so the sticky
    footer sits where a reader would see it at the end of the page, not mid-image."""

    def take(name: str) -> Path:
        path = screenshot_dir / f"{name}.png"
        viewport = page.viewport_size
        height = page.evaluate("document.documentElement.scrollHeight")
        page.set_viewport_size(
            {"width": viewport["width"], "height": max(height, viewport["height"])}
        )
        page.screenshot(path=str(path), full_page=True)
        page.set_viewport_size(viewport)
        return path

    return take
